// The soak's once-a-second samples folded into the report's figures: the
// server's status (tick lateness and duration, event-loop delay, ticks run
// against the wall clock), its CPU and RSS, the machine's CPU, and the honest
// bots' state and RTT. Each sample can also be written as a timeline row, which
// is how a late tick is told apart as the server's own work or starvation.
import { availableParallelism } from "node:os";
import { DurationHistogram, percentile } from "../../bots/figures.js";
import type { Bot } from "../../bots/swarm.js";
import type { SoakFigures, TickFigures } from "./report.js";
import { machineCpuTicks, type ServerStatus } from "./server-process.js";

const TICK_HZ = 24;

export const TIMELINE_HEADER =
  "elapsed_s,tick_late_p99_ms,tick_late_max_ms,tick_max_ms,loop_p99_ms,loop_max_ms,datagrams_in_per_s," +
  "server_cpu_share,machine_cpu_share,status_ms,bots_playing";

/** The server side: one status, CPU and RSS reading a second. */
export class ServerSamples {
  last: ServerStatus;
  private lastAtMs: number;
  private cpuLastMs: number;
  private readonly lateP99: number[] = [];
  readonly statusMs: number[] = [];
  private lateMax = 0;
  private tickP99Worst = 0;
  private tickMax = 0;
  private loopP99Worst = 0;
  private loopMax = 0;
  rssMaxMiB: number;
  private machineLast = machineCpuTicks();
  private readonly cores = availableParallelism();
  /** The newest sample as a timeline row (without the bots' column). */
  row = "";

  constructor(
    readonly first: ServerStatus,
    private readonly firstAtMs: number,
    private readonly cpuFirstMs: number,
    rssStartMiB: number,
  ) {
    this.last = first;
    this.lastAtMs = firstAtMs;
    this.cpuLastMs = cpuFirstMs;
    this.rssMaxMiB = rssStartMiB;
  }

  /** A status that answered `statusMs` after it was asked, read at `atMs`, with the server's CPU time and RSS then. */
  add(status: ServerStatus, atMs: number, statusMs: number, cpuMs: number, rssMiB: number): void {
    const spanS = Math.max(0.001, (atMs - this.lastAtMs) / 1000);
    // The server's CPU and the machine's over the same second: a late tick while the machine is saturated is starvation.
    const machine = machineCpuTicks();
    const machineShare =
      ((machine.busy - this.machineLast.busy) / Math.max(1, machine.total - this.machineLast.total)) * this.cores;
    this.row = [
      ((atMs - this.firstAtMs) / 1000).toFixed(1),
      status.tickLateMs.p99.toFixed(1),
      status.tickLateMs.max.toFixed(1),
      status.tickMs.max.toFixed(1),
      status.eventLoopDelayMs.p99.toFixed(1),
      status.eventLoopDelayMs.max.toFixed(1),
      Math.round((status.datagramsIn - this.last.datagramsIn) / spanS),
      ((cpuMs - this.cpuLastMs) / 1000 / spanS).toFixed(2),
      machineShare.toFixed(2),
      statusMs.toFixed(1),
    ].join(",");
    this.machineLast = machine;
    this.statusMs.push(statusMs);
    this.last = status;
    this.lastAtMs = atMs;
    this.cpuLastMs = cpuMs;
    this.rssMaxMiB = Math.max(this.rssMaxMiB, rssMiB);
    this.lateP99.push(status.tickLateMs.p99);
    this.lateMax = Math.max(this.lateMax, status.tickLateMs.max);
    this.tickP99Worst = Math.max(this.tickP99Worst, status.tickMs.p99);
    this.tickMax = Math.max(this.tickMax, status.tickMs.max);
    this.loopP99Worst = Math.max(this.loopP99Worst, status.eventLoopDelayMs.p99);
    this.loopMax = Math.max(this.loopMax, status.eventLoopDelayMs.max);
  }

  /** A status request that got no answer: it counts as the worst answer time. */
  unanswered(rssMiB: number): void {
    this.statusMs.push(Number.POSITIVE_INFINITY);
    this.rssMaxMiB = Math.max(this.rssMaxMiB, rssMiB);
  }

  /** Ticks the wall clock says were due between the first and the newest sample. */
  private expectedTicks(): number {
    return Math.round(((this.lastAtMs - this.firstAtMs) * TICK_HZ) / 1000);
  }

  lostTicks(): number {
    return Math.max(0, this.expectedTicks() - (this.last.tick - this.first.tick));
  }

  ticks(): TickFigures {
    return {
      lateP99Median: percentile(this.lateP99, 50),
      lateP99Worst: this.lateP99.length > 0 ? Math.max(...this.lateP99) : Number.NaN,
      lateMax: this.lateMax,
      tickP99Worst: this.tickP99Worst,
      tickMax: this.tickMax,
      loopP99Worst: this.loopP99Worst,
      loopMax: this.loopMax,
      expected: this.expectedTicks(),
      run: this.last.tick - this.first.tick,
      skipped: this.last.ticksSkipped - this.first.ticksSkipped,
    };
  }

  /** The server's CPU over the samples; `kernelReceiveDrops` is measured by the caller over the same span. */
  cpu(kernelReceiveDrops: number): SoakFigures["serverCpu"] {
    const first = this.first;
    const last = this.last;
    const datagramsIn = last.datagramsIn - first.datagramsIn;
    const cpuMs = this.cpuLastMs - this.cpuFirstMs;
    const firstBatches = first.udp?.receiveBatches;
    const lastBatches = last.udp?.receiveBatches;
    return {
      shareOfCore: cpuMs / Math.max(1, this.lastAtMs - this.firstAtMs),
      microsPerDatagram: datagramsIn > 0 ? (cpuMs * 1000) / datagramsIn : Number.NaN,
      datagramsPerBatch:
        firstBatches !== undefined && lastBatches !== undefined
          ? datagramsIn / Math.max(1, lastBatches - firstBatches)
          : Number.NaN,
      kernelReceiveDrops,
    };
  }

  statusFigures(): SoakFigures["statusMs"] {
    const statusMs = this.statusMs;
    return {
      p50: percentile(statusMs, 50),
      p90: percentile(statusMs, 90),
      p99: percentile(statusMs, 99),
      max: statusMs.length > 0 ? Math.max(...statusMs) : Number.NaN,
    };
  }
}

/** The honest bots: how many play, and each playing bot's smoothed RTT once a second. */
export class BotSamples {
  readonly rtt = new DurationHistogram();
  rttMaxMs = 0;
  playing = 0;
  playingMin: number;

  constructor(count: number) {
    this.playingMin = count;
  }

  add(bots: readonly Bot[]): void {
    let playing = 0;
    for (const bot of bots) {
      const stats = bot.client.stats;
      if (stats.state !== "playing") continue;
      playing++;
      if (stats.pongsReceived > 0) {
        this.rtt.add(stats.rttMs);
        this.rttMaxMs = Math.max(this.rttMaxMs, stats.rttMs);
      }
    }
    this.playing = playing;
    this.playingMin = Math.min(this.playingMin, playing);
  }
}
