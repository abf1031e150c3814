// What the HTTP API accepts as an account name and a password. Names are
// login identifiers, so they are plain ASCII (no look-alike letters) and
// unique regardless of case; players show a nick (nick.ts) in game.

export const ACCOUNT_NAME_MIN_CHARS = 3;
export const ACCOUNT_NAME_MAX_CHARS = 20;
export const PASSWORD_MIN_CHARS = 8;
/** Bounds the work of hashing an attacker-chosen string. */
export const PASSWORD_MAX_BYTES = 256;

const NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;

export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The name as given, or why it is refused. */
export function checkAccountName(raw: string): Checked<string> {
  const name = raw.trim();
  if (name.length < ACCOUNT_NAME_MIN_CHARS || name.length > ACCOUNT_NAME_MAX_CHARS) {
    return {
      ok: false,
      reason: `name must be ${ACCOUNT_NAME_MIN_CHARS}-${ACCOUNT_NAME_MAX_CHARS} characters`,
    };
  }
  if (!NAME_PATTERN.test(name)) return { ok: false, reason: "name may contain only A-Z, a-z, 0-9 and _ . -" };
  return { ok: true, value: name };
}

/** The key that must be unique: names differing only in case are the same account. */
export function accountNameKey(name: string): string {
  return name.trim().toLowerCase();
}

/**
 * The password in NFC (so the same characters typed on another system hash
 * the same), or why it is refused.
 */
export function checkPassword(raw: string): Checked<string> {
  const password = raw.normalize("NFC");
  if ([...password].length < PASSWORD_MIN_CHARS) {
    return { ok: false, reason: `password must be at least ${PASSWORD_MIN_CHARS} characters` };
  }
  if (Buffer.byteLength(password, "utf8") > PASSWORD_MAX_BYTES) {
    return { ok: false, reason: `password must be at most ${PASSWORD_MAX_BYTES} bytes of UTF-8` };
  }
  return { ok: true, value: password };
}
