// Event-loop delay, in windows: how late timers fire is the best single measure
// of whether the server keeps up (a tick that runs late delays every client).
// perf_hooks' histogram accumulates forever, so it is read and reset every
// WINDOW_MS and the last complete window is what /api/status reports.
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";

const WINDOW_MS = 5000;
/** Sampling interval of the histogram, in ms. */
const RESOLUTION_MS = 10;

export interface DelaySummary {
  p50: number;
  p99: number;
  max: number;
  /** Length of the window these figures cover, in ms. */
  windowMs: number;
}

export class EventLoopDelay {
  private histogram: IntervalHistogram | null = null;
  private timer: NodeJS.Timeout | null = null;
  private last: DelaySummary = { p50: 0, p99: 0, max: 0, windowMs: 0 };

  start(): void {
    if (this.histogram) return;
    this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    this.histogram.enable();
    this.timer = setInterval(() => this.roll(), WINDOW_MS);
    this.timer.unref();
  }

  stop(): void {
    this.histogram?.disable();
    this.histogram = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The last complete window (zeros until one has passed). */
  get summary(): DelaySummary {
    return this.last;
  }

  private roll(): void {
    const h = this.histogram;
    if (!h) return;
    // The histogram records, in nanoseconds, the whole interval between samples, so an idle loop
    // reads as the resolution itself; the delay is what exceeds it.
    const delayMs = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
    this.last = {
      p50: delayMs(h.percentile(50)),
      p99: delayMs(h.percentile(99)),
      max: delayMs(h.max),
      windowMs: WINDOW_MS,
    };
    h.reset();
  }
}
