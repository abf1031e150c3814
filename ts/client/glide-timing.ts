// How long each entity's glide from tile to tile lasts (interpolation.ts), so
// that everything arrives on its tile just as its next step is due, whatever
// its pace: players step once per movement window (ts/window.ts); an NPC acts
// every actionIntervalMs(speed) of its kind (ts/action-points.ts, speeds from
// GET /api/world kinds); an NPC whose kind the world did not list is timed by
// its own measured pace, clamped between the fastest pace the model allows and
// a few windows (a pause between steps is not a slow walk).
import { actionIntervalMs, SPEED_MAX } from "../action-points.js";
import { windowPeriodMs } from "../window.js";
import { isNpcType, type NpcKind } from "./core/kinds.js";
import { type GlideMs, MEASURED_GLIDE, type MeasuredGlideBounds } from "./interpolation.js";

/** The longest glide a measured pace may give, in movement windows. */
const MEASURED_MAX_WINDOWS = 4;

export class GlideTiming {
  /** One movement window: a player's glide. */
  readonly windowMs: number;
  readonly measuredBounds: MeasuredGlideBounds;
  private readonly kindMs: ReadonlyMap<number, number>;

  constructor(tickHz: number, kinds: readonly NpcKind[]) {
    this.windowMs = windowPeriodMs(tickHz);
    this.measuredBounds = {
      minMs: actionIntervalMs(SPEED_MAX, tickHz),
      maxMs: MEASURED_MAX_WINDOWS * this.windowMs,
    };
    this.kindMs = new Map(kinds.map((kind) => [kind.typeId, actionIntervalMs(kind.speed, tickHz)]));
  }

  /** The glide for one step of an entity of `typeId`. */
  glideFor(typeId: number): GlideMs {
    if (!isNpcType(typeId)) return this.windowMs;
    return this.kindMs.get(typeId) ?? MEASURED_GLIDE;
  }
}
