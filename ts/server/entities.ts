// The server's entities and a spatial index over them. Positions change only
// through `move`, which keeps the index in step; view queries touch at most
// 2×2 chunk buckets for a 31×31 square.
import { CHUNK_SIZE } from "../constants.js";
import type { Tlv } from "../protocol/tlv.js";
import { ActionSlots } from "./schedule.js";

export const ENTITY_TYPE_PLAYER = 0;

export interface Entity {
  readonly id: number;
  typeId: number;
  x: number;
  y: number;
  hp: number;
  hpMax: number;
  elo: number;
  flags: number;
  /** Display name (players' nicks); served through EntityDetail, not in every update. */
  name: string;
  /** Inline TLV metadata sent with every entity update (kept small). */
  meta: Tlv[];
  readonly slots: ActionSlots;
}

export class EntityStore {
  private readonly byId = new Map<number, Entity>();
  private readonly buckets = new Map<number, Set<Entity>>();
  private nextId = 1;

  get size(): number {
    return this.byId.size;
  }

  get(id: number): Entity | undefined {
    return this.byId.get(id);
  }

  values(): IterableIterator<Entity> {
    return this.byId.values();
  }

  spawn(fields: Omit<Entity, "id" | "slots">): Entity {
    // Ids are never reused while the process lives, so a client can never
    // confuse a newcomer with someone who left.
    const entity: Entity = { ...fields, id: this.nextId++, slots: new ActionSlots() };
    this.byId.set(entity.id, entity);
    this.bucketOf(entity.x, entity.y, true)!.add(entity);
    return entity;
  }

  remove(entity: Entity): void {
    if (!this.byId.delete(entity.id)) return;
    this.bucketOf(entity.x, entity.y, false)?.delete(entity);
  }

  move(entity: Entity, x: number, y: number): void {
    const from = bucketKey(entity.x, entity.y);
    const to = bucketKey(x, y);
    if (from !== to) {
      this.buckets.get(from)?.delete(entity);
      this.bucketOf(x, y, true)!.add(entity);
    }
    entity.x = x;
    entity.y = y;
  }

  /** Entities with |ex - x| <= radius and |ey - y| <= radius, sorted by id, into `out`. */
  inSquare(x: number, y: number, radius: number, out: Entity[]): Entity[] {
    out.length = 0;
    const cx0 = Math.floor((x - radius) / CHUNK_SIZE);
    const cx1 = Math.floor((x + radius) / CHUNK_SIZE);
    const cy0 = Math.floor((y - radius) / CHUNK_SIZE);
    const cy1 = Math.floor((y + radius) / CHUNK_SIZE);
    for (let cy = cy0; cy <= cy1; cy++) {
      for (let cx = cx0; cx <= cx1; cx++) {
        const bucket = this.buckets.get(chunkKey(cx, cy));
        if (!bucket) continue;
        for (const e of bucket) {
          if (Math.abs(e.x - x) <= radius && Math.abs(e.y - y) <= radius) out.push(e);
        }
      }
    }
    // A stable order makes the entity checksum a function of what is in view only.
    out.sort((a, b) => a.id - b.id);
    return out;
  }

  private bucketOf(x: number, y: number, create: boolean): Set<Entity> | undefined {
    const key = bucketKey(x, y);
    let bucket = this.buckets.get(key);
    if (!bucket && create) {
      bucket = new Set();
      this.buckets.set(key, bucket);
    }
    return bucket;
  }
}

function chunkKey(cx: number, cy: number): number {
  // Chunk coordinates fit in i16 (protocol), so this packing is collision-free.
  return (cx & 0xffff) * 0x10000 + (cy & 0xffff);
}

function bucketKey(x: number, y: number): number {
  return chunkKey(Math.floor(x / CHUNK_SIZE), Math.floor(y / CHUNK_SIZE));
}
