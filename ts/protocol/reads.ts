// What a client says it reads beyond the seed's packets (docs/protocol.md § 19.1). The seed's client
// decodes packet types 0–7 and drops the rest, which is harmless for every addition but one: a chunk of
// more than 64 tile ids exists only as ChunkWidePackets, so it never completed for such a client. A
// client therefore names, in its join request (POST /api/guest, /api/register, /api/login: `reads`),
// the additions it reads that change what the server sends it; a client that names none is sent the
// seed's form. HTTP, not a datagram: the join answers before any datagram flows, so the server knows
// before the first chunk, and nothing is lost on the way.
/** The client reads ChunkWidePackets (type 20): a chunk of more than 64 ids comes whole, not narrowed (§ 7.2). */
export const READS_CHUNK_WIDE = 1;

/** The names a join request's `reads` may carry, and their bits. */
const READ_NAMES: ReadonlyMap<string, number> = new Map([["chunk_wide", READS_CHUNK_WIDE]]);

/** What every client of this project reads: what it announces when it joins. */
export const CLIENT_READS: readonly string[] = [...READ_NAMES.keys()];

/** The most names a `reads` list may hold, and the longest name: a request is small. */
const MAX_READS = 32;
const MAX_READ_NAME = 40;

/**
 * The bits of a join request's `reads` (absent: none — the seed's client). Names this server does not
 * know are ignored (a newer client); anything but a short list of short strings is refused with the
 * reason, as a RangeError.
 */
export function readsOf(value: unknown): number {
  if (value === undefined) return 0;
  if (!Array.isArray(value) || value.length > MAX_READS) {
    throw new RangeError(`"reads" must be a list of at most ${MAX_READS} names, such as ["chunk_wide"]`);
  }
  let bits = 0;
  for (const name of value) {
    if (typeof name !== "string" || name.length === 0 || name.length > MAX_READ_NAME) {
      throw new RangeError(`"reads" names are strings of 1 to ${MAX_READ_NAME} characters`);
    }
    bits |= READ_NAMES.get(name) ?? 0;
  }
  return bits;
}

/** The names of `bits`, as a join answer echoes what the server will honour. */
export function readNames(bits: number): string[] {
  return [...READ_NAMES].filter(([, bit]) => (bits & bit) !== 0).map(([name]) => name);
}
