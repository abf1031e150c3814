// EntityPacket (type 3, at most 1200 bytes, server → client): the entities in
// a client's view for one tick, split over as many datagrams as needed
// (docs/protocol.md § EntityPacket, decisions 6 and 9).
import { readI16, readU16, readU32, writeU16, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure, isIntegerIn, outOfRange } from "./errors.js";
import { HEADER_BYTES, MAX_DATAGRAM_BYTES, PACKET_ENTITY, encodeHeader, readClientType } from "./header.js";
import { count, flagsField, int, items, layout, variable } from "./layout.js";
import { type Tlv, decodeTlvs, tlvsByteLength, validateTlvs, writeTlvs } from "./tlv.js";

/** Header, tick, entity_count, packet_flags: where the entries start. */
export const ENTITY_HEADER_BYTES = 12;
/** Fixed part of one entry; meta_len bytes of TLVs follow. */
export const ENTITY_ENTRY_BYTES = 18;
/** ⌊(1200 − 12) / 18⌋: entries without metadata per datagram (decision 6). */
export const ENTITIES_PER_DATAGRAM_MAX = Math.floor((MAX_DATAGRAM_BYTES - ENTITY_HEADER_BYTES) / ENTITY_ENTRY_BYTES);
/** meta_len is a u8. */
export const ENTITY_META_MAX_BYTES = 255;

/** packet_flags bit 0: more EntityPackets follow for this tick. Other bits are reserved and must be 0. */
export const PACKET_FLAG_MORE = 0x01;
/** entity_flags bits; bits 3..7 are reserved: sent as 0, ignored on receipt. */
export const ENTITY_FLAG_STATIC = 0x01;
export const ENTITY_FLAG_HOSTILE = 0x02;
export const ENTITY_FLAG_INTERACTABLE = 0x04;
/** entity_flags bit names, bit i at index i (the packet tool prints and parses these). */
export const ENTITY_FLAG_NAMES = [
  "is_static",
  "is_hostile",
  "is_interactable",
  "bit3",
  "bit4",
  "bit5",
  "bit6",
  "bit7",
] as const;
/** packet_flags bit names. */
export const PACKET_FLAG_NAMES = ["more"] as const;

/** docs/protocol.md § EntityEntry; offsets are relative to the entry. */
export const ENTITY_ENTRY_LAYOUT = layout("entity_entry", 0, ENTITY_ENTRY_BYTES, [
  int("id", "u32", "id"),
  int("type_id", "u16", "typeId"),
  int("pos_x", "i16", "x"),
  int("pos_y", "i16", "y"),
  int("hp", "u16", "hp"),
  int("hp_max", "u16", "hpMax"),
  int("elo", "u16", "elo"),
  flagsField("entity_flags", "flags", ENTITY_FLAG_NAMES),
  count("meta_len", 1, "meta"),
  variable("meta", "tlvs", "meta"),
]);
/** docs/protocol.md § EntityPacket. */
export const ENTITY_LAYOUT = layout("entity", HEADER_BYTES, ENTITY_HEADER_BYTES, [
  int("tick", "u32", "tick"),
  count("entity_count", 1, "entities"),
  flagsField("packet_flags", "more", PACKET_FLAG_NAMES),
  items("entities", "entities", ENTITY_ENTRY_LAYOUT),
]);
const TICK_AT = ENTITY_LAYOUT.offset.tick;
const COUNT_AT = ENTITY_LAYOUT.offset.entity_count;
const FLAGS_AT = ENTITY_LAYOUT.offset.packet_flags;
const ID_AT = ENTITY_ENTRY_LAYOUT.offset.id;
const TYPE_AT = ENTITY_ENTRY_LAYOUT.offset.type_id;
const X_AT = ENTITY_ENTRY_LAYOUT.offset.pos_x;
const Y_AT = ENTITY_ENTRY_LAYOUT.offset.pos_y;
const HP_AT = ENTITY_ENTRY_LAYOUT.offset.hp;
const HP_MAX_AT = ENTITY_ENTRY_LAYOUT.offset.hp_max;
const ELO_AT = ENTITY_ENTRY_LAYOUT.offset.elo;
const ENTITY_FLAGS_AT = ENTITY_ENTRY_LAYOUT.offset.entity_flags;
const META_LEN_AT = ENTITY_ENTRY_LAYOUT.offset.meta_len;

export interface EntityEntry {
  id: number;
  typeId: number;
  /** Absolute world tile coordinates (i16). */
  x: number;
  y: number;
  hp: number;
  hpMax: number;
  elo: number;
  /** entity_flags as a raw u8 (ENTITY_FLAG_*). */
  flags: number;
  /** Inline TLVs, in wire order; encoded size at most 255 bytes. */
  meta: Tlv[];
}

/** Plain form: what encoders take and decodePacketPlain returns. */
export interface EntityPacket {
  type: "entity";
  clientType: number;
  tick: number;
  /** packet_flags bit 0. */
  more: boolean;
  entities: EntityEntry[];
}

/** Zero-copy form returned by decodePacket; read the entries with an EntityCursor. */
export interface EntityView {
  type: "entity";
  clientType: number;
  tick: number;
  more: boolean;
  entityCount: number;
  /** The whole datagram; entries start at ENTITY_HEADER_BYTES. */
  bytes: Uint8Array;
}

function checkEntry(entry: EntityEntry, index: number): void {
  if (!isIntegerIn(entry.id, 0, 0xffffffff)) outOfRange(`entities[${index}].id`, entry.id, 0, 0xffffffff);
  if (!isIntegerIn(entry.typeId, 0, 0xffff)) outOfRange(`entities[${index}].type_id`, entry.typeId, 0, 0xffff);
  if (!isIntegerIn(entry.x, -0x8000, 0x7fff)) outOfRange(`entities[${index}].pos_x`, entry.x, -0x8000, 0x7fff);
  if (!isIntegerIn(entry.y, -0x8000, 0x7fff)) outOfRange(`entities[${index}].pos_y`, entry.y, -0x8000, 0x7fff);
  if (!isIntegerIn(entry.hp, 0, 0xffff)) outOfRange(`entities[${index}].hp`, entry.hp, 0, 0xffff);
  if (!isIntegerIn(entry.hpMax, 0, 0xffff)) outOfRange(`entities[${index}].hp_max`, entry.hpMax, 0, 0xffff);
  if (!isIntegerIn(entry.elo, 0, 0xffff)) outOfRange(`entities[${index}].elo`, entry.elo, 0, 0xffff);
  if (!isIntegerIn(entry.flags, 0, 0xff)) outOfRange(`entities[${index}].entity_flags`, entry.flags, 0, 0xff);
}

/** Encoded size of one entry (18 + meta); throws EncodeError when the meta is invalid or over 255 bytes. */
export function entityEntryBytes(entry: EntityEntry): number {
  const metaBytes = tlvsByteLength(entry.meta);
  if (metaBytes > ENTITY_META_MAX_BYTES) {
    throw new EncodeError(
      "bad_tlv",
      `entity ${entry.id} has ${metaBytes} bytes of meta, limit ${ENTITY_META_MAX_BYTES}`,
    );
  }
  return ENTITY_ENTRY_BYTES + metaBytes;
}

/**
 * End index of the batch starting at `start`: entries[start..end) is the
 * longest run that fits one datagram. Always takes at least one entry (an
 * entry is at most 273 bytes), so a loop over batches makes progress.
 */
export function entityBatchEnd(entries: readonly EntityEntry[], start: number): number {
  let size = ENTITY_HEADER_BYTES;
  let end = start;
  while (end < entries.length && end - start < ENTITIES_PER_DATAGRAM_MAX) {
    const entryBytes = entityEntryBytes(entries[end]);
    if (size + entryBytes > MAX_DATAGRAM_BYTES) break;
    size += entryBytes;
    end++;
  }
  return end;
}

/**
 * Writes one EntityPacket holding entries[start..end) at `offset`; returns its
 * length. Throws EncodeError on bad input, or if the range does not fit one
 * datagram (use entityBatchEnd to choose `end`).
 */
export function encodeEntityRange(
  clientType: number,
  tick: number,
  entries: readonly EntityEntry[],
  start: number,
  end: number,
  more: boolean,
  out: Uint8Array,
  offset = 0,
): number {
  checkU32("tick", tick);
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end > entries.length) {
    throw new EncodeError("out_of_range", `entity range [${start}, ${end}) is not within ${entries.length} entries`);
  }
  if (end - start > ENTITIES_PER_DATAGRAM_MAX) {
    throw new EncodeError("oversize", `${end - start} entities exceed ${ENTITIES_PER_DATAGRAM_MAX} per datagram`);
  }
  let size = ENTITY_HEADER_BYTES;
  for (let index = start; index < end; index++) {
    checkEntry(entries[index], index);
    size += entityEntryBytes(entries[index]);
  }
  if (size > MAX_DATAGRAM_BYTES) {
    throw new EncodeError("oversize", `entities [${start}, ${end}) need ${size} bytes, limit ${MAX_DATAGRAM_BYTES}`);
  }
  checkRoom(out, offset, size);
  writeEntityHeader(clientType, tick, end - start, more, out, offset);
  let at = offset + ENTITY_HEADER_BYTES;
  for (let index = start; index < end; index++) at += writeEntry(entries[index], out, at);
  return size;
}

/**
 * Writes the 12-byte EntityPacket header for `count` entries at `offset`;
 * returns ENTITY_HEADER_BYTES. With encodeEntityEntry, the allocation-free way
 * to assemble EntityPackets from entries encoded earlier (the server encodes
 * each entity once per tick and copies the bytes into every viewer's packets).
 * Throws EncodeError on bad input.
 */
export function encodeEntityHeader(
  clientType: number,
  tick: number,
  count: number,
  more: boolean,
  out: Uint8Array,
  offset: number,
): number {
  checkU32("tick", tick);
  if (!isIntegerIn(count, 0, ENTITIES_PER_DATAGRAM_MAX))
    outOfRange("entity_count", count, 0, ENTITIES_PER_DATAGRAM_MAX);
  checkRoom(out, offset, ENTITY_HEADER_BYTES);
  writeEntityHeader(clientType, tick, count, more, out, offset);
  return ENTITY_HEADER_BYTES;
}

/**
 * Checks one entry as encodeEntityRange does and writes it at `offset`;
 * returns its length (18 + meta). Throws EncodeError on bad input (naming it
 * entities[index]) or when it does not fit `out`.
 */
export function encodeEntityEntry(entry: EntityEntry, out: Uint8Array, offset: number, index = 0): number {
  checkEntry(entry, index);
  const size = entityEntryBytes(entry);
  checkRoom(out, offset, size);
  return writeEntry(entry, out, offset);
}

function writeEntityHeader(
  clientType: number,
  tick: number,
  count: number,
  more: boolean,
  out: Uint8Array,
  offset: number,
): void {
  encodeHeader(PACKET_ENTITY, clientType, out, offset);
  writeU32(out, offset + TICK_AT, tick);
  out[offset + COUNT_AT] = count;
  out[offset + FLAGS_AT] = more ? PACKET_FLAG_MORE : 0;
}

/**
 * An entry's meta as its TLV block, checked as encodeEntityEntry checks it (EncodeError when invalid
 * or over 255 bytes). A sender whose entities keep their meta for many updates encodes it once here
 * and writes each update with encodeEntityEntryWithMeta.
 */
export function encodeEntityMeta(entry: EntityEntry): Uint8Array {
  const bytes = new Uint8Array(entityEntryBytes(entry) - ENTITY_ENTRY_BYTES);
  writeTlvs(entry.meta, bytes, 0);
  return bytes;
}

/**
 * encodeEntityEntry with the meta already encoded (`meta` from encodeEntityMeta of this entry's
 * meta): the fixed fields are checked and written, the meta copied. Returns the entry's length.
 */
export function encodeEntityEntryWithMeta(
  entry: EntityEntry,
  meta: Uint8Array,
  out: Uint8Array,
  offset: number,
  index = 0,
): number {
  checkEntry(entry, index);
  const size = ENTITY_ENTRY_BYTES + meta.length;
  checkRoom(out, offset, size);
  writeFixed(entry, out, offset);
  // Most metas are a few bytes or none (every creature's): a loop beats TypedArray#set's call there.
  const metaAt = offset + ENTITY_ENTRY_BYTES;
  if (meta.length <= 32) for (let byte = 0; byte < meta.length; byte++) out[metaAt + byte] = meta[byte];
  else out.set(meta, metaAt);
  out[offset + META_LEN_AT] = meta.length;
  return size;
}

/** Writes an entry that checkEntry and entityEntryBytes accepted; returns its length. */
function writeEntry(entry: EntityEntry, out: Uint8Array, at: number): number {
  writeFixed(entry, out, at);
  const metaBytes = writeTlvs(entry.meta, out, at + ENTITY_ENTRY_BYTES);
  out[at + META_LEN_AT] = metaBytes;
  return ENTITY_ENTRY_BYTES + metaBytes;
}

/** The entry's fields before meta_len. */
function writeFixed(entry: EntityEntry, out: Uint8Array, at: number): void {
  writeU32(out, at + ID_AT, entry.id);
  writeU16(out, at + TYPE_AT, entry.typeId);
  writeU16(out, at + X_AT, entry.x);
  writeU16(out, at + Y_AT, entry.y);
  writeU16(out, at + HP_AT, entry.hp);
  writeU16(out, at + HP_MAX_AT, entry.hpMax);
  writeU16(out, at + ELO_AT, entry.elo);
  out[at + ENTITY_FLAGS_AT] = entry.flags;
}

/** Writes `packet` as one datagram at `offset`; returns its length. Throws EncodeError if it does not fit. */
export function encodeEntity(packet: EntityPacket, out: Uint8Array, offset = 0): number {
  const entities = packet.entities;
  return encodeEntityRange(packet.clientType, packet.tick, entities, 0, entities.length, packet.more, out, offset);
}

/**
 * Encodes any number of entries as the tick's EntityPackets, each as full as
 * fits, `more` set on all but the last. Zero entries give one empty packet.
 * Allocates one array per datagram; hot paths loop over entityBatchEnd and
 * encodeEntityRange into a reused buffer instead.
 */
export function splitEntities(entries: readonly EntityEntry[], tick: number, clientType = 0): Uint8Array[] {
  const datagrams: Uint8Array[] = [];
  const buffer = new Uint8Array(MAX_DATAGRAM_BYTES);
  let start = 0;
  do {
    const end = entityBatchEnd(entries, start);
    const size = encodeEntityRange(clientType, tick, entries, start, end, end < entries.length, buffer, 0);
    datagrams.push(buffer.slice(0, size));
    start = end;
  } while (start < entries.length);
  return datagrams;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 3. */
export function decodeEntityBody(bytes: Uint8Array): DecodeResult<EntityView> {
  if (bytes.length < ENTITY_HEADER_BYTES) {
    return failure("truncated", bytes.length, `EntityPacket needs at least ${ENTITY_HEADER_BYTES} bytes`);
  }
  const count = bytes[COUNT_AT];
  if (count > ENTITIES_PER_DATAGRAM_MAX) {
    return failure("too_many_entities", COUNT_AT, `entity_count ${count} exceeds ${ENTITIES_PER_DATAGRAM_MAX}`);
  }
  const flags = bytes[FLAGS_AT];
  if ((flags & ~PACKET_FLAG_MORE) !== 0) {
    return failure("reserved_flags", FLAGS_AT, `packet_flags 0x${flags.toString(16)} sets reserved bits`);
  }
  let at = ENTITY_HEADER_BYTES;
  for (let index = 0; index < count; index++) {
    if (at + ENTITY_ENTRY_BYTES > bytes.length) {
      return failure("truncated", bytes.length, `entity ${index} of ${count} is cut off`);
    }
    const metaStart = at + ENTITY_ENTRY_BYTES;
    const metaLength = bytes[at + META_LEN_AT];
    const metaEnd = metaStart + metaLength;
    if (metaEnd > bytes.length) {
      return failure(
        "length_overrun",
        at + META_LEN_AT,
        `entity ${index} meta_len ${metaLength} runs past the datagram`,
      );
    }
    const error = validateTlvs(bytes, metaStart, metaEnd);
    if (error !== null) return { ok: false, error };
    at = metaEnd;
  }
  if (at < bytes.length) return failure("trailing_bytes", at, `${bytes.length - at} bytes after ${count} entities`);
  return {
    ok: true,
    packet: {
      type: "entity",
      clientType: readClientType(bytes),
      tick: readU32(bytes, TICK_AT),
      more: flags !== 0,
      entityCount: count,
      bytes,
    },
  };
}

/**
 * Walks the entries of a decoded EntityView without allocating: call reset,
 * then read the fields after each next() that returns true. Meta is
 * bytes[metaStart..metaEnd), readable with readTlvU16 / readTlvName.
 */
export class EntityCursor {
  bytes: Uint8Array = new Uint8Array(0);
  id = 0;
  typeId = 0;
  x = 0;
  y = 0;
  hp = 0;
  hpMax = 0;
  elo = 0;
  flags = 0;
  metaStart = 0;
  metaEnd = 0;
  private remaining = 0;
  private nextOffset = 0;

  reset(view: EntityView): this {
    this.bytes = view.bytes;
    this.remaining = view.entityCount;
    this.nextOffset = ENTITY_HEADER_BYTES;
    return this;
  }

  next(): boolean {
    if (this.remaining === 0) return false;
    this.remaining--;
    const bytes = this.bytes;
    const at = this.nextOffset;
    this.id = readU32(bytes, at + ID_AT);
    this.typeId = readU16(bytes, at + TYPE_AT);
    this.x = readI16(bytes, at + X_AT);
    this.y = readI16(bytes, at + Y_AT);
    this.hp = readU16(bytes, at + HP_AT);
    this.hpMax = readU16(bytes, at + HP_MAX_AT);
    this.elo = readU16(bytes, at + ELO_AT);
    this.flags = bytes[at + ENTITY_FLAGS_AT];
    this.metaStart = at + ENTITY_ENTRY_BYTES;
    this.metaEnd = this.metaStart + bytes[at + META_LEN_AT];
    this.nextOffset = this.metaEnd;
    return true;
  }
}

/** Plain form of a decoded EntityPacket (entries and TLVs copied out). */
export function entityViewToPacket(view: EntityView): EntityPacket {
  const entities: EntityEntry[] = [];
  const cursor = new EntityCursor().reset(view);
  while (cursor.next()) {
    entities.push({
      id: cursor.id,
      typeId: cursor.typeId,
      x: cursor.x,
      y: cursor.y,
      hp: cursor.hp,
      hpMax: cursor.hpMax,
      elo: cursor.elo,
      flags: cursor.flags,
      meta: decodeTlvs(view.bytes, cursor.metaStart, cursor.metaEnd),
    });
  }
  return { type: "entity", clientType: view.clientType, tick: view.tick, more: view.more, entities };
}
