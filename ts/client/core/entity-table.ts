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
import { ENTITY_CHECKSUM_START, entityChecksumUpdate } from "../../protocol/entity-checksum.js";
import { EntityCursor, type EntityView as EntityPacketView } from "../../protocol/entity.js";
import { decodeTlvs, type Tlv } from "../../protocol/tlv.js";

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

export class EntityTable {
  private held = new Map<number, EntityInfo>();
  private heldChecksum = NaN;
  private cursor = -1;
  private readonly states: { tick: number; checksum: number }[] = [];
  private candidates: Update[] = [];
  private assembly: Assembly | null = null;
  private readonly reader = new EntityCursor();
  /** Entity datagrams dropped as duplicates of ones already folded in. */
  duplicates = 0;

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
      assembly = { tick: view.tick, checksum: ENTITY_CHECKSUM_START, entries: [], datagrams: [], complete: false };
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
    }
    if (view.more) return false;
    assembly.complete = true;
    this.candidates.push({ tick: assembly.tick, checksum: assembly.checksum, entries: assembly.entries });
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

  reset(): void {
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
      const adopted = bestCandidate.tick;
      this.candidates = this.candidates.filter((update) => update.tick > adopted);
    }
    this.cursor = bestTick;
    return true;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}
