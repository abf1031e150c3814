// What a recording checks a replay against (docs/recording.md § Digests): at the end of every tick a
// digest of the world in DIGEST_PARTS parts — every entity's fields (the xor of each entity's hash),
// every chunk's version (the tiles), the sessions in play, the clock and weather — FNV-1a over 32-bit words; and every few seconds
// a checkpoint of every entity's fields and the items' census, from which a divergence is named to the
// entity and field. The parts say which side of the world differs first; the checkpoint says where.
import type { EntityStore, StoredEntity } from "../entities/entities.js";
import { ByteReader, ByteWriter } from "./bytes.js";

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over 32-bit words: one xor and one multiply per word (not per byte: the digest runs every tick). */
function mix(hash: number, word: number): number {
  return Math.imul(hash ^ word, FNV_PRIME);
}

function mixText(hash: number, text: string): number {
  let h = mix(hash, text.length);
  for (let index = 0; index < text.length; index++) h = mix(h, text.charCodeAt(index));
  return h;
}

/** murmur3's finalizer: spreads an entity's hash over all 32 bits before it is xor-ed into the sum. */
function spread(hash: number): number {
  let h = hash;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A number standing for an entity's meta TLVs (their kinds and plain values). */
function metaWord(entity: StoredEntity): number {
  let h = FNV_OFFSET;
  for (const tlv of entity.meta) {
    h = mixText(h, tlv.kind);
    if ("value" in tlv) h = typeof tlv.value === "number" ? mix(h, tlv.value) : mixText(h, tlv.value);
    else if (tlv.kind === "item") h = mix(mix(h, tlv.itemId), tlv.count);
  }
  return h >>> 0;
}

/** One entity's fields, hashed. */
function entityHash(entity: StoredEntity): number {
  let h = mix(FNV_OFFSET, entity.id);
  h = mix(h, entity.typeId);
  h = mix(h, entity.x);
  h = mix(h, entity.y);
  h = mix(h, entity.hp);
  h = mix(h, entity.hpMax);
  h = mix(h, entity.elo);
  h = mix(h, entity.flags);
  h = mix(h, entity.xp);
  if (entity.meta.length > 0) h = mix(h, metaWord(entity));
  return spread(h);
}

/** What the digest reads of the world. */
export interface DigestSources {
  /** The entities by slot, and each slot's change count (EntityStore). */
  readonly entities: Pick<EntityStore, "slotCount" | "inSlot" | "changeCounts">;
  /** Every chunk's version (World.chunkVersions): a tile set anywhere bumps its chunk's. */
  readonly chunkVersions: Uint16Array;
  /** The sessions in play: their player entities, in the registry's order. */
  readonly sessions: Iterable<{ readonly entity: StoredEntity }>;
  readonly tick: number;
  readonly weather: string;
}

/** The fields of an entity a digest and a checkpoint cover, in this order. */
export const ENTITY_FIELDS = ["typeId", "x", "y", "hp", "hpMax", "elo", "flags", "xp", "meta"] as const;

/**
 * The world's digest, kept from tick to tick: the entities' part is the xor of every entity's hash, and
 * an entity is hashed again only when its slot's change count moved (EntityStore counts every write to a
 * wire field and every move) — a tick with 20,000 creatures costs a pass over the counts, not 20,000
 * hashes. A write the store does not count (xp alone, a name) shows at the next checkpoint, which reads
 * every field.
 */
export class WorldDigest {
  private seenIds = new Int32Array(1024);
  private seenCounts = new Int32Array(1024);
  private hashes = new Uint32Array(1024);
  private entitySum = 0;

  /** Writes the digest of the world as it is now into `out` (DIGEST_PARTS words). */
  digest(sources: DigestSources, out: Uint32Array): void {
    const store = sources.entities;
    const slots = store.slotCount;
    if (slots > this.seenIds.length) this.grow(slots);
    const counts = store.changeCounts;
    const seenIds = this.seenIds;
    const seenCounts = this.seenCounts;
    const hashes = this.hashes;
    let sum = this.entitySum;
    for (let slot = 0; slot < slots; slot++) {
      const entity = store.inSlot(slot);
      const id = entity === undefined ? 0 : entity.id;
      if (id === seenIds[slot] && (id === 0 || counts[slot] === seenCounts[slot])) continue;
      sum ^= hashes[slot];
      const hash = entity === undefined ? 0 : entityHash(entity);
      sum ^= hash;
      hashes[slot] = hash;
      seenIds[slot] = id;
      seenCounts[slot] = counts[slot];
    }
    this.entitySum = sum;
    let tiles = FNV_OFFSET;
    const versions = sources.chunkVersions;
    for (let index = 0; index < versions.length; index++) tiles = mix(tiles, versions[index]);
    let sessions = FNV_OFFSET;
    for (const session of sources.sessions) sessions = mix(sessions, session.entity.id);
    out[0] = sum >>> 0;
    out[1] = tiles >>> 0;
    out[2] = sessions >>> 0;
    out[3] = mixText(mix(FNV_OFFSET, sources.tick), sources.weather) >>> 0;
  }

  private grow(slots: number): void {
    let size = this.seenIds.length;
    while (size < slots) size *= 2;
    const ids = new Int32Array(size);
    ids.set(this.seenIds);
    const counts = new Int32Array(size);
    counts.set(this.seenCounts);
    const hashes = new Uint32Array(size);
    hashes.set(this.hashes);
    this.seenIds = ids;
    this.seenCounts = counts;
    this.hashes = hashes;
  }
}

/** One entity as a checkpoint holds it. */
export interface EntityRow {
  readonly id: number;
  readonly name: string;
  readonly fields: readonly number[];
}

export interface Checkpoint {
  readonly entities: EntityRow[];
  /** Every item in the world by id: how many (ItemRoom.census). */
  readonly items: Map<number, number>;
}

/** Encodes a checkpoint: every entity's fields (ENTITY_FIELDS) and name, then the items' census by id. */
export function encodeCheckpoint(entities: Iterable<StoredEntity>, census: ReadonlyMap<number, number>): Uint8Array {
  const out = new ByteWriter(64 * 1024);
  let count = 0;
  const rows = new ByteWriter(64 * 1024);
  for (const entity of entities) {
    count++;
    rows.varint(entity.id);
    rows.text(entity.name);
    rows.varint(entity.typeId);
    rows.svarint(entity.x);
    rows.svarint(entity.y);
    rows.svarint(entity.hp);
    rows.svarint(entity.hpMax);
    rows.svarint(entity.elo);
    rows.varint(entity.flags);
    rows.svarint(entity.xp);
    rows.u32(metaWord(entity));
  }
  out.varint(count);
  out.reserve(rows.length);
  out.bytes.set(rows.view0(), out.length);
  out.length += rows.length;
  const items = [...census].sort((a, b) => a[0] - b[0]);
  out.varint(items.length);
  for (const [itemId, itemCount] of items) {
    out.varint(itemId);
    out.varint(itemCount);
  }
  return out.view0().slice();
}

export function decodeCheckpoint(bytes: Uint8Array): Checkpoint {
  const reader = new ByteReader(bytes, 0, bytes.length, "a checkpoint");
  const count = reader.varint();
  const entities: EntityRow[] = [];
  for (let index = 0; index < count; index++) {
    const id = reader.varint();
    const name = reader.text();
    const fields = [
      reader.varint(),
      reader.svarint(),
      reader.svarint(),
      reader.svarint(),
      reader.svarint(),
      reader.svarint(),
      reader.varint(),
      reader.svarint(),
      reader.u32(),
    ];
    entities.push({ id, name, fields });
  }
  const items = new Map<number, number>();
  const itemCount = reader.varint();
  for (let index = 0; index < itemCount; index++) items.set(reader.varint(), reader.varint());
  return { entities, items };
}

/**
 * What differs between the recorded checkpoint and the replay's, said as a person reads it: the first
 * few entities (by id) with the field and both values, entities only one side has, items whose counts
 * differ. Empty when they agree.
 */
export function describeDifferences(recorded: Checkpoint, replayed: Checkpoint, limit = 8): string[] {
  const lines: string[] = [];
  const mine = new Map(replayed.entities.map((row) => [row.id, row]));
  const theirs = new Map(recorded.entities.map((row) => [row.id, row]));
  const label = (row: EntityRow): string => `entity ${row.id}${row.name === "" ? "" : ` (${row.name})`}`;
  for (const row of recorded.entities) {
    if (lines.length >= limit) break;
    const other = mine.get(row.id);
    if (other === undefined) {
      lines.push(`${label(row)} is in the recording, not in the replay`);
      continue;
    }
    for (let field = 0; field < ENTITY_FIELDS.length; field++) {
      if (row.fields[field] !== other.fields[field]) {
        lines.push(
          `${label(row)}: ${ENTITY_FIELDS[field]} recorded ${row.fields[field]}, replayed ${other.fields[field]}`,
        );
      }
    }
    if (row.name !== other.name) lines.push(`${label(row)}: name recorded "${row.name}", replayed "${other.name}"`);
  }
  for (const row of replayed.entities) {
    if (lines.length >= limit) break;
    if (!theirs.has(row.id)) lines.push(`${label(row)} is in the replay, not in the recording`);
  }
  const itemIds = new Set([...recorded.items.keys(), ...replayed.items.keys()]);
  for (const itemId of [...itemIds].sort((a, b) => a - b)) {
    if (lines.length >= limit) break;
    const a = recorded.items.get(itemId) ?? 0;
    const b = replayed.items.get(itemId) ?? 0;
    if (a !== b) lines.push(`item ${itemId}: ${a} in the world recorded, ${b} replayed`);
  }
  return lines;
}
