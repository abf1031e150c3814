// The entities in view and the acknowledgement cursor (protocol decisions 9
// and 10).
//
// Each broadcast is a StatePacket (tick T, entity_checksum C) followed by the
// tick's EntityPackets — or by nothing at all when the entries equal the last
// ones the server sent. The client checksums what it receives exactly as the
// server does (FNV-1a over each datagram from offset 12, chained in order), so
// it can tell three cases apart:
//   - the entity datagrams of T arrived whole: their checksum equals C;
//   - the server skipped an unchanged update: C equals the checksum of the
//     entries already held;
//   - something was lost: C matches neither.
// In the first two cases the entries held are the server's entries at tick T
// and the cursor advances to T. Because verification is by checksum, the order
// of arrival does not matter: complete but unverified updates wait as
// candidates for a State that vouches for them, so a State overtaken by its
// entity datagrams (jitter) or lost altogether (a later State with the same
// checksum vouches) still advances the cursor.
//
// A mismatch that persists past the next State means the entity datagrams are
// gone and, if nothing changes in view, the server will not send them again;
// needsResend() then asks for a keep-alive ActionPacket, which makes the server
// re-send the current entries.
//
// With entity deltas (P-21) the table also keeps the raw entries of its last
// verified lists by tick: a StateDeltaPacket names the one it was written
// against, and applied to it gives the entries of its tick, checked against the
// packet's checksum. The client acknowledges the newest list it holds
// (ackDue / acknowledged); the server writes against that, so a lost delta
// needs no re-send — the next one repeats its changes.
import { ENTITY_CHECKSUM_START, entityChecksumUpdate } from "../../protocol/entity-checksum.js";
import {
  EntityCursor,
  ENTITY_ENTRY_BYTES,
  ENTITY_ENTRY_LAYOUT,
  type EntityView as EntityPacketView,
} from "../../protocol/entity.js";
import { EntryList, applyEntityDelta, emptyEntryList } from "../../protocol/entity-delta.js";
import type { StateDeltaView } from "../../protocol/state-delta.js";
import { decodeTlvs, type Tlv } from "../../protocol/tlv.js";
import { readI16, readU16, readU32 } from "../../protocol/bytes.js";

export interface EntityInfo {
  readonly id: number;
  readonly typeId: number;
  readonly x: number;
  readonly y: number;
  readonly hp: number;
  readonly hpMax: number;
  readonly elo: number;
  readonly flags: number;
  readonly meta: readonly Tlv[];
}

interface Update {
  tick: number;
  checksum: number;
  entries: EntityInfo[];
  /** The same entries in wire form, ascending by id: a baseline for deltas. */
  list: EntryList;
}

interface Assembly extends Update {
  /** Copies of the datagrams folded in so far, to recognise duplicates. */
  datagrams: Uint8Array[];
  complete: boolean;
}

/** States remembered for verification: 8 broadcasts, two thirds of a second. */
const STATES_KEPT = 8;
/** Complete updates waiting for a State that vouches for them. */
const CANDIDATES_KEPT = 4;
/** Verified lists kept as delta baselines: more than the server's ring (12), so any it names is here. */
const BASELINES_KEPT = 16;

export class EntityTable {
  private held = new Map<number, EntityInfo>();
  private heldChecksum = NaN;
  private cursor = -1;
  private readonly states: { tick: number; checksum: number }[] = [];
  private candidates: Update[] = [];
  private assembly: Assembly | null = null;
  private readonly reader = new EntityCursor();
  /** Verified lists by tick, newest last (the same list may serve several ticks). */
  private baselines: { tick: number; list: EntryList }[] = [];
  private heldList: EntryList = emptyEntryList();
  /** The tick last acknowledged to the server (EntityAckPacket), -1 before the first. */
  private ackedTick = -1;
  /** Entity datagrams dropped as duplicates of ones already folded in. */
  duplicates = 0;
  /** StateDeltas that could not be applied: their baseline is not held, or the result failed the checksum. */
  deltaMisses = 0;

  /** The entries as of the acknowledged tick, by entity id. */
  get entries(): ReadonlyMap<number, EntityInfo> {
    return this.held;
  }

  /** The last tick whose entries are known to be held; -1 before the first. */
  get ackTick(): number {
    return this.cursor;
  }

  /** Records a StatePacket; returns true if the cursor advanced. */
  onState(tick: number, checksum: number): boolean {
    if (tick <= this.cursor || this.states.some((state) => state.tick === tick)) return false;
    this.states.push({ tick, checksum });
    if (this.states.length > STATES_KEPT) this.states.shift();
    return this.advance();
  }

  /** Folds in one EntityPacket datagram (decoded by the protocol library); returns true if the cursor advanced. */
  onEntityDatagram(view: EntityPacketView): boolean {
    const bytes = view.bytes;
    let assembly = this.assembly;
    if (assembly && view.tick < assembly.tick) return false; // a straggler from an older tick
    if (assembly && assembly.tick === view.tick && assembly.datagrams.some((seen) => sameBytes(seen, bytes))) {
      this.duplicates++;
      return false;
    }
    if (!assembly || assembly.tick !== view.tick || assembly.complete) {
      assembly = {
        tick: view.tick,
        checksum: ENTITY_CHECKSUM_START,
        entries: [],
        list: new EntryList(),
        datagrams: [],
        complete: false,
      };
      this.assembly = assembly;
    }
    assembly.checksum = entityChecksumUpdate(assembly.checksum, bytes);
    assembly.datagrams.push(bytes.slice());
    const reader = this.reader.reset(view);
    while (reader.next()) {
      assembly.entries.push({
        id: reader.id,
        typeId: reader.typeId,
        x: reader.x,
        y: reader.y,
        hp: reader.hp,
        hpMax: reader.hpMax,
        elo: reader.elo,
        flags: reader.flags,
        meta: reader.metaEnd > reader.metaStart ? decodeTlvs(bytes, reader.metaStart, reader.metaEnd) : [],
      });
      assembly.list.append(bytes, reader.metaStart - ENTITY_ENTRY_BYTES, reader.metaEnd);
    }
    if (view.more) return false;
    assembly.complete = true;
    this.candidates.push({
      tick: assembly.tick,
      checksum: assembly.checksum,
      entries: assembly.entries,
      list: assembly.list,
    });
    if (this.candidates.length > CANDIDATES_KEPT) this.candidates.shift();
    return this.advance();
  }

  /** States newer than the cursor: each one is a broadcast whose entries are not (yet) confirmed held. */
  get unverifiedStates(): number {
    let count = 0;
    for (const state of this.states) if (state.tick > this.cursor) count++;
    return count;
  }

  /** Whether the entries have been missing past one more State, so the server must be asked to re-send. */
  get needsResend(): boolean {
    return this.unverifiedStates >= 2;
  }

  /**
   * Applies a StateDeltaPacket (its State part is the receiver's): returns true
   * if the cursor advanced to its tick. A delta against a list not held, or one
   * whose result fails its checksum, is counted and dropped; the next
   * acknowledgement tells the server what is held.
   */
  onStateDelta(view: StateDeltaView): boolean {
    if (view.tick <= this.cursor) return false;
    const base =
      view.baselineTick === 0 ? emptyEntryList() : this.baselines.find((b) => b.tick === view.baselineTick)?.list;
    const end = view.delta.length;
    const list = base ? applyEntityDelta(base, view.delta, 0, end, view.removedCount, view.changedCount) : null;
    if (list === null || list.checksum !== view.entityChecksum) {
      this.deltaMisses++;
      this.ackedTick = -1; // say again what is held
      return false;
    }
    list.tick = view.tick;
    this.adopt(list, view.tick);
    this.cursor = view.tick;
    // Older States and candidates are settled by this newer list.
    this.candidates = this.candidates.filter((update) => update.tick > view.tick);
    return true;
  }

  /** The tick to acknowledge now (EntityAckPacket), or -1 when the server already knows it. */
  get ackDue(): number {
    return this.cursor > 0 && this.cursor !== this.ackedTick ? this.cursor : -1;
  }

  /** An EntityAckPacket for `tick` went out. */
  acknowledged(tick: number): void {
    this.ackedTick = tick;
  }

  reset(): void {
    this.baselines = [];
    this.heldList = emptyEntryList();
    this.ackedTick = -1;
    this.held = new Map();
    this.heldChecksum = NaN;
    this.cursor = -1;
    this.states.length = 0;
    this.candidates = [];
    this.assembly = null;
  }

  /** Moves the cursor to the newest State that the held entries or a candidate match. */
  private advance(): boolean {
    let bestTick = -1;
    let bestCandidate: Update | null = null;
    for (const state of this.states) {
      if (state.tick <= this.cursor || state.tick <= bestTick) continue;
      if (state.checksum === this.heldChecksum) {
        bestTick = state.tick;
        bestCandidate = null;
        continue;
      }
      const candidate = this.candidates.find((update) => update.checksum === state.checksum);
      if (candidate) {
        bestTick = state.tick;
        bestCandidate = candidate;
      }
    }
    if (bestTick < 0) return false;
    if (bestCandidate) {
      this.held = new Map(bestCandidate.entries.map((entry) => [entry.id, entry]));
      this.heldChecksum = bestCandidate.checksum;
      this.heldList = bestCandidate.list;
      const adopted = bestCandidate.tick;
      this.candidates = this.candidates.filter((update) => update.tick > adopted);
    }
    this.remember(this.heldList, bestTick);
    this.cursor = bestTick;
    return true;
  }

  /** Holds `list` (from a delta) as the entries of `tick`. */
  private adopt(list: EntryList, tick: number): void {
    const held = new Map<number, EntityInfo>();
    const bytes = list.bytes;
    for (let index = 0; index < list.count; index++) {
      const at = list.starts[index];
      const info = readEntry(bytes, at, list.starts[index + 1]);
      held.set(info.id, info);
    }
    this.held = held;
    this.heldChecksum = list.checksum;
    this.heldList = list;
    this.remember(list, tick);
  }

  /** Keeps `list` as the baseline of `tick`. */
  private remember(list: EntryList, tick: number): void {
    this.baselines.push({ tick, list });
    if (this.baselines.length > BASELINES_KEPT) this.baselines.shift();
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

const ENTRY = ENTITY_ENTRY_LAYOUT.offset;

/** One entry in wire form at bytes[at..end) as EntityInfo. */
function readEntry(bytes: Uint8Array, at: number, end: number): EntityInfo {
  const metaStart = at + ENTITY_ENTRY_BYTES;
  return {
    id: readU32(bytes, at + ENTRY.id),
    typeId: readU16(bytes, at + ENTRY.type_id),
    x: readI16(bytes, at + ENTRY.pos_x),
    y: readI16(bytes, at + ENTRY.pos_y),
    hp: readU16(bytes, at + ENTRY.hp),
    hpMax: readU16(bytes, at + ENTRY.hp_max),
    elo: readU16(bytes, at + ENTRY.elo),
    flags: bytes[at + ENTRY.entity_flags],
    meta: end > metaStart ? decodeTlvs(bytes, metaStart, end) : [],
  };
}
