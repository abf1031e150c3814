// Entity deltas (P-21, docs/protocol.md § 8.4): the entity entries of a tick
// written as the difference from a baseline list the client has acknowledged
// (the snapshot-compression scheme of Quake 3 and netcode articles, fitted to
// the seed's entries). An unchanged entity costs nothing, a moved one a few
// bytes; the entity_checksum still covers the full list, so a client that
// applied a delta to the wrong baseline, or lost one, can tell.
//
// Both sides hold lists as EntryList: entries in the seed's EntityEntry wire
// form (18 bytes + meta), back to back, ascending by id — the order the server
// sends and checksums anyway. The server fills reused lists (nothing is
// allocated per broadcast); the client builds a new list per applied delta.
//
// The delta body (docs/protocol.md § 8.4):
//   removed_count ids (varint gaps, ascending), then
//   changed_count entries: varint id gap, u8 mask, then the masked fields in
//   bit order. A gap is the id minus the previous id of the same run (the
//   first from 0), so ids strictly ascend. Fields not in the mask keep the
//   baseline's value; an entity not in the baseline starts from the zero
//   entry (all fields 0, no meta).
import { readI16, readU16, readU32, writeU16, writeU32 } from "./bytes.js";
import { type DecodeError, decodeError } from "./errors.js";
import { ENTITY_CHECKSUM_START, entityChecksumEntries } from "./entity-checksum.js";
import { ENTITY_ENTRY_BYTES, ENTITY_ENTRY_LAYOUT, ENTITY_META_MAX_BYTES } from "./entity.js";
import { validateTlvs } from "./tlv.js";
import { VARINT_MAX_BYTES, readVarint, writeVarint } from "./varint.js";

const TYPE_AT = ENTITY_ENTRY_LAYOUT.offset.type_id;
const X_AT = ENTITY_ENTRY_LAYOUT.offset.pos_x;
const Y_AT = ENTITY_ENTRY_LAYOUT.offset.pos_y;
const HP_AT = ENTITY_ENTRY_LAYOUT.offset.hp;
const HP_MAX_AT = ENTITY_ENTRY_LAYOUT.offset.hp_max;
const ELO_AT = ENTITY_ENTRY_LAYOUT.offset.elo;
const FLAGS_AT = ENTITY_ENTRY_LAYOUT.offset.entity_flags;
const META_LEN_AT = ENTITY_ENTRY_LAYOUT.offset.meta_len;

/** Mask bits of a changed entry, in the order their fields follow it. */
export const DELTA_POS_SMALL = 0x01; // i8 dx, i8 dy from the baseline position
export const DELTA_POS_FULL = 0x02; // i16 pos_x, i16 pos_y
export const DELTA_TYPE = 0x04; // u16 type_id
export const DELTA_HP = 0x08; // u16 hp
export const DELTA_HP_MAX = 0x10; // u16 hp_max
export const DELTA_ELO = 0x20; // u16 elo
export const DELTA_FLAGS = 0x40; // u8 entity_flags
export const DELTA_META = 0x80; // u8 meta_len, then the TLV block
/** Mask bit names for docs and the packet tool, bit i is DELTA_MASK_NAMES[i]. */
export const DELTA_MASK_NAMES = ["pos_small", "pos_full", "type_id", "hp", "hp_max", "elo", "entity_flags", "meta"];

/** Longest LEB128 encoding of a u32. */
/** Most bytes one changed entry can take: gap, mask, pos, 4 u16, flags, meta. */
export const DELTA_ENTRY_MAX_BYTES = VARINT_MAX_BYTES + 1 + 4 + 8 + 1 + 1 + ENTITY_META_MAX_BYTES;

/**
 * A list of entity entries in wire form, ascending by id: entry i is
 * bytes[starts[i]..starts[i + 1]). Reused by the server (clear, then append);
 * grown by doubling, so a list only ever costs what its largest view needed.
 */
export class EntryList {
  bytes: Uint8Array;
  starts: Int32Array;
  /**
   * Entry i's id, read once as it is committed: the delta's merge of two lists compares ids several times
   * an entry, and read from the bytes each was four loads.
   */
  ids: Float64Array;
  count = 0;
  /** The tick this list describes (-1: none). */
  tick = -1;
  /** entity_checksum of the list (FNV-1a over its bytes). */
  checksum = ENTITY_CHECKSUM_START;

  constructor(byteCapacity = 1024, entryCapacity = 64) {
    this.bytes = new Uint8Array(byteCapacity);
    this.starts = new Int32Array(entryCapacity + 1);
    this.ids = new Float64Array(entryCapacity + 1);
  }

  /** Bytes held. */
  get byteLength(): number {
    return this.starts[this.count];
  }

  clear(): void {
    this.count = 0;
    this.starts[0] = 0;
    this.tick = -1;
    this.checksum = ENTITY_CHECKSUM_START;
  }

  /** The id of entry `index`. */
  id(index: number): number {
    return this.ids[index];
  }

  /** Appends an entry given as from[start..end) (its id must exceed the last one's; the caller keeps the order). */
  append(from: Uint8Array, start: number, end: number): void {
    let at = this.reserve(end - start);
    // A loop, not set(subarray): an entry is 18–40 bytes, and the server appends one per entity in view per
    // client per broadcast, so a view object each time would be garbage at that rate.
    const bytes = this.bytes;
    for (let index = start; index < end; index++) bytes[at++] = from[index];
    this.commit(end - start);
  }

  /**
   * Clears the list and makes room for `entries` entries of `byteLength` bytes in all, for a writer that fills
   * `bytes`, `starts` and `ids` itself (entry i at bytes[starts[i]..starts[i + 1]), its id in ids[i]) and then
   * calls filled(entries, checksum): the server's broadcast, which copies and hashes a view in one pass.
   */
  prepare(entries: number, byteLength: number): void {
    this.clear();
    if (byteLength > this.bytes.length) this.bytes = new Uint8Array(Math.max(this.bytes.length * 2, byteLength));
    if (entries + 1 > this.starts.length) {
      const length = Math.max(this.starts.length * 2, entries + 1);
      this.starts = new Int32Array(length);
      this.ids = new Float64Array(length);
    }
  }

  /** Ends a prepare: the first `entries` entries are written, and `checksum` is their FNV-1a. */
  filled(entries: number, checksum: number): void {
    this.count = entries;
    this.checksum = checksum;
  }

  /** Makes room for one more entry of `size` bytes and returns the offset to write it at; commit(size) after. */
  reserve(size: number): number {
    const at = this.starts[this.count];
    if (at + size > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, at + size));
      grown.set(this.bytes.subarray(0, at));
      this.bytes = grown;
    }
    if (this.count + 2 > this.starts.length) {
      const grown = new Int32Array(this.starts.length * 2);
      grown.set(this.starts);
      this.starts = grown;
      const ids = new Float64Array(grown.length);
      ids.set(this.ids);
      this.ids = ids;
    }
    return at;
  }

  commit(size: number): void {
    const at = this.starts[this.count];
    this.ids[this.count] = readU32(this.bytes, at);
    this.starts[this.count + 1] = at + size;
    this.count++;
  }

  /** FNV-1a over the entries in order: what the StatePacket's entity_checksum says for this list. */
  computeChecksum(): number {
    return entityChecksumEntries(ENTITY_CHECKSUM_START, this.bytes, 0, this.byteLength);
  }
}

/** An empty list: the baseline of tick 0 ("I hold nothing"). */
const EMPTY = new EntryList(0, 0);
/** The zero entry a new entity starts from. */
const ZERO_ENTRY = new Uint8Array(ENTITY_ENTRY_BYTES);

/** The empty baseline (read only). */
export function emptyEntryList(): EntryList {
  return EMPTY;
}

/** Counts written by writeEntityDelta; bytes is -1 when the delta did not fit. */
export interface DeltaWritten {
  bytes: number;
  removed: number;
  changed: number;
}

/**
 * Writes the delta from `baseline` to `current` into out[at..limit) and
 * returns its size and counts in `written` (bytes -1 if it does not fit:
 * the caller sends the full entries instead). Allocates nothing.
 */
export function writeEntityDelta(
  baseline: EntryList,
  current: EntryList,
  out: Uint8Array,
  at: number,
  limit: number,
  written: DeltaWritten,
): DeltaWritten {
  const start = at;
  written.bytes = -1;
  written.removed = 0;
  written.changed = 0;
  const baseIds = baseline.ids;
  const curIds = current.ids;
  const baseCount = baseline.count;
  const curCount = current.count;
  // Removed: in the baseline, not in the current list (both ascend by id).
  let previous = 0;
  let b = 0;
  let c = 0;
  while (b < baseCount) {
    const bid = baseIds[b];
    while (c < curCount && curIds[c] < bid) c++;
    if (c >= curCount || curIds[c] !== bid) {
      if (at + VARINT_MAX_BYTES > limit) return written;
      at = writeVarint(out, at, bid - previous);
      previous = bid;
      written.removed++;
    }
    b++;
  }
  // Changed and new: every current entry that differs from its baseline (or the zero entry).
  previous = 0;
  b = 0;
  for (c = 0; c < curCount; c++) {
    const cid = curIds[c];
    while (b < baseCount && baseIds[b] < cid) b++;
    const inBaseline = b < baseCount && baseIds[b] === cid;
    const base = inBaseline ? baseline.bytes : ZERO_ENTRY;
    const baseAt = inBaseline ? baseline.starts[b] : 0;
    const baseEnd = inBaseline ? baseline.starts[b + 1] : ENTITY_ENTRY_BYTES;
    const cur = current.bytes;
    const curAt = current.starts[c];
    const curEnd = current.starts[c + 1];
    const mask = changeMask(base, baseAt, baseEnd, cur, curAt, curEnd);
    // A new entity is listed even if it equals the zero entry: the client must learn it exists.
    if (mask === 0 && inBaseline) continue;
    if (at + DELTA_ENTRY_MAX_BYTES > limit && at + entrySize(mask, cur, curAt) > limit) return written;
    at = writeVarint(out, at, cid - previous);
    previous = cid;
    out[at++] = mask;
    at = writeFields(mask, base, baseAt, cur, curAt, curEnd, out, at);
    written.changed++;
  }
  written.bytes = at - start;
  return written;
}

/** Which fields of the entry at cur[curAt..curEnd) differ from base[baseAt..baseEnd). */
function changeMask(
  base: Uint8Array,
  baseAt: number,
  baseEnd: number,
  cur: Uint8Array,
  curAt: number,
  curEnd: number,
): number {
  // Most entries in a view are as the baseline had them: equal bytes after the id say so in one pass that
  // stops at the first difference (a move differs at pos_x, a few bytes in).
  if (baseEnd - baseAt === curEnd - curAt) {
    let same = true;
    for (let i = TYPE_AT; i < curEnd - curAt; i++) {
      if (base[baseAt + i] !== cur[curAt + i]) {
        same = false;
        break;
      }
    }
    if (same) return 0;
  }
  let mask = 0;
  const bx = readI16(base, baseAt + X_AT);
  const by = readI16(base, baseAt + Y_AT);
  const cx = readI16(cur, curAt + X_AT);
  const cy = readI16(cur, curAt + Y_AT);
  if (bx !== cx || by !== cy) {
    const dx = cx - bx;
    const dy = cy - by;
    mask |= dx >= -128 && dx <= 127 && dy >= -128 && dy <= 127 ? DELTA_POS_SMALL : DELTA_POS_FULL;
  }
  if (readU16(base, baseAt + TYPE_AT) !== readU16(cur, curAt + TYPE_AT)) mask |= DELTA_TYPE;
  if (readU16(base, baseAt + HP_AT) !== readU16(cur, curAt + HP_AT)) mask |= DELTA_HP;
  if (readU16(base, baseAt + HP_MAX_AT) !== readU16(cur, curAt + HP_MAX_AT)) mask |= DELTA_HP_MAX;
  if (readU16(base, baseAt + ELO_AT) !== readU16(cur, curAt + ELO_AT)) mask |= DELTA_ELO;
  if (base[baseAt + FLAGS_AT] !== cur[curAt + FLAGS_AT]) mask |= DELTA_FLAGS;
  const baseMeta = baseEnd - baseAt - ENTITY_ENTRY_BYTES;
  const curMeta = curEnd - curAt - ENTITY_ENTRY_BYTES;
  if (baseMeta !== curMeta) mask |= DELTA_META;
  else {
    for (let i = ENTITY_ENTRY_BYTES; i < ENTITY_ENTRY_BYTES + curMeta; i++) {
      if (base[baseAt + i] !== cur[curAt + i]) {
        mask |= DELTA_META;
        break;
      }
    }
  }
  return mask;
}

/** Most bytes of a changed entry with `mask`: its id gap at the longest, the mask and the fields. */
function entrySize(mask: number, cur: Uint8Array, curAt: number): number {
  const meta = mask & DELTA_META ? 1 + cur[curAt + META_LEN_AT] : 0;
  return VARINT_MAX_BYTES + 1 + fixedFieldBytes(mask) + meta;
}

function writeFields(
  mask: number,
  base: Uint8Array,
  baseAt: number,
  cur: Uint8Array,
  curAt: number,
  curEnd: number,
  out: Uint8Array,
  at: number,
): number {
  if (mask & DELTA_POS_SMALL) {
    out[at++] = readI16(cur, curAt + X_AT) - readI16(base, baseAt + X_AT);
    out[at++] = readI16(cur, curAt + Y_AT) - readI16(base, baseAt + Y_AT);
  }
  if (mask & DELTA_POS_FULL) {
    out[at++] = cur[curAt + X_AT];
    out[at++] = cur[curAt + X_AT + 1];
    out[at++] = cur[curAt + Y_AT];
    out[at++] = cur[curAt + Y_AT + 1];
  }
  if (mask & DELTA_TYPE) at = copy2(cur, curAt + TYPE_AT, out, at);
  if (mask & DELTA_HP) at = copy2(cur, curAt + HP_AT, out, at);
  if (mask & DELTA_HP_MAX) at = copy2(cur, curAt + HP_MAX_AT, out, at);
  if (mask & DELTA_ELO) at = copy2(cur, curAt + ELO_AT, out, at);
  if (mask & DELTA_FLAGS) out[at++] = cur[curAt + FLAGS_AT];
  if (mask & DELTA_META) {
    out[at++] = cur[curAt + META_LEN_AT];
    for (let i = curAt + ENTITY_ENTRY_BYTES; i < curEnd; i++) out[at++] = cur[i];
  }
  return at;
}

function copy2(from: Uint8Array, fromAt: number, out: Uint8Array, at: number): number {
  out[at] = from[fromAt];
  out[at + 1] = from[fromAt + 1];
  return at + 2;
}

/**
 * Checks a delta body bytes[start..end) holding `removed` ids and `changed`
 * entries: varints well formed, ids strictly ascending within each run and
 * within u32, the two position forms not both set, meta a valid TLV block of
 * at most 255 bytes, and nothing left over. Returns null or the first problem.
 */
export function validateEntityDelta(
  bytes: Uint8Array,
  start: number,
  end: number,
  removed: number,
  changed: number,
): DecodeError | null {
  let at = start;
  let id = 0;
  for (let index = 0; index < removed; index++) {
    const read = readVarint(bytes, at, end);
    if (read.next < 0) return decodeError("bad_delta", at, `removed id ${index} is not a well-formed varint`);
    if (index > 0 && read.value === 0) return decodeError("bad_delta", at, `removed ids must ascend (id ${index})`);
    id += read.value;
    if (id > 0xffffffff) return decodeError("bad_delta", at, `removed id ${index} exceeds u32`);
    at = read.next;
  }
  id = 0;
  for (let index = 0; index < changed; index++) {
    const read = readVarint(bytes, at, end);
    if (read.next < 0) return decodeError("bad_delta", at, `changed entry ${index}'s id is not a well-formed varint`);
    if (index > 0 && read.value === 0) return decodeError("bad_delta", at, `changed ids must ascend (entry ${index})`);
    id += read.value;
    if (id > 0xffffffff) return decodeError("bad_delta", at, `changed entry ${index}'s id exceeds u32`);
    at = read.next;
    if (at >= end) return decodeError("truncated", end, `changed entry ${index} has no mask`);
    const mask = bytes[at];
    if ((mask & DELTA_POS_SMALL) !== 0 && (mask & DELTA_POS_FULL) !== 0) {
      return decodeError("bad_delta", at, `changed entry ${index} sets both position forms`);
    }
    at++;
    const fixed = fixedFieldBytes(mask);
    if (at + fixed > end) return decodeError("truncated", end, `changed entry ${index}'s fields are cut off`);
    at += fixed;
    if (mask & DELTA_META) {
      if (at >= end) return decodeError("truncated", end, `changed entry ${index} has no meta_len`);
      const metaEnd = at + 1 + bytes[at];
      if (metaEnd > end) return decodeError("length_overrun", at, `changed entry ${index}'s meta runs past the delta`);
      const error = validateTlvs(bytes, at + 1, metaEnd);
      if (error !== null) return error;
      at = metaEnd;
    }
  }
  if (at !== end) return decodeError("trailing_bytes", at, `${end - at} bytes after the delta's entries`);
  return null;
}

/** Bytes of the fixed-size fields a mask selects (everything but meta). */
function fixedFieldBytes(mask: number): number {
  let size = 0;
  if (mask & DELTA_POS_SMALL) size += 2;
  if (mask & DELTA_POS_FULL) size += 4;
  if (mask & DELTA_TYPE) size += 2;
  if (mask & DELTA_HP) size += 2;
  if (mask & DELTA_HP_MAX) size += 2;
  if (mask & DELTA_ELO) size += 2;
  if (mask & DELTA_FLAGS) size += 1;
  return size;
}

/**
 * Applies a validated delta body (validateEntityDelta) to `baseline` and
 * returns the new list, ascending by id, with its checksum computed; the
 * caller compares that with the packet's entity_checksum. Returns null when
 * the delta does not fit the baseline (a removed id it lacks), which means
 * the sender meant another baseline. With `into`, the result is written
 * there (cleared first; it grows as needed, and must not be `baseline`) and
 * no list is allocated — for a holder that reuses the lists it lets go of.
 */
export function applyEntityDelta(
  baseline: EntryList,
  bytes: Uint8Array,
  start: number,
  end: number,
  removed: number,
  changed: number,
  into?: EntryList,
): EntryList | null {
  if (into === baseline || into === EMPTY) {
    throw new RangeError("applyEntityDelta: the result cannot be written over its baseline or the shared empty list");
  }
  const result = into ?? new EntryList(baseline.byteLength + (end - start) * 4 + 64, baseline.count + changed + 1);
  if (into) into.clear();
  // The removed ids, ascending.
  const removedIds: number[] = [];
  let at = start;
  let id = 0;
  for (let index = 0; index < removed; index++) {
    const read = readVarint(bytes, at, end);
    id += read.value;
    removedIds.push(id);
    at = read.next;
  }
  let b = 0;
  let r = 0;
  id = 0;
  const copyBaselineBelow = (limitId: number): boolean => {
    while (b < baseline.count && baseline.id(b) < limitId) {
      const bid = baseline.id(b);
      if (r < removedIds.length && removedIds[r] === bid) r++;
      else if (r < removedIds.length && removedIds[r] < bid)
        return false; // removed an id the baseline lacks
      else result.append(baseline.bytes, baseline.starts[b], baseline.starts[b + 1]);
      b++;
    }
    return true;
  };
  for (let index = 0; index < changed; index++) {
    const read = readVarint(bytes, at, end);
    id += read.value;
    at = read.next;
    if (!copyBaselineBelow(id)) return null;
    const inBaseline = b < baseline.count && baseline.id(b) === id;
    if (r < removedIds.length && removedIds[r] === id) return null; // removed and changed at once
    const base = inBaseline ? baseline.bytes : ZERO_ENTRY;
    const baseAt = inBaseline ? baseline.starts[b] : 0;
    const baseEnd = inBaseline ? baseline.starts[b + 1] : ENTITY_ENTRY_BYTES;
    if (inBaseline) b++;
    const mask = bytes[at++];
    let metaAt = -1;
    let metaLength = baseEnd - baseAt - ENTITY_ENTRY_BYTES;
    const fieldsAt = at;
    at += fixedFieldBytes(mask);
    if (mask & DELTA_META) {
      metaLength = bytes[at];
      metaAt = at + 1;
      at = metaAt + metaLength;
    }
    const out = result.reserve(ENTITY_ENTRY_BYTES + metaLength);
    const o = result.bytes;
    o.set(base.subarray(baseAt, baseAt + ENTITY_ENTRY_BYTES), out);
    writeU32(o, out, id);
    let f = fieldsAt;
    if (mask & DELTA_POS_SMALL) {
      const dx = (bytes[f] << 24) >> 24;
      const dy = (bytes[f + 1] << 24) >> 24;
      writeU16(o, out + X_AT, readI16(base, baseAt + X_AT) + dx);
      writeU16(o, out + Y_AT, readI16(base, baseAt + Y_AT) + dy);
      f += 2;
    }
    if (mask & DELTA_POS_FULL) {
      writeU16(o, out + X_AT, readU16(bytes, f));
      writeU16(o, out + Y_AT, readU16(bytes, f + 2));
      f += 4;
    }
    if (mask & DELTA_TYPE) f = put2(bytes, f, o, out + TYPE_AT);
    if (mask & DELTA_HP) f = put2(bytes, f, o, out + HP_AT);
    if (mask & DELTA_HP_MAX) f = put2(bytes, f, o, out + HP_MAX_AT);
    if (mask & DELTA_ELO) f = put2(bytes, f, o, out + ELO_AT);
    if (mask & DELTA_FLAGS) o[out + FLAGS_AT] = bytes[f++];
    o[out + META_LEN_AT] = metaLength;
    if (metaAt >= 0) o.set(bytes.subarray(metaAt, metaAt + metaLength), out + ENTITY_ENTRY_BYTES);
    else if (metaLength > 0) {
      o.set(base.subarray(baseAt + ENTITY_ENTRY_BYTES, baseEnd), out + ENTITY_ENTRY_BYTES);
    }
    result.commit(ENTITY_ENTRY_BYTES + metaLength);
  }
  if (!copyBaselineBelow(Infinity)) return null;
  if (r < removedIds.length) return null; // removed ids past the baseline's last
  result.checksum = result.computeChecksum();
  return result;
}

function put2(from: Uint8Array, at: number, out: Uint8Array, outAt: number): number {
  out[outAt] = from[at];
  out[outAt + 1] = from[at + 1];
  return at + 2;
}
