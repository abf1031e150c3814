// Per-client egress at 12 Hz: the StatePacket (tick, 3×3 manifest, player id,
// entity checksum) followed by the EntityPackets for everything in view.
//
// The entity entries are skipped when they equal the last ones sent to this
// client (decision 10): the unchanged checksum in the StatePacket tells the
// client nothing was lost, so an idle or sparse client costs one 72-byte
// datagram per broadcast. A keep-alive from the client (sent when its checksum
// differs) sets `resendEntities`, which re-sends the current entries.
//
// This runs once per client per broadcast, so it allocates nothing but the
// datagram views. The view is a list of entity slots (EntityStore.slotsInSquare),
// and each slot's entry is kept encoded between rounds and written again (and
// checked) only when one of its fields changed — at most once per tick, however
// many clients see it: with 20,000 creatures among 2000 players, writing every
// entry in view afresh each round was most of the broadcast (docs/server.md). A
// client's checksum is folded over those bytes before any datagram exists, so an
// unchanged view sends nothing more; State and Entity datagrams are written
// straight into the outbound slab.
import { CHUNK_SIZE, IDLE_STATE_EVERY_TICKS } from "../../constants.js";
import { ENTITY_CHECKSUM_START, entityChecksumEntries } from "../../protocol/entity-checksum.js";
import { FNV_PRIME } from "../../protocol/fnv1a.js";
import { readU32 } from "../../protocol/bytes.js";
import {
  ENTITIES_PER_DATAGRAM_MAX,
  ENTITY_ENTRY_BYTES,
  ENTITY_HEADER_BYTES,
  ENTITY_META_MAX_BYTES,
  encodeEntityEntryWithMeta,
  encodeEntityHeader,
  encodeEntityMeta,
} from "../../protocol/entity.js";
import { type DeltaWritten, type EntryList, writeEntityDelta } from "../../protocol/entity-delta.js";
import { MAX_DATAGRAM_BYTES, PACKET_STATE_DELTA } from "../../protocol/header.js";
import { STATE_DELTA_BODY_OFFSET, STATE_DELTA_FIXED_BYTES, writeStateDeltaTail } from "../../protocol/state-delta.js";
import { STATE_DELTA_COMPACT_HEAD_MAX, writeStateDeltaCompactHead } from "../../protocol/state-delta-compact.js";
import { MANIFEST_ENTRIES, STATE_BYTES, encodeStateAround, writeStateAround } from "../../protocol/state.js";
import type { Clock } from "../ops/clock.js";
import type { Egress } from "../edge/egress.js";
import { ACTIVE_AFTER_STEP_TICKS, type EntityBaselines } from "../sessions/entity-baselines.js";
import type { EntityStore } from "../entities/entities.js";
import type { Session } from "../sessions/session.js";
import { VIEW_ENTITIES_MAX, VIEW_RADIUS } from "../entities/view.js";
import type { ChunkStream } from "../world/chunk-stream.js";

const ENTRY_MAX_BYTES = ENTITY_ENTRY_BYTES + ENTITY_META_MAX_BYTES;
/**
 * Each slot has a record of RECORD_BYTES at slot × RECORD_BYTES: five i32s saying what its entry is, then
 * the entry itself, kept between rounds and written again only when one of its fields changed. One record
 * is one cache line: among 100,000 creatures a view's entries lie all over memory, and reading the round,
 * offset and length from three arrays and the bytes from a fourth cost four cache misses an entry where
 * this costs one. An entry longer than KEPT_ENTRY_MAX (meta over 26 bytes) is written into the round's
 * area, after the records, every round instead.
 */
const RECORD_BYTES = 64;
const RECORD_INTS = RECORD_BYTES / 4;
/** The record's i32s: the round its entry was last looked at (a differing one is looked at again)… */
const R_ROUND = 0;
/** … where the entry is (a byte offset: inside the record when kept, else in the round's area) and how long… */
const R_OFFSET = 1;
const R_BYTES = 2;
/**
 * … the store's change count (EntityStore.changeCounts) the kept entry was written at, and whether one is
 * kept (0: none, or too long to keep). A count that stands still means the bytes are still the entity's
 * entry: no field of its object is read.
 */
const R_COUNT = 3;
const R_KEPT = 4;
/** Where in its record a kept entry starts, and the longest kept. */
const RECORD_ENTRY_AT = 20;
const KEPT_ENTRY_MAX = RECORD_BYTES - RECORD_ENTRY_AT;
/** The fields an entry is made of, kept by slot when verifying that the change counts tell every change. */
const KEPT_FIELDS = 8;
const KEPT_FIELD_NAMES = ["id", "typeId", "x", "y", "hp", "hpMax", "elo", "flags"] as const;

/** What a broadcast reads and where it sends. */
export interface BroadcastPorts {
  /** The entities in view. */
  readonly entities: Pick<EntityStore, "slotsInSquare" | "atSlot" | "slotCount" | "changeCounts">;
  /** The manifest's chunk versions (chunk streaming: ../world/chunk-stream.ts). */
  readonly chunks: Pick<ChunkStream, "writeManifest">;
  /** The tick each State and Entity packet carries. */
  readonly clock: Clock;
  readonly egress: Egress;
  /** Send every entity update even when unchanged (GameOptions.sendUnchangedEntities). */
  readonly sendUnchangedEntities: boolean;
  /**
   * Check every kept entry against its entity's fields, and throw when one changed without
   * EntityStore.changed (GameOptions.verifyEntityChanges: the tests' guard for the change counts).
   */
  readonly verifyEntityChanges?: boolean;
}

export class Broadcaster {
  /**
   * By entity slot (StoredEntity.slot), its record (RECORD_BYTES at slot × RECORD_BYTES), then this round's
   * area (from `roundArea`) for entries too long to keep: `entries` and `records` view the same memory, as
   * bytes and as i32s. The per-client loops touch an entity's object once per round at most, and write its
   * bytes only when it changed.
   */
  private entries: Uint8Array = new Uint8Array(0);
  private records: Int32Array = new Int32Array(0);
  /** Slots the records hold. */
  private slots = 0;
  private roundArea = 0;
  private entriesUsed = 0;
  /** Bumped by beginRound; an entity whose record's round differs is looked at again. */
  private round = 0;
  /** When this round of broadcasts began (performance.now() ms): stamps the delta sessions' lists (beginRound). */
  private roundStartMs = NaN;
  /** Only when verifying: by slot, the fields and the meta array the kept entry was written from. */
  private keptFields: Float64Array | null = null;
  private readonly keptMeta: (readonly unknown[] | null)[] = [];
  /** The slots in the current session's view, sorted by id. */
  private readonly view: number[] = [];
  private readonly versions = new Uint16Array(MANIFEST_ENTRIES);
  private readonly written: DeltaWritten = { bytes: 0, removed: 0, changed: 0 };

  private readonly entities: BroadcastPorts["entities"];
  private readonly chunks: BroadcastPorts["chunks"];
  private readonly clock: Clock;
  private readonly egress: Egress;
  private readonly sendUnchangedEntities: boolean;

  constructor(ports: BroadcastPorts) {
    this.entities = ports.entities;
    this.chunks = ports.chunks;
    this.clock = ports.clock;
    this.egress = ports.egress;
    this.sendUnchangedEntities = ports.sendUnchangedEntities;
    if (ports.verifyEntityChanges === true) this.keptFields = new Float64Array(1024 * KEPT_FIELDS);
    this.allocate(1024, 16 * 1024);
  }

  /**
   * Makes room for `slots` records and a round's area of `roundBytes`, keeping the records there are (the
   * round's area is not kept: see fitSlots). A new record starts never looked at.
   */
  private allocate(slots: number, roundBytes: number): void {
    const buffer = new ArrayBuffer(slots * RECORD_BYTES + roundBytes);
    const entries = new Uint8Array(buffer);
    entries.set(this.entries.subarray(0, this.slots * RECORD_BYTES));
    const records = new Int32Array(buffer);
    for (let slot = this.slots; slot < slots; slot++) records[slot * RECORD_INTS + R_ROUND] = -1;
    this.entries = entries;
    this.records = records;
    this.slots = slots;
    this.roundArea = slots * RECORD_BYTES;
    this.entriesUsed = this.roundArea;
  }

  /**
   * Starts a tick's broadcasts at `nowMs` (performance.now()): entries encoded earlier may be stale. The time
   * stamps the delta sessions' lists, to time the round trip when one is acknowledged (sessions/round-trip.ts);
   * nothing sent or simulated depends on it.
   */
  beginRound(nowMs: number): void {
    this.roundStartMs = nowMs;
    this.round++;
    this.fitSlots();
    this.entriesUsed = this.roundArea;
  }

  /** Grows the records to the store's slots (new slots start never encoded). */
  private fitSlots(): void {
    const needed = this.entities.slotCount;
    if (needed <= this.slots) return;
    const size = Math.max(needed, this.slots * 2);
    if (this.keptFields !== null) this.keptFields = grown(this.keptFields, new Float64Array(size * KEPT_FIELDS));
    // The kept entries keep their records, and their offsets with them (a kept entry's offset is inside its own
    // record); the round's area moves up behind them and starts empty. fitSlots runs before a round's first
    // query, or mid-round when a slot was added since: then this round's entries are looked at again, so
    // none points into the area left behind.
    this.allocate(size, this.entries.length - this.roundArea);
    const records = this.records;
    for (let slot = 0; slot < size; slot++) {
      if (records[slot * RECORD_INTS + R_ROUND] === this.round) records[slot * RECORD_INTS + R_ROUND] = -1;
    }
  }

  /** Sends one broadcast to `session` (which must be bound to a peer). */
  sendTo(session: Session): void {
    const entity = session.entity;
    const inView = this.view;
    if (this.entities.slotCount > this.slots) this.fitSlots();
    const count = this.entities.slotsInSquare(entity.x, entity.y, VIEW_RADIUS, inView, VIEW_ENTITIES_MAX);
    const centreX = Math.floor(entity.x / CHUNK_SIZE);
    const centreY = Math.floor(entity.y / CHUNK_SIZE);
    const versions = this.versions;
    this.chunks.writeManifest(centreX, centreY, versions);
    const tick = this.clock.tick;
    const baselines = session.baselines;
    if (baselines !== null) return this.sendDeltaSession(session, baselines, count, centreX, centreY, tick);

    const checksum = this.viewChecksum(count);

    // State first: the client reads the checksum, then the entries that match it.
    const egress = this.egress;
    const slab = egress.slab;
    slab.reserve(STATE_BYTES);
    encodeStateAround(0, tick, centreX, centreY, versions, entity.id, checksum, slab.bytes, slab.at);
    egress.sendWritten(session, STATE_BYTES);

    const unchanged = checksum === session.lastEntityChecksum && !session.resendEntities;
    if (unchanged && !this.sendUnchangedEntities) return;
    this.sendEntities(session, inView, count, tick);
    session.lastEntityChecksum = checksum;
    session.lastEntityTick = tick;
    session.resendEntities = false;
  }

  /**
   * A delta session's broadcast: the view's entries copied into this
   * broadcast's list (hashed there in one pass), then sendDelta. A compact
   * session (P-25) that may hold this broadcast back — the last one was sent,
   * recently, with this manifest — hashes the entries where they lie first, and
   * when they repeat the last ones sent, holds it back at once: no list, no diff.
   */
  private sendDeltaSession(
    session: Session,
    baselines: EntityBaselines,
    count: number,
    centreX: number,
    centreY: number,
    tick: number,
  ): void {
    const sameView = sameManifest(baselines, centreX, centreY, this.versions);
    if (
      baselines.compact &&
      sameView &&
      !baselines.repeatSkipped &&
      tick - baselines.lastSentTick < IDLE_STATE_EVERY_TICKS
    ) {
      const checksum = this.viewChecksum(count);
      if (checksum === session.lastEntityChecksum) {
        // The half rate (P-25): this broadcast repeats the one sent just before it — never two held back in a row,
        // so a lost one is repaired a broadcast later, and never past the idle rule's gap.
        baselines.repeatSkipped = true;
        return;
      }
      const list = this.viewList(baselines, count);
      return this.sendDelta(session, baselines, list, count, checksum, centreX, centreY, tick, sameView);
    }
    const list = this.viewList(baselines, count);
    return this.sendDelta(session, baselines, list, count, list.checksum, centreX, centreY, tick, sameView);
  }

  /** entity_checksum of the view's first `count` entries in send order (encoding any not yet encoded this round). */
  private viewChecksum(count: number): number {
    const inView = this.view;
    const round = this.round;
    let checksum = ENTITY_CHECKSUM_START;
    for (let index = 0; index < count; index++) {
      const slot = inView[index];
      const record = slot * RECORD_INTS;
      if (this.records[record + R_ROUND] !== round) this.encodeEntry(slot, index);
      // Read after encodeEntry, which may have grown the memory they view.
      const records = this.records;
      const from = records[record + R_OFFSET];
      checksum = entityChecksumEntries(checksum, this.entries, from, from + records[record + R_BYTES]);
    }
    return checksum;
  }

  /**
   * The view's first `count` entries copied into the session's next list and hashed on the way (its checksum
   * set), encoding any not yet encoded. One pass over the bytes, written straight into the list's arrays: at
   * ~64 entries a view and a thousand views a tick, the per-entry append (two capacity checks, the id read
   * back from the bytes) and a second pass to hash were most of the view's cost.
   */
  private viewList(baselines: EntityBaselines, count: number): EntryList {
    const inView = this.view;
    const round = this.round;
    let byteLength = 0;
    for (let index = 0; index < count; index++) {
      const record = inView[index] * RECORD_INTS;
      if (this.records[record + R_ROUND] !== round) this.encodeEntry(inView[index], index);
      byteLength += this.records[record + R_BYTES];
    }
    const list = baselines.next(this.roundStartMs);
    list.prepare(count, byteLength);
    const bytes = list.bytes;
    const starts = list.starts;
    const ids = list.ids;
    const entries = this.entries;
    const records = this.records;
    let at = 0;
    let hash = ENTITY_CHECKSUM_START | 0;
    for (let index = 0; index < count; index++) {
      const record = inView[index] * RECORD_INTS;
      const from = records[record + R_OFFSET];
      const to = from + records[record + R_BYTES];
      starts[index] = at;
      ids[index] = readU32(entries, from); // the entry's id: its first field
      for (let byte = from; byte < to; byte++) {
        const value = entries[byte];
        bytes[at++] = value;
        // FNV-1a (protocol/fnv1a.ts), folded here so the bytes are read once.
        hash = Math.imul(hash ^ value, FNV_PRIME);
      }
    }
    starts[count] = at;
    list.filled(count, hash >>> 0);
    return list;
  }

  /**
   * A session with entity deltas (P-21): this broadcast as one StateDeltaPacket
   * against the newest list the client acknowledged — or, when nothing in view
   * or in the manifest changed and the player schedules no steps, nothing at all
   * but every IDLE_STATE_EVERY_TICKS; or, when the delta does not fit one
   * datagram, the seed's State and EntityPackets, whose list the client can
   * acknowledge as well.
   */
  private sendDelta(
    session: Session,
    baselines: EntityBaselines,
    list: EntryList,
    count: number,
    checksum: number,
    centreX: number,
    centreY: number,
    tick: number,
    sameView: boolean,
  ): void {
    const inView = this.view;
    list.tick = tick;
    list.checksum = checksum;
    const egress = this.egress;
    const slab = egress.slab;
    slab.reserve(MAX_DATAGRAM_BYTES);
    const out = slab.bytes;
    const at = slab.at;
    const versions = this.versions;
    const baseline = baselines.baseline();
    const compact = baselines.compact;
    // The compact head's length is known only once the counts are: the body goes after the longest head, and
    // moves down to the real one.
    const bodyAt = at + (compact ? STATE_DELTA_COMPACT_HEAD_MAX : STATE_DELTA_BODY_OFFSET);
    const written = writeEntityDelta(baseline, list, out, bodyAt, at + MAX_DATAGRAM_BYTES, this.written);
    const entity = session.entity;
    if (written.bytes >= 0) {
      if (
        written.removed === 0 &&
        written.changed === 0 &&
        tick - baselines.lastSentTick < IDLE_STATE_EVERY_TICKS &&
        tick - baselines.lastStepTick > ACTIVE_AFTER_STEP_TICKS &&
        sameView
      ) {
        baselines.discard(list);
        return;
      }
      // The empty baseline's tick is -1; on the wire it is 0 ("the empty list").
      if (compact) {
        const back = baseline.tick < 0 ? 0 : tick - baseline.tick;
        const head = writeStateDeltaCompactHead(
          0,
          tick,
          checksum,
          centreX,
          centreY,
          versions,
          entity.id,
          back,
          written.removed,
          written.changed,
          written.bytes,
          out,
          at,
        );
        out.copyWithin(at + head, bodyAt, bodyAt + written.bytes);
        egress.sendWritten(session, head + written.bytes);
      } else {
        writeStateAround(PACKET_STATE_DELTA, 0, tick, centreX, centreY, versions, entity.id, checksum, out, at);
        writeStateDeltaTail(Math.max(0, baseline.tick), written.removed, written.changed, written.bytes, out, at);
        egress.sendWritten(session, STATE_DELTA_FIXED_BYTES + written.bytes);
      }
    } else {
      encodeStateAround(0, tick, centreX, centreY, versions, entity.id, checksum, out, at);
      egress.sendWritten(session, STATE_BYTES);
      this.sendEntities(session, inView, count, tick);
    }
    baselines.lastSentTick = tick;
    baselines.repeatSkipped = false;
    baselines.lastCentreX = centreX;
    baselines.lastCentreY = centreY;
    baselines.lastVersions.set(versions);
    session.lastEntityChecksum = checksum;
    session.lastEntityTick = tick;
  }

  /** The tick's EntityPackets for `inView[0..count)`, each as full as fits (count and size), `more` on all but the last. */
  private sendEntities(session: Session, inView: number[], count: number, tick: number): void {
    const egress = this.egress;
    const slab = egress.slab;
    // Every entry in view is current (viewChecksum or viewList ran first): nothing grows these meanwhile.
    const entries = this.entries;
    const records = this.records;
    let start = 0;
    do {
      let size = ENTITY_HEADER_BYTES;
      let end = start;
      while (
        end < count &&
        end - start < ENTITIES_PER_DATAGRAM_MAX &&
        size + records[inView[end] * RECORD_INTS + R_BYTES] <= MAX_DATAGRAM_BYTES
      ) {
        size += records[inView[end] * RECORD_INTS + R_BYTES];
        end++;
      }
      slab.reserve(size);
      const out = slab.bytes;
      let at = slab.at + encodeEntityHeader(0, tick, end - start, end < count, out, slab.at);
      for (let index = start; index < end; index++) {
        const record = inView[index] * RECORD_INTS;
        const from = records[record + R_OFFSET];
        const to = from + records[record + R_BYTES];
        for (let byte = from; byte < to; byte++) out[at++] = entries[byte];
      }
      egress.sendWritten(session, size);
      start = end;
    } while (start < count);
  }

  /**
   * Makes the entry of the entity in `slot` current for this round (`index`: its place in the view, for
   * errors): its kept bytes while the slot's change count stands still, else written again.
   */
  private encodeEntry(slot: number, index: number): void {
    const count = this.entities.changeCounts[slot];
    const record = slot * RECORD_INTS;
    if (this.records[record + R_KEPT] === 1 && this.records[record + R_COUNT] === count) {
      if (this.keptFields !== null) this.verifyKept(slot);
      this.records[record + R_ROUND] = this.round;
      return;
    }
    const entity = this.entities.atSlot(slot);
    this.records[record + R_KEPT] = 0;
    // The meta (a few TLVs, checked like everything sent) is encoded once per change, not per round.
    if (entity.metaEncodedFrom !== entity.meta) {
      entity.metaEncoded = encodeEntityMeta(entity);
      entity.metaEncodedFrom = entity.meta;
    }
    const keep = ENTITY_ENTRY_BYTES + entity.metaEncoded.length <= KEPT_ENTRY_MAX;
    if (!keep && this.entriesUsed + ENTRY_MAX_BYTES > this.entries.length) {
      // Offsets stay valid: the records and the round's area keep their positions in the larger memory.
      const buffer = new ArrayBuffer(this.entries.length * 2);
      const entries = new Uint8Array(buffer);
      entries.set(this.entries.subarray(0, this.entriesUsed));
      this.entries = entries;
      this.records = new Int32Array(buffer);
    }
    const records = this.records;
    const at = keep ? slot * RECORD_BYTES + RECORD_ENTRY_AT : this.entriesUsed;
    const size = encodeEntityEntryWithMeta(entity, entity.metaEncoded, this.entries, at, index);
    records[record + R_ROUND] = this.round;
    records[record + R_OFFSET] = at;
    records[record + R_BYTES] = size;
    if (!keep) {
      this.entriesUsed += size;
      return;
    }
    records[record + R_KEPT] = 1;
    records[record + R_COUNT] = count;
    const fields = this.keptFields;
    if (fields === null) return;
    const k = slot * KEPT_FIELDS;
    for (let field = 0; field < KEPT_FIELDS; field++) fields[k + field] = entity[KEPT_FIELD_NAMES[field]];
    this.keptMeta[slot] = entity.meta;
  }

  /** verifyEntityChanges: throws when the entity in `slot` differs from its kept entry's fields though its count stood still. */
  private verifyKept(slot: number): void {
    const entity = this.entities.atSlot(slot);
    const fields = this.keptFields!;
    const k = slot * KEPT_FIELDS;
    for (let field = 0; field < KEPT_FIELDS; field++) {
      const name = KEPT_FIELD_NAMES[field];
      if (fields[k + field] !== entity[name]) {
        throw new Error(
          `entity ${entity.id}'s ${name} went from ${fields[k + field]} to ${entity[name]} without EntityStore.changed: its viewers would keep the old entry`,
        );
      }
    }
    if (this.keptMeta[slot] !== entity.meta) {
      throw new Error(
        `entity ${entity.id}'s meta was replaced without EntityStore.changed: its viewers would keep the old entry`,
      );
    }
  }
}

/** `larger` with `array`'s values at its start: a per-slot array grown (the new slots keep larger's fill). */
function grown<T extends Int32Array | Uint8Array | Float64Array>(array: T, larger: T): T {
  larger.set(array);
  return larger;
}

/** Whether the manifest around (centreX, centreY) with `versions` is the one last sent to the session. */
function sameManifest(baselines: EntityBaselines, centreX: number, centreY: number, versions: Uint16Array): boolean {
  if (baselines.lastCentreX !== centreX || baselines.lastCentreY !== centreY) return false;
  const last = baselines.lastVersions;
  for (let index = 0; index < MANIFEST_ENTRIES; index++) if (last[index] !== versions[index]) return false;
  return true;
}
