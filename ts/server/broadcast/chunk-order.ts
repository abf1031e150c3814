// The order of a tick's broadcasts: by the player's chunk (broadcast.ts reads the same buckets and
// entities for players in one chunk, whose views overlap almost whole).
import { CHUNK_SIZE } from "../../constants.js";
import type { Session } from "../sessions/session.js";

/**
 * Orders sessions by their player's chunk, row by row, so that one broadcast after another reads the
 * same few buckets and entities while they are still in the CPU's caches: views of players in one
 * chunk overlap almost whole. (In the order sessions joined, each view starts cold.) The keys pack
 * chunk and index into one number, sorted as a typed array (a numeric sort, no comparator calls).
 */
export class ChunkOrder {
  private keys = new Float64Array(1024);
  private copy: Session[] = [];

  /** Sorts `sessions[0..count)` in place. */
  sort(sessions: Session[], count: number): void {
    if (count < 2 || count > 0xffff) return; // the key holds the index in 16 bits
    if (this.keys.length < count) this.keys = new Float64Array(count * 2);
    const keys = this.keys;
    for (let index = 0; index < count; index++) {
      const entity = sessions[index].entity;
      // Positions are i16: chunk coordinates shifted to 0 … 2047 (clamped, so a position out of range
      // cannot make a key negative and its index unreadable).
      const cx = Math.min(CHUNK_KEY_SPAN - 1, Math.max(0, Math.floor((entity.x + 0x8000) / CHUNK_SIZE)));
      const cy = Math.min(CHUNK_KEY_SPAN - 1, Math.max(0, Math.floor((entity.y + 0x8000) / CHUNK_SIZE)));
      keys[index] = (cy * CHUNK_KEY_SPAN + cx) * 65536 + index;
    }
    const sorted = keys.subarray(0, count).sort();
    const copy = this.copy;
    for (let index = 0; index < count; index++) copy[index] = sessions[index];
    for (let index = 0; index < count; index++) sessions[index] = copy[sorted[index] % 65536];
  }
}

/** Chunks per axis of the i16 position range. */
const CHUNK_KEY_SPAN = 0x10000 / CHUNK_SIZE;
