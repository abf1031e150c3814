// The action-point model (roadmap 06), shared by the server's simulation and
// the clients that draw it. Every entity has `energy` and a `speed`: each
// entity tick adds `speed` to `energy`, and the entity acts (one step, one
// decision) when energy >= ACTION_COST, paying ACTION_COST and keeping the
// rest, so a speed that does not divide ACTION_COST still averages out exactly.
// Energy stops growing at energyCap(speed): an entity kept waiting (a shed NPC)
// keeps its remainder but never banks a second action.
//
// Entity ticks run on every ENTITY_TICK_EVERY-th simulation tick: 12 Hz at the
// default 24 Hz. A player's speed is PLAYER_SPEED, exactly one action per
// movement window of TICKS_PER_MOVE ticks — which is the window schedule
// players already run on (target_tick, horizon 3; ts/window.ts), so players
// keep that schedule and the protocol is untouched; NPCs spend their energy
// in the server's NPC room (ts/server/npc). See docs/netcode.md § Action points.
import { TICKS_PER_MOVE } from "./constants.js";

/** Entity ticks fall on every 2nd simulation tick (12 Hz at 24 Hz)... */
export const ENTITY_TICK_EVERY = 2;
/**
 * ...the odd ones: movement windows execute on ticks 0 mod TICKS_PER_MOVE (ts/window.ts), so the players'
 * moves and the NPCs' — the two largest pieces of periodic work besides the broadcast — never share a tick,
 * and the slowest tick carries one of them rather than both (docs/netcode.md § Action points).
 */
export const ENTITY_TICK_OFFSET = 1;
/** Energy one action costs. */
export const ACTION_COST = 100;
/** A player's speed: one action per movement window (50 at 2 entity ticks per window). */
export const PLAYER_SPEED = (ACTION_COST * ENTITY_TICK_EVERY) / TICKS_PER_MOVE;
/** Speeds a kind may have: 1 (one action per 100 entity ticks) .. ACTION_COST (one per entity tick). */
export const SPEED_MIN = 1;
export const SPEED_MAX = ACTION_COST;

/** The most energy an entity of `speed` holds: one action plus less than one tick's gain, never two actions. */
export function energyCap(speed: number): number {
  return ACTION_COST + speed - 1;
}

/** Whether simulation tick `tick` is an entity tick. */
export function isEntityTick(tick: number): boolean {
  return tick % ENTITY_TICK_EVERY === ENTITY_TICK_OFFSET;
}

/** The entity tick that simulation tick `tick` (an entity tick) is. */
export function entityTickOf(tick: number): number {
  return Math.floor(tick / ENTITY_TICK_EVERY);
}

/** Average milliseconds between two actions of an entity of `speed`, at `tickHz` simulation ticks per second. */
export function actionIntervalMs(speed: number, tickHz: number): number {
  return ((ACTION_COST / speed) * ENTITY_TICK_EVERY * 1000) / tickHz;
}
