// Time dilation for a whole cluster (docs/scaling.md § Overload). The world's ticks are one timeline:
// a client rejects a State older than one it has seen, so a region that ran slower than its
// neighbours would fall behind them, and a player handed into it would see nothing until its ticks
// caught up. So regions do not dilate alone; the world does, together, as EVE slows a whole node.
//
// The timeline is a segment in Redis (`clock`: from wall time `startMs`, tick `tick` onwards, one tick
// every `periodMs`), first the shared epoch at the nominal rate. Each region's overload governor
// (ts/server/ops/overload.ts) computes the stretch it would want, and the region writes it down as a wish
// (`stretch:<region>`, with a TTL); the lowest live region reads the wishes and, when their largest
// differs from the stretch in force, publishes a new segment that starts LEAD_MS ahead, on a tick
// boundary of the old one, so every region reads it before it begins and switches at the same tick.
// Each region's tick loop takes its period from the segment in force at its current tick.
import type { OverloadGovernor } from "../server/ops/overload.js";
import type { TickGovernor } from "../server/ops/tick-loop.js";

/** A stretch of the world's timeline: tick `tick` at wall time `startMs`, then one tick every `periodMs`. */
export interface ClockSegment {
  readonly startMs: number;
  readonly tick: number;
  readonly periodMs: number;
}

/** How often a region writes its wish and reads the world's segment (the leader publishes then too). */
export const CLOCK_POLL_MS = 200;
/** A new segment begins this far ahead of its publication: every region reads it before it starts. */
export const LEAD_MS = 600;
/** Wishes this close to the stretch in force change nothing (no new segment for noise). */
export const STRETCH_TOLERANCE = 0.03;

/** The world's (fractional) tick at wall time `nowMs` on `segment`. */
export function tickAt(segment: ClockSegment, nowMs: number): number {
  return segment.tick + (nowMs - segment.startMs) / segment.periodMs;
}

/** The wall time tick `tick` is due on `segment`. */
export function deadlineOf(segment: ClockSegment, tick: number): number {
  return segment.startMs + (tick - segment.tick) * segment.periodMs;
}

/**
 * The segment the leader publishes when the wishes' largest stretch is `wanted`, or null when the one
 * in force (`current`) already runs at it. It starts on the first tick of `current` at least LEAD_MS
 * after `nowMs`.
 */
export function nextSegment(
  current: ClockSegment,
  wanted: number,
  nominalPeriodMs: number,
  nowMs: number,
): ClockSegment | null {
  const stretch = Math.max(1, wanted);
  const inForce = current.periodMs / nominalPeriodMs;
  // Within the tolerance nothing changes — except the way back to exactly the nominal rate.
  const home = stretch === 1 && inForce !== 1;
  if (!home && Math.abs(stretch - inForce) <= STRETCH_TOLERANCE * inForce) return null;
  const tick = Math.ceil(tickAt(current, nowMs + LEAD_MS));
  return { startMs: deadlineOf(current, tick), tick, periodMs: nominalPeriodMs * stretch };
}

/**
 * What a region's tick loop is governed by (tick-loop.ts's LoopGovernor.governor): the stretch of the
 * world's segment in force at the region's tick, while its own governor — fed by the loop as in one
 * process — keeps the stretch it would want, which the region writes down as its wish.
 */
export class WorldStretch implements TickGovernor {
  /** The segment in force, and the one published to start at a later tick (if any). */
  private current: ClockSegment;
  private upcoming: ClockSegment | null = null;

  constructor(
    readonly own: OverloadGovernor,
    first: ClockSegment,
    private readonly nominalPeriodMs: number,
    /** The region's current tick. */
    private readonly tick: () => number,
  ) {
    this.current = first;
  }

  /** The period's stretch at the region's tick (what TickLoop schedules by). */
  get stretch(): number {
    const upcoming = this.upcoming;
    // The period after tick T is the one of the segment in force at T (the segment's tick is its first).
    if (upcoming !== null && this.tick() >= upcoming.tick) {
      this.current = upcoming;
      this.upcoming = null;
    }
    return this.current.periodMs / this.nominalPeriodMs;
  }

  /** The segment in force now. */
  get segment(): ClockSegment {
    void this.stretch;
    return this.current;
  }

  /**
   * The world's (fractional) tick at wall time `nowMs`: on the segment in force at that time, whatever this
   * region's own tick. A region behind the start of a published segment still runs its ticks before that
   * start on the old one, but the timeline it is behind is the new one's: read on the old one, a longer
   * period published would put the timeline ahead of where it is, and a region rejoining it ahead.
   */
  timelineAt(nowMs: number): number {
    const upcoming = this.upcoming;
    return tickAt(upcoming !== null && nowMs >= upcoming.startMs ? upcoming : this.segment, nowMs);
  }

  /** The stretch this region would want (its wish). */
  get wish(): number {
    return this.own.stretch;
  }

  observe(tickPeriods: number, latePeriods: number, npcsThinking: boolean): void {
    this.own.observe(tickPeriods, latePeriods, npcsThinking);
  }

  /** A segment read from the directory: in force from its tick on (a newer one replaces one not begun). */
  follow(segment: ClockSegment): void {
    const known = this.upcoming ?? this.current;
    if (segment.tick === known.tick && segment.periodMs === known.periodMs && segment.startMs === known.startMs) return;
    if (segment.tick <= this.tick()) {
      this.current = segment;
      this.upcoming = null;
    } else {
      this.upcoming = segment;
    }
  }
}
