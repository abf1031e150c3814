// The server's entities and a spatial index over them. Positions change only
// through `move`, which keeps the index in step; view queries touch at most
// 2×2 chunk buckets for a 31×31 square.
import { CHUNK_SIZE } from "../constants.js";
import type { EntityEntry } from "../protocol/entity.js";
import { ActionSlots } from "./schedule.js";

export const ENTITY_TYPE_PLAYER = 0;

/**
 * A server entity: the fields an EntityPacket entry carries (declared once,
 * in the protocol's EntityEntry; `meta` is sent with every update, so kept
 * small) plus what only the server holds.
 */
export interface Entity extends EntityEntry {
  readonly id: number;
  /** Display name (players' nicks); served through EntityDetail, not in every update. */
  name: string;
  readonly slots: ActionSlots;
}

/** What a caller gives `spawn`; the store adds the id and the action slots. */
export type EntityFields = Omit<Entity, "id" | "slots">;

/**
 * How a spawned entity acts: "actions" — through its action slots, filled by ActionPackets (players,
 * and anything a test schedules), executed by the window's moves; "room" — by a room of its own that
 * moves it directly (NPCs, npc/), so the window never looks at it. Static things are either.
 */
export type EntityDriver = "actions" | "room";

/** An entity as the store holds it: with the broadcast's encoding cache (broadcast.ts). */
export interface StoredEntity extends Entity {
  /** This entity's entry was encoded in broadcast round `entryRound`, at `entryOffset`, `entryBytes` long. */
  entryRound: number;
  entryOffset: number;
  entryBytes: number;
}

export class EntityStore {
  private readonly byId = new Map<number, StoredEntity>();
  /** The entities driven by their action slots: what a movement window walks (thousands of NPCs are not). */
  private readonly actorsById = new Map<number, StoredEntity>();
  /** Entities by chunk, each bucket sorted by id so view queries merge instead of sorting. */
  private readonly buckets = new Map<number, StoredEntity[]>();
  private nextId = 1;

  get size(): number {
    return this.byId.size;
  }

  get(id: number): StoredEntity | undefined {
    return this.byId.get(id);
  }

  values(): IterableIterator<StoredEntity> {
    return this.byId.values();
  }

  /** The entities spawned with the "actions" driver, by id: the ones whose slots a window takes. */
  actors(): IterableIterator<StoredEntity> {
    return this.actorsById.values();
  }

  spawn(fields: EntityFields, driver: EntityDriver = "actions"): StoredEntity {
    // Ids are never reused while the process lives, so a client can never
    // confuse a newcomer with someone who left. Every field is written here, in
    // one order, so all entities share one object shape and the per-client
    // loops that read them stay monomorphic.
    const entity: StoredEntity = {
      id: this.nextId++,
      typeId: fields.typeId,
      x: fields.x,
      y: fields.y,
      hp: fields.hp,
      hpMax: fields.hpMax,
      elo: fields.elo,
      flags: fields.flags,
      name: fields.name,
      meta: fields.meta,
      slots: new ActionSlots(),
      entryRound: -1,
      entryOffset: 0,
      entryBytes: 0,
    };
    this.byId.set(entity.id, entity);
    if (driver === "actions") this.actorsById.set(entity.id, entity);
    insertById(this.bucketOf(entity.x, entity.y), entity);
    return entity;
  }

  remove(entity: Entity): void {
    if (!this.byId.delete(entity.id)) return;
    this.actorsById.delete(entity.id);
    this.removeFromBucket(bucketKey(entity.x, entity.y), entity);
  }

  move(entity: Entity, x: number, y: number): void {
    const from = bucketKey(entity.x, entity.y);
    const to = bucketKey(x, y);
    if (from !== to) {
      this.removeFromBucket(from, entity);
      // Every entity in the store came from spawn, which made it a StoredEntity.
      insertById(this.bucketOf(x, y), entity as StoredEntity);
    }
    entity.x = x;
    entity.y = y;
  }

  /**
   * Writes the entities with |ex - x| <= radius and |ey - y| <= radius into
   * `out[0..count)`, sorted by id unless `sorted` is false (the NPCs' wake and
   * perception scans need no order, and skip the sort), and returns the count. `out` is the caller's
   * reusable array: it only ever grows, and entries past the count are stale.
   * (Emptying it with `length = 0` would drop its backing store, so every
   * query would allocate a new one.)
   */
  inSquare(x: number, y: number, radius: number, out: StoredEntity[], sorted = true): number {
    const cx0 = Math.floor((x - radius) / CHUNK_SIZE);
    const cx1 = Math.floor((x + radius) / CHUNK_SIZE);
    const cy0 = Math.floor((y - radius) / CHUNK_SIZE);
    const cy1 = Math.floor((y + radius) / CHUNK_SIZE);
    let count = 0;
    let buckets = 0;
    for (let cy = cy0; cy <= cy1; cy++) {
      for (let cx = cx0; cx <= cx1; cx++) {
        const bucket = this.buckets.get(chunkKey(cx, cy));
        if (bucket === undefined) continue;
        buckets++;
        for (let index = 0; index < bucket.length; index++) {
          const e = bucket[index];
          if (Math.abs(e.x - x) <= radius && Math.abs(e.y - y) <= radius) {
            if (count < out.length) out[count] = e;
            else out.push(e);
            count++;
          }
        }
      }
    }
    // A stable order makes the entity checksum a function of what is in view
    // only. Each bucket is already sorted, so one bucket needs nothing and a
    // few sorted runs need an insertion sort that moves little.
    if (sorted && buckets > 1) sortById(out, count);
    return count;
  }

  private bucketOf(x: number, y: number): StoredEntity[] {
    const key = bucketKey(x, y);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = [];
      this.buckets.set(key, bucket);
    }
    return bucket;
  }

  private removeFromBucket(key: number, entity: Entity): void {
    const bucket = this.buckets.get(key);
    if (bucket === undefined) return;
    const index = bucket.indexOf(entity as StoredEntity);
    if (index >= 0) bucket.splice(index, 1);
    // An empty bucket is dropped, so wandering does not grow the map without bound.
    if (bucket.length === 0) this.buckets.delete(key);
  }
}

/** Inserts `entity` into `bucket` (sorted by id), keeping it sorted. */
function insertById(bucket: StoredEntity[], entity: StoredEntity): void {
  let index = bucket.length;
  bucket.push(entity);
  while (index > 0 && bucket[index - 1].id > entity.id) {
    bucket[index] = bucket[index - 1];
    index--;
  }
  bucket[index] = entity;
}

/** Beyond this many, insertion sort's quadratic worst case loses to Array.sort. */
const INSERTION_SORT_MAX = 32;

/** Sorts `entities[0..count)` by id. */
function sortById(entities: StoredEntity[], count: number): void {
  if (count > INSERTION_SORT_MAX) {
    const sorted = entities.slice(0, count).sort(byId);
    for (let i = 0; i < count; i++) entities[i] = sorted[i];
    return;
  }
  for (let i = 1; i < count; i++) {
    const entity = entities[i];
    const id = entity.id;
    let j = i - 1;
    while (j >= 0 && entities[j].id > id) {
      entities[j + 1] = entities[j];
      j--;
    }
    entities[j + 1] = entity;
  }
}

function byId(a: Entity, b: Entity): number {
  return a.id - b.id;
}

function chunkKey(cx: number, cy: number): number {
  // Chunk coordinates fit in i16 (protocol), so this packing is collision-free.
  return (cx & 0xffff) * 0x10000 + (cy & 0xffff);
}

function bucketKey(x: number, y: number): number {
  return chunkKey(Math.floor(x / CHUNK_SIZE), Math.floor(y / CHUNK_SIZE));
}
