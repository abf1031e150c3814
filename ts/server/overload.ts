// What a server does when it cannot keep its tick (issue 19, "Overload"; EVE
// Online's time dilation is the model). Two stages, in this order:
//
//   1. Shed NPC thinking. The think budget (npc/think-budget.ts) already bounds
//      what one entity tick may think; under load it is scaled down further,
//      to a floor, so the creatures farthest from players stop deciding first
//      and the players' own moves keep their windows.
//   2. Stretch the tick (time dilation). When the loop is still too busy — the
//      NPCs are shed as far as they go, or were never the cost — every tick's
//      period is lengthened, so the world runs slower, evenly, instead of
//      skipping ticks: a skipped tick skips a movement window (the steps sent
//      for it are moved late), and a burst of catch-up ticks is a burst of
//      broadcasts. A dilated world keeps every window and every broadcast; a
//      client's clock follows its rate (ts/client/core/server-clock.ts).
//
// The signal is the event loop's utilisation (performance.eventLoopUtilization:
// the share of wall time the main thread was not waiting for I/O), sampled once
// per tick and smoothed over about half a second. It counts everything the
// thread does — the tick, the datagrams between ticks, the kernel's share of
// sending them — which the tick's own timing does not. Each stage has
// hysteresis, so neither flaps at its threshold.

/** Utilisation (smoothed) above which NPC thinking is shed, and below which it is given back. */
export const SHED_ABOVE = 0.75;
export const RESTORE_BELOW = 0.6;
/** Smoothed utilisation above which the tick stretches; the stretch aims at TARGET_UTILISATION. */
export const DILATE_ABOVE = 0.9;
export const TARGET_UTILISATION = 0.8;
/** The think budget is never scaled below this share (the nearest creatures keep deciding). */
export const BUDGET_SCALE_FLOOR = 0.05;
/** Default largest stretch: 4× the period, 6 ticks a second at 24 Hz (a quarter of real time). */
export const DEFAULT_MAX_TICK_STRETCH = 4;
/** A sample above this (a stall) counts as this much: one stall must not stretch the tick to its limit. */
const MAX_SAMPLE = 2;
/** Smoothing of the utilisation: each tick's sample weighs this much (≈ 12 ticks, half a second). */
const SMOOTHING = 1 / 12;
/** Per tick: how fast the budget is shed and given back, and how fast the stretch moves. */
const SHED_FACTOR = 0.9;
const RESTORE_FACTOR = 1.03;
const STRETCH_RISE = 1.1;
const STRETCH_FALL = 0.98;

export interface OverloadState {
  /** The event loop's smoothed utilisation (0..1). */
  readonly utilisation: number;
  /** The think budget's scale (BUDGET_SCALE_FLOOR..1). */
  readonly npcBudgetScale: number;
  /** The tick period's stretch (1..maxStretch). */
  readonly stretch: number;
  /** The share of real time the world runs at: 1 / stretch (1 is full speed). */
  readonly dilation: number;
}

export class OverloadGovernor implements OverloadState {
  utilisation = 0;
  npcBudgetScale = 1;
  stretch = 1;
  /** Ticks run while stretched (any stretch above 1). */
  dilatedTicks = 0;
  private samples = 0;

  /** `maxStretch` 1: the tick never stretches (the loop skips ticks after a stall, as without a governor). */
  constructor(readonly maxStretch = DEFAULT_MAX_TICK_STRETCH) {
    if (!(maxStretch >= 1)) throw new RangeError(`the largest tick stretch must be at least 1, got ${maxStretch}`);
  }

  get dilation(): number {
    return 1 / this.stretch;
  }

  /**
   * After a tick: the event loop's busy time since the last call as a share of the tick's period (1: the
   * loop was busy a whole period; more when ticks ran back to back to catch up), and whether the NPCs are
   * a share of the load worth shedding (they spent budget this tick). Updates the budget scale and
   * the stretch the next period is scheduled with.
   */
  observe(utilisation: number, npcsThinking: boolean): void {
    const sample = Math.min(MAX_SAMPLE, Math.max(0, utilisation));
    // The first samples set the level, so a server that starts overloaded reacts within a few ticks.
    this.samples++;
    const weight = Math.max(SMOOTHING, 1 / this.samples);
    this.utilisation += (sample - this.utilisation) * weight;
    const load = this.utilisation;

    if (load > SHED_ABOVE && npcsThinking) {
      this.npcBudgetScale = Math.max(BUDGET_SCALE_FLOOR, this.npcBudgetScale * SHED_FACTOR);
    } else if (load < RESTORE_BELOW && this.stretch === 1) {
      // Given back only at full speed: the stretch goes first, the budget after it.
      this.npcBudgetScale = Math.min(1, this.npcBudgetScale * RESTORE_FACTOR + 0.001);
    }

    // Stage 2 only once stage 1 has nothing left to give: the budget at its floor, or no NPC thinking.
    // The busy time per tick is load × period: the stretch that makes it TARGET_UTILISATION of the tick.
    // It rises (at most 10 % a tick) while both the smoothed load and this tick's are above DILATE_ABOVE
    // — this tick's answers the last stretch at once, so the rise does not overshoot while the smoothed
    // figure catches up — and falls back toward the smoothed load's stretch (2 % a tick) once that is
    // below the target. Between the two it holds, so it does not flap.
    const shedAll = this.npcBudgetScale <= BUDGET_SCALE_FLOOR || !npcsThinking;
    if (load > DILATE_ABOVE && sample > DILATE_ABOVE && shedAll) {
      const wanted = Math.min(this.maxStretch, (this.stretch * sample) / TARGET_UTILISATION);
      if (wanted > this.stretch) this.stretch = Math.min(wanted, this.stretch * STRETCH_RISE);
    } else {
      const wanted = Math.max(1, (this.stretch * load) / TARGET_UTILISATION);
      if (wanted < this.stretch) this.stretch = Math.max(wanted, this.stretch * STRETCH_FALL);
    }
    if (this.stretch > 1) this.dilatedTicks++;
  }
}
