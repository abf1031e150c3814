// Password hashing with scrypt (node:crypto). The hash string carries its own
// parameters and salt — scrypt$N$r$p$salt$hash, base64 — so the cost can be
// raised later without invalidating stored hashes. scrypt runs on libuv's
// thread pool (the callback form), never on the thread that runs the tick
// loop, and a check compares with timingSafeEqual.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/** Cost parameters for new hashes: N = 2^14, r = 8 (16 MiB of memory), p = 1; about 50 ms of one core. */
export const SCRYPT_PARAMETERS = { N: 16384, r: 8, p: 1 } as const;
export const SALT_BYTES = 16;
export const HASH_BYTES = 32;
/** Hashes from the database with a cost beyond this are refused, so a tampered row cannot stall the server. */
const MAX_COST_N = 1 << 20;

function scryptAsync(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** The scrypt memory a parameter set needs, with headroom (Node's default limit is 32 MiB). */
function maxmemFor(N: number, r: number): number {
  return 256 * N * r;
}

/** A new salted hash of `password`, as a self-describing string. */
export async function hashPassword(password: string): Promise<string> {
  const { N, r, p } = SCRYPT_PARAMETERS;
  const salt = randomBytes(SALT_BYTES);
  const key = await scryptAsync(password, salt, HASH_BYTES, { N, r, p, maxmem: maxmemFor(N, r) });
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/** Whether `password` matches `stored` (a hashPassword string); false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const powerOfTwo = Number.isInteger(N) && N > 1 && N <= MAX_COST_N && (N & (N - 1)) === 0;
  if (!powerOfTwo || !Number.isInteger(r) || r < 1 || r > 32 || !Number.isInteger(p) || p < 1 || p > 16) return false;
  const salt = Buffer.from(parts[4], "base64");
  const expected = Buffer.from(parts[5], "base64");
  if (salt.length === 0 || expected.length === 0) return false;
  const key = await scryptAsync(password, salt, expected.length, { N, r, p, maxmem: maxmemFor(N, r) });
  return timingSafeEqual(key, expected);
}
