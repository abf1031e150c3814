// What a server does when it cannot keep its tick (issue 19, "Overload"; EVE
// Online's time dilation is the model). Two stages, in this order:
//
//   1. Shed NPC thinking. The think budget (npc/think-budget.ts) already bounds
//      what one entity tick may think; while the loop runs late it is scaled
//      down further, to a floor, so the creatures farthest from players stop
//      deciding first and the players' own moves keep their windows.
//   2. Stretch the tick (time dilation). When ticks still start late — the
//      NPCs are shed as far as they go, or were never the cost — and the tick's
//      own work is what does not fit, every tick's period is lengthened, so the
//      world runs slower, evenly, instead of skipping ticks: a skipped tick
//      skips a movement window (the steps sent for it are moved late), and a
//      burst of catch-up ticks is a burst of broadcasts. A dilated world keeps
//      every window and every broadcast; a client's clock follows its rate
//      (ts/client/core/server-clock.ts).
//
// Two signals, both per tick and smoothed over about half a second: how late
// the tick started against its deadline (the symptom: the loop is not keeping
// its rate), and how long the tick itself took against the nominal period (what
// a stretch can relieve). A loop that is late because of work between ticks —
// a flood of datagrams — is not dilated: a longer period would not help it, and
// would slow the world for nothing. Each stage has hysteresis, so neither flaps.

/** Smoothed lateness, in nominal periods, above which NPC thinking is shed, and below which it is given back. */
export const SHED_LATE_ABOVE = 0.5;
export const RESTORE_LATE_BELOW = 0.2;
/** Smoothed lateness, in nominal periods, above which the tick may stretch, and below which it may ease off. */
export const DILATE_LATE_ABOVE = 1;
export const RELEASE_LATE_BELOW = 0.5;
/** A stretched period is sized so the tick's own work fills this share of it (the rest for the datagrams). */
export const TARGET_TICK_SHARE = 0.85;
/**
 * The think budget is never scaled below this share: the nearest creatures keep deciding (at 2000
 * players, a quarter of the default budget is 500 units an entity tick, about 6000 decisions a second).
 */
export const BUDGET_SCALE_FLOOR = 0.25;
/** Default largest stretch: 4× the period, 6 ticks a second at 24 Hz (a quarter of real time). */
export const DEFAULT_MAX_TICK_STRETCH = 4;
/**
 * Raw lateness, in nominal periods, at which both stages act at once, well before the loop's catch-up
 * limit (tick-loop.ts skips ticks past 4 periods behind). The smoothed signals lag a step from idle to
 * overload by about 8 ticks: a tick of 1.8 periods or more ran 4 periods behind before they caught up,
 * and the loop skipped the very ticks dilation is there to keep (one of 1.46 came within a tick of it).
 */
export const EMERGENCY_LATE = 1.5;
/** Smoothing: each tick's sample weighs this much (≈ 8 ticks, a third of a second at 24 Hz). */
const SMOOTHING = 1 / 8;
/** A sample above this many periods (one stall) counts as this many: one stall must not stretch the tick far. */
const MAX_SAMPLE = 4;
/** Per tick: how fast the budget is shed and given back, and how fast the stretch moves. */
const SHED_FACTOR = 0.9;
const RESTORE_FACTOR = 1.03;
const STRETCH_RISE = 1.1;
const STRETCH_FALL = 0.98;

/** What status and /metrics report of overload control. */
export interface OverloadState {
  /** The tick's own work over the nominal period, smoothed (1: a tick takes a whole period). */
  readonly tickLoad: number;
  /** How late ticks start, in nominal periods, smoothed. */
  readonly lateness: number;
  /** The think budget's scale (BUDGET_SCALE_FLOOR..1). */
  readonly npcBudgetScale: number;
  /** The share of real time the world runs at: 1 / the stretch in force (1 is full speed). */
  readonly dilation: number;
  /** Ticks run with a stretched period. */
  readonly dilatedTicks: number;
}

export class OverloadGovernor {
  tickLoad = 0;
  lateness = 0;
  npcBudgetScale = 1;
  stretch = 1;
  /** Ticks run while stretched (any stretch above 1). */
  dilatedTicks = 0;
  private samples = 0;
  /** The last tick's work, in nominal periods. */
  private lastTickPeriods = 0;

  /** `maxStretch` 1: the tick never stretches (the loop skips ticks after a stall, as without a governor). */
  constructor(readonly maxStretch = DEFAULT_MAX_TICK_STRETCH) {
    if (!(maxStretch >= 1)) throw new RangeError(`the largest tick stretch must be at least 1, got ${maxStretch}`);
  }

  get dilation(): number {
    return 1 / this.stretch;
  }

  /**
   * After a tick: its work and how late it started, both in nominal periods, and whether NPC thinking
   * is part of the load (it spent budget this tick). Updates the budget scale and the stretch the
   * next period is scheduled with.
   */
  observe(tickPeriods: number, latePeriods: number, npcsThinking: boolean): void {
    // The first samples set the level, so a server that starts overloaded reacts within a few ticks.
    this.samples++;
    const weight = Math.max(SMOOTHING, 1 / this.samples);
    this.tickLoad += (clamp(tickPeriods) - this.tickLoad) * weight;
    this.lateness += (clamp(latePeriods) - this.lateness) * weight;
    const late = this.lateness;
    // Late, and the work of this tick and the one before did not fit the period: the lateness will keep
    // growing. A stall between ticks (a busy host) is late too, but its ticks fit; one long tick (a GC
    // pause) is one: both are left to the smoothed signals, so one stall does not stretch the tick.
    const sustained = Math.min(tickPeriods, this.lastTickPeriods);
    this.lastTickPeriods = tickPeriods;
    const emergency = latePeriods >= EMERGENCY_LATE && sustained > this.stretch;

    if (emergency && npcsThinking) {
      this.npcBudgetScale = BUDGET_SCALE_FLOOR;
    } else if (late > SHED_LATE_ABOVE && npcsThinking) {
      this.npcBudgetScale = Math.max(BUDGET_SCALE_FLOOR, this.npcBudgetScale * SHED_FACTOR);
    } else if (late < RESTORE_LATE_BELOW && this.stretch === 1) {
      // Given back only at full speed: the stretch goes first, the budget after it.
      this.npcBudgetScale = Math.min(1, this.npcBudgetScale * RESTORE_FACTOR + 0.001);
    }

    // Stage 2 only once stage 1 has nothing left to give: the budget at its floor, or no NPC thinking.
    // The stretch the tick's work asks for rises (at most 10 % a tick) while ticks run late, and falls
    // back toward it (2 % a tick) once they start on time; between the two it holds.
    const wanted = Math.min(this.maxStretch, Math.max(1, this.tickLoad / TARGET_TICK_SHARE));
    const shedAll = this.npcBudgetScale <= BUDGET_SCALE_FLOOR || !npcsThinking;
    if (emergency && shedAll) {
      // What the last two ticks asked, not the smoothed load still catching up with them.
      this.stretch = Math.min(this.maxStretch, Math.max(this.stretch, wanted, clamp(sustained) / TARGET_TICK_SHARE));
    } else if (late > DILATE_LATE_ABOVE && shedAll && wanted > this.stretch) {
      this.stretch = Math.min(wanted, this.stretch * STRETCH_RISE);
    } else if (late < RELEASE_LATE_BELOW && wanted < this.stretch) {
      this.stretch = Math.max(wanted, this.stretch * STRETCH_FALL);
    }
    if (this.stretch > 1) this.dilatedTicks++;
  }
}

function clamp(periods: number): number {
  return Math.min(MAX_SAMPLE, Math.max(0, periods));
}
