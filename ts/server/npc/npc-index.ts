// Where the NPCs are, by chunk: the wake pass asks it which creatures stand
// near each player. The entity store's own index holds every entity (players,
// signs, creatures) and keeps its buckets sorted by id for the broadcast; this
// one holds creatures only, unsorted, so a wake pass touches nothing but NPCs
// and needs no map lookup per entity found. Removal swaps with the last entry.
import { CHUNK_SIZE } from "../../constants.js";

/** What the index needs of an NPC: its position and the slot the index keeps in it. */
export interface Indexed {
  readonly entity: { readonly x: number; readonly y: number };
  /** The bucket's key and the entry's position in it; -1 when not indexed. */
  indexKey: number;
  indexSlot: number;
}

export class NpcIndex<T extends Indexed> {
  private readonly buckets = new Map<number, T[]>();

  /** Adds `item` at its entity's position. */
  add(item: T): void {
    const key = keyOf(item.entity.x, item.entity.y);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = [];
      this.buckets.set(key, bucket);
    }
    item.indexKey = key;
    item.indexSlot = bucket.length;
    bucket.push(item);
  }

  remove(item: T): void {
    if (item.indexSlot < 0) return;
    const bucket = this.buckets.get(item.indexKey)!;
    const last = bucket.pop()!;
    if (last !== item) {
      bucket[item.indexSlot] = last;
      last.indexSlot = item.indexSlot;
    }
    if (bucket.length === 0) this.buckets.delete(item.indexKey);
    item.indexSlot = -1;
  }

  /** Re-files `item` after its entity moved (only a chunk change costs anything). */
  moved(item: T): void {
    if (keyOf(item.entity.x, item.entity.y) === item.indexKey) return;
    this.remove(item);
    this.add(item);
  }

  /** The items in chunk (cx, cy), if any: the wake pass walks the chunks around each player with it. */
  chunk(cx: number, cy: number): readonly T[] | undefined {
    return this.buckets.get(chunkKey(cx, cy));
  }
}

function chunkKey(cx: number, cy: number): number {
  return (cx & 0xffff) * 0x10000 + (cy & 0xffff);
}

function keyOf(x: number, y: number): number {
  return chunkKey(Math.floor(x / CHUNK_SIZE), Math.floor(y / CHUNK_SIZE));
}
