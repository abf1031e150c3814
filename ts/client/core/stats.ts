// Numbers for the debug overlay and the bots: traffic each way (totals and
// per second), an estimate of downstream loss from gaps in the StatePacket
// ticks, the client's own counters, and the snapshot type gathering every
// counter of the client (filled by readout.ts).
//
// Only States the protocol says were sent count as missing: on the seed's
// packets one every BROADCAST_EVERY_TICKS; on entity deltas, where the server
// holds back broadcasts that change nothing, never two further apart than
// IDLE_STATE_EVERY_TICKS (docs/protocol.md §§ 8.4, 8.5). Counting every
// broadcast's gap there read "loss 52 %" on clean loopback (issue 42).
import { BROADCAST_EVERY_TICKS, IDLE_STATE_EVERY_TICKS } from "../../constants.js";
import type { ConnectionState } from "./connection.js";
import type { TilePoint } from "./prediction.js";

/** What the debug overlay shows; a fresh object per read. */
export interface ClientStats {
  state: ConnectionState;
  transport: string;
  datagramsIn: number;
  datagramsOut: number;
  bytesIn: number;
  bytesOut: number;
  datagramsInPerSecond: number;
  datagramsOutPerSecond: number;
  bytesInPerSecond: number;
  bytesOutPerSecond: number;
  /**
   * Datagrams lost on the link, in percent: States missing from the tick sequence over the last few seconds
   * while the server sends one every broadcast (the seed's packets); once it sends entity deltas, which it
   * holds back while nothing changes, pings left unanswered (the last PING_LOSS_WINDOW).
   */
  lossPercent: number;
  /** What `lossPercent` is measured by. */
  lossFrom: "states" | "pings";
  /**
   * Downstream loss in States over the last few seconds, counting only those the protocol says were sent
   * (TrafficMeter.stateTick): on the seed's packets every one; on deltas exact while the view is idle (the
   * server then sends exactly every IDLE_STATE_EVERY_TICKS) and a lower bound while it changes.
   */
  stateLossPercent: number;
  statesReceived: number;
  statesMissed: number;
  rttMs: number;
  rttVarianceMs: number;
  /** Estimated server tick now (fractional), NaN before the first StatePacket. */
  serverTick: number;
  /** The server's tick rate as the clock follows it: the nominal one, or a dilated server's slower one. */
  serverTickHz: number;
  /** Tick of the newest entity state known to be held. */
  ackTick: number;
  confirmed: TilePoint | null;
  predicted: TilePoint | null;
  pendingSteps: number;
  stepsSent: number;
  /** Scheduled steps withdrawn by a NOOP because the plan changed. */
  retractions: number;
  chunksCached: number;
  chunkRequests: number;
  chunkRetransmits: number;
  keepAlives: number;
  corrections: number;
  replans: number;
  pingsSent: number;
  pongsReceived: number;
  queriesSent: number;
  decodeErrors: number;
  reconnects: number;
  gatewayMoves: number;
}

/** The client's own event counts (the parts count the rest themselves). */
export interface ClientCounters {
  stepsSent: number;
  /** Scheduled steps withdrawn by a NOOP because the plan changed. */
  retractions: number;
  keepAlives: number;
  decodeErrors: number;
  reconnects: number;
  /** Times the session went on through another gateway of its cluster (session-link.ts). */
  gatewayMoves: number;
}

export function createClientCounters(): ClientCounters {
  return { stepsSent: 0, retractions: 0, keepAlives: 0, decodeErrors: 0, reconnects: 0, gatewayMoves: 0 };
}

/**
 * States the server sent between two received at ticks `from` < `to` that did not arrive, as far as the
 * protocol says: the seed's packets come every BROADCAST_EVERY_TICKS, so every broadcast between was sent;
 * a delta session may be held back at any broadcast, but never for IDLE_STATE_EVERY_TICKS after the last
 * one sent, so a gap of G ticks held at least ⌈G / IDLE_STATE_EVERY_TICKS⌉ − 1 States.
 */
export function statesMissedBetween(from: number, to: number, onDeltas: boolean): number {
  const gap = to - from;
  if (onDeltas) return Math.max(0, Math.ceil(gap / IDLE_STATE_EVERY_TICKS) - 1);
  return Math.max(0, Math.round(gap / BROADCAST_EVERY_TICKS) - 1);
}

/** Per-second rate sampling period, and the loss estimate's horizon in periods. */
const RATE_PERIOD_MS = 1000;
const LOSS_PERIODS = 5;

export class TrafficMeter {
  datagramsIn = 0;
  datagramsOut = 0;
  bytesIn = 0;
  bytesOut = 0;
  datagramsInPerSecond = 0;
  datagramsOutPerSecond = 0;
  bytesInPerSecond = 0;
  bytesOutPerSecond = 0;
  statesReceived = 0;
  statesMissed = 0;
  private lastStateTick = -1;
  private periodStartMs = NaN;
  private readonly periodStart = { datagramsIn: 0, datagramsOut: 0, bytesIn: 0, bytesOut: 0 };
  private readonly lossHistory: { received: number; missed: number }[] = [];

  received(bytes: number): void {
    this.datagramsIn++;
    this.bytesIn += bytes;
  }

  sent(bytes: number): void {
    this.datagramsOut++;
    this.bytesOut += bytes;
  }

  /**
   * Whether the server sends this session entity deltas (§§ 8.4, 8.5), which it does for the session's
   * whole life once it starts: it then holds back a broadcast that repeats the last (the idle rate, the
   * half rate), so a gap in the ticks is loss only past the idle rate; lossPercent is measured by pings
   * (Pinger) then, and the States' count is a lower bound beside it.
   */
  onDeltas = false;

  /** A StateDelta or StateDeltaCompact arrived: from now on only gaps wider than the idle rate are loss. */
  deltasArrive(): void {
    this.onDeltas = true;
  }

  /**
   * A State (a StatePacket, or a StateDelta of either form) for `tick` arrived. Between it and the newest
   * before it, the States the server must have sent and the client did not get are counted missing: on
   * the seed's packets one every BROADCAST_EVERY_TICKS; on deltas at least one every
   * IDLE_STATE_EVERY_TICKS (statesMissedBetween).
   */
  stateTick(tick: number): void {
    this.statesReceived++;
    if (this.lastStateTick >= 0) {
      if (tick > this.lastStateTick) {
        this.statesMissed += statesMissedBetween(this.lastStateTick, tick, this.onDeltas);
      } else if (this.statesMissed > 0) {
        this.statesMissed--; // a reordered State counted missing arrived after all
      }
    }
    this.lastStateTick = Math.max(this.lastStateTick, tick);
  }

  /** Forgets the tick sequence (a new session numbers nothing differently, but its first State is no gap). */
  resetSequence(): void {
    this.lastStateTick = -1;
  }

  /** Updates the per-second rates once a period has passed. */
  roll(nowMs: number): void {
    if (Number.isNaN(this.periodStartMs)) {
      this.startPeriod(nowMs);
      return;
    }
    const elapsedMs = nowMs - this.periodStartMs;
    if (elapsedMs < RATE_PERIOD_MS) return;
    const perSecond = 1000 / elapsedMs;
    this.datagramsInPerSecond = (this.datagramsIn - this.periodStart.datagramsIn) * perSecond;
    this.datagramsOutPerSecond = (this.datagramsOut - this.periodStart.datagramsOut) * perSecond;
    this.bytesInPerSecond = (this.bytesIn - this.periodStart.bytesIn) * perSecond;
    this.bytesOutPerSecond = (this.bytesOut - this.periodStart.bytesOut) * perSecond;
    this.startPeriod(nowMs);
  }

  /** Missing States over the last LOSS_PERIODS periods, in percent of those expected. */
  get lossPercent(): number {
    const oldest = this.lossHistory[0];
    if (!oldest) return 0;
    const received = this.statesReceived - oldest.received;
    const missed = this.statesMissed - oldest.missed;
    return received + missed > 0 ? (100 * missed) / (received + missed) : 0;
  }

  private startPeriod(nowMs: number): void {
    this.periodStartMs = nowMs;
    this.periodStart.datagramsIn = this.datagramsIn;
    this.periodStart.datagramsOut = this.datagramsOut;
    this.periodStart.bytesIn = this.bytesIn;
    this.periodStart.bytesOut = this.bytesOut;
    this.lossHistory.push({ received: this.statesReceived, missed: this.statesMissed });
    if (this.lossHistory.length > LOSS_PERIODS) this.lossHistory.shift();
  }
}
