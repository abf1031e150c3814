// Entity deltas, the server's side (P-21, docs/protocol.md § 8.4): per session
// that asked for them, the entity lists of its last few broadcasts, so the next
// one can be written against the newest list the client has acknowledged.
//
// The ring never gives up the acknowledged list: a new broadcast takes the
// oldest other slot. A client whose acknowledgement is older than the ring
// (its acks were lost for a while) is written against the empty list — the
// whole view, which is what the seed would have sent anyway — and catches up
// with its next acknowledgement; so is one whose acknowledgements name lists
// the ring has already let go of (a round trip longer than the ring: it may
// have let the baseline go too). Memory per session is bounded: BASELINES_KEPT
// lists of at most one view each, and a view too big to send as a delta is
// sent the seed's way (its list is kept all the same).
import { EntryList, emptyEntryList } from "../../protocol/entity-delta.js";
import { MANIFEST_ENTRIES } from "../../protocol/state.js";
import { RoundTrip } from "./round-trip.js";

/** Lists kept per session: 12 broadcasts, a second at 12 Hz — the acknowledgement interval (500 ms) and a slow round trip. */
export const BASELINES_KEPT = 12;
/** How long after a scheduled step a session counts as active (a refused step needs its State to correct). */
export const ACTIVE_AFTER_STEP_TICKS = 24;

export class EntityBaselines {
  /** Whether the session asked for compact deltas (its first acknowledgement was a CompactAck, P-25). */
  readonly compact: boolean;
  /** Compact sessions: the last broadcast was held back because it repeated the one before (the half rate). */
  repeatSkipped = false;
  private readonly lists: EntryList[] = [];
  /** When each list's broadcast was sent (performance.now() ms; NaN: not sent), index for index with `lists`. */
  private readonly sentAtMs = new Float64Array(BASELINES_KEPT).fill(NaN);
  /** The round trip, timed from each acknowledgement to the broadcast of the list it names (round-trip.ts). */
  readonly roundTrip = new RoundTrip();
  /** The newest tick the client said it holds (0: the empty list). */
  private ackedTick = 0;
  /** What the last StateDelta or State sent said, for the idle rule. */
  lastSentTick = -1;
  lastCentreX = 0x7fffffff;
  lastCentreY = 0x7fffffff;
  readonly lastVersions = new Uint16Array(MANIFEST_ENTRIES);
  /** The tick of the session's latest scheduled step. */
  lastStepTick = -1;
  /**
   * Acknowledgements newer than the baseline that named a list the ring no longer holds: the client's round
   * trip is longer than the ring (a second). Each sets the baseline back to the empty list.
   */
  staleAcks = 0;

  constructor(compact = false) {
    this.compact = compact;
    for (let index = 0; index < BASELINES_KEPT; index++) this.lists.push(new EntryList(256, 16));
  }

  /**
   * The client holds the list of `tick` (an EntityAckPacket, arrived at `nowMs`). An older tick changes
   * nothing; a newer one the ring holds times the round trip; one the ring no longer holds is counted and makes
   * the empty list the baseline.
   */
  acknowledge(tick: number, nowMs: number): void {
    if (tick <= this.ackedTick) return;
    for (let index = 0; index < this.lists.length; index++) {
      if (this.lists[index].tick === tick) {
        this.ackedTick = tick;
        this.roundTrip.add(this.sentAtMs[index], nowMs);
        return;
      }
    }
    // A list the ring no longer holds: the client has moved past the baseline in force by more than a ring,
    // and keeps only so many lists — it may have let that one go, and every delta written against it would
    // be dropped for as long as its acknowledgements come this late. The empty list it always holds.
    this.staleAcks++;
    this.ackedTick = 0;
  }

  /** The list to write this broadcast's delta against: the acknowledged one, or the empty list (tick -1). */
  baseline(): EntryList {
    if (this.ackedTick > 0) {
      for (const list of this.lists) if (list.tick === this.ackedTick) return list;
    }
    return emptyEntryList();
  }

  /** A cleared list for this broadcast, sent at `sentAtMs`: the oldest one that is not the acknowledged baseline. */
  next(sentAtMs: number): EntryList {
    let oldest = -1;
    for (let index = 0; index < this.lists.length; index++) {
      const list = this.lists[index];
      if (list.tick === this.ackedTick && list.tick > 0) continue;
      if (oldest < 0 || list.tick < this.lists[oldest].tick) oldest = index;
    }
    // BASELINES_KEPT ≥ 2, so one is always free.
    const list = this.lists[oldest];
    list.clear();
    this.sentAtMs[oldest] = sentAtMs;
    return list;
  }

  /** Forgets a list that was filled but not sent (an idle broadcast skipped), so it is never taken for a baseline. */
  discard(list: EntryList): void {
    list.clear();
    this.sentAtMs[this.lists.indexOf(list)] = NaN;
  }
}
