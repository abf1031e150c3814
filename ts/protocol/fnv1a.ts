// FNV-1a 32-bit in plain TypeScript: the production kernel of the entity
// checksum (entity-checksum.ts), which the server folds over every in-view
// entity's entry per client per broadcast and the client over every
// EntityPacket. It is JS and not the wasm kernel (assembly/codec) by
// measurement (bench/micro/entity-checksum-kernel.ts, 40 entries of 18–35
// bytes, 2 shared cores): JS 43–45 ns per entry at load 1.7, wasm with the
// entry copied into IO 1.5–1.6× that (one crossing and a copy per entry cost
// more than the hash; the same ratio at load 12). Only with the entries already
// in linear memory does wasm win (0.63–0.66×), and both the broadcast's entry
// slab and a received datagram live in JS memory. The wasm kernel serves data already resident in the
// module (WasmCodec.fnv1aResident); ts/ref/codec.ts names this one the oracle.

/** FNV-1a 32-bit offset basis: the hash of the empty input. */
export const FNV_OFFSET = 0x811c9dc5;
/** FNV-1a 32-bit prime. */
export const FNV_PRIME = 0x01000193;

/** Throws RangeError unless [start, end) is an integer range inside bytes. */
export function requireRange(bytes: Uint8Array, start: number, end: number): void {
  if (!(Number.isInteger(start) && Number.isInteger(end) && 0 <= start && start <= end && end <= bytes.length)) {
    throw new RangeError(`byte range [${start}, ${end}) is not inside 0..${bytes.length}`);
  }
}

/**
 * FNV-1a 32-bit over bytes[start..end), continuing from `hash` (default: the
 * offset basis), so several buffers can be hashed as one stream. Returns a u32.
 * Throws RangeError unless 0 <= start <= end <= bytes.length (integers).
 */
export function fnv1a(bytes: Uint8Array, start: number, end: number, hash: number = FNV_OFFSET): number {
  requireRange(bytes, start, end);
  let h = hash | 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], FNV_PRIME);
  return h >>> 0;
}
