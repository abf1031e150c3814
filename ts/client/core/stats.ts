// Numbers for the debug overlay and the bots: traffic each way (totals and
// per second), an estimate of downstream loss from gaps in the StatePacket
// ticks, the client's own counters, and the snapshot type gathering every
// counter of the client (filled by readout.ts).
import { BROADCAST_EVERY_TICKS } from "../../constants.js";
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
}

/** The client's own event counts (the parts count the rest themselves). */
export interface ClientCounters {
  stepsSent: number;
  /** Scheduled steps withdrawn by a NOOP because the plan changed. */
  retractions: number;
  keepAlives: number;
  decodeErrors: number;
  reconnects: number;
}

export function createClientCounters(): ClientCounters {
  return { stepsSent: 0, retractions: 0, keepAlives: 0, decodeErrors: 0, reconnects: 0 };
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
   * half rate), so a gap in the ticks is no loss, and the loss is measured by pings (Pinger).
   */
  onDeltas = false;

  /** A StateDelta or StateDeltaCompact arrived: from now on the tick gaps say nothing of loss. */
  deltasArrive(): void {
    this.onDeltas = true;
  }

  /**
   * A StatePacket for `tick` arrived: a session on the seed's packets gets one every BROADCAST_EVERY_TICKS
   * ticks, so its gaps are losses. (On a delta session the F3 overlay read "loss 52 %" on clean loopback.)
   */
  stateTick(tick: number): void {
    this.statesReceived++;
    if (this.lastStateTick >= 0 && !this.onDeltas) {
      if (tick > this.lastStateTick) {
        this.statesMissed += Math.max(0, Math.round((tick - this.lastStateTick) / BROADCAST_EVERY_TICKS) - 1);
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
