// Event-loop delay, in windows: how late timers fire is the best single measure
// of whether the server keeps up (a tick that runs late delays every client).
// perf_hooks' histogram accumulates forever, so it is read and reset every
// WINDOW_MS and the last complete window is what /api/status reports.
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";

const WINDOW_MS = 5000;

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
    this.histogram = monitorEventLoopDelay({ resolution: 10 });
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
    // The histogram records nanoseconds.
    this.last = { p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6, windowMs: WINDOW_MS };
    h.reset();
  }
}
