// entity_checksum (decision 9): FNV-1a over each EntityPacket datagram of a
// tick from offset 12 (after entity_count and packet_flags) to its end,
// chained in send order. Leaving out tick, count and flags makes the checksum
// depend only on the entries the client sees, so it stays put while nothing
// in view changes and the server may skip unchanged updates (decision 10).
import { FNV_OFFSET, fnv1a } from "./fnv1a.js";
import { ENTITY_HEADER_BYTES } from "./entity.js";

/** Checksum of a tick with no entity bytes, and the starting value for entityChecksumUpdate. */
export const ENTITY_CHECKSUM_START = FNV_OFFSET;

/** Folds one EntityPacket datagram (as sent or received) into a running checksum. */
export function entityChecksumUpdate(hash: number, datagram: Uint8Array): number {
  return fnv1a(datagram, ENTITY_HEADER_BYTES, datagram.length, hash);
}

/**
 * Folds bytes[start..end) of entries into a running checksum. The checksum
 * covers every datagram after its 12-byte header, so folding a tick's entries
 * in order gives the same value as folding its datagrams: a sender can decide
 * whether anything changed before it assembles a single datagram.
 */
export function entityChecksumEntries(hash: number, bytes: Uint8Array, start: number, end: number): number {
  return fnv1a(bytes, start, end, hash);
}

/** Checksum of a tick's EntityPacket datagrams in send order. */
export function entityChecksum(datagrams: readonly Uint8Array[]): number {
  let hash = ENTITY_CHECKSUM_START;
  for (const datagram of datagrams) hash = entityChecksumUpdate(hash, datagram);
  return hash;
}
