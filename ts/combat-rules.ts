// What the server's combat room and the clients agree on about fighting: who
// a step into an occupied tile attacks (so a client predicts "no move" for a
// bump exactly where the server will attack), and the delays a client shows
// (the death screen's countdown). The damage formula itself is the server's
// alone (ts/server/combat/formula.ts): a client never needs to compute a hit.
import { isNpcType } from "./npc-types.js";
import { ENTITY_FLAG_INTERACTABLE } from "./protocol/entity.js";

/** Seconds a dead player waits before it stands again at a spawn point with full HP. */
export const PLAYER_RESPAWN_SECONDS = 5;
/**
 * Seconds a dead creature stays in view with hp 0 before it is removed: long enough that every
 * client sees the death in several entity updates (12 Hz) even under loss, short enough not to
 * clutter a fight. Its spawn's respawn time counts from its removal.
 */
export const CORPSE_SECONDS = 1.5;
/** Seconds without dealing or taking a blow after which HP regenerates. */
export const REGEN_DELAY_SECONDS = 6;
/** Share of hp_max regained per second out of combat (at least 1 HP). */
export const REGEN_PER_SECOND = 0.02;

/** Ratings stay within these: elo is a u16 on the wire, and a floor keeps a beginner's losses bounded. */
export const ELO_MIN = 100;
export const ELO_MAX = 0xffff;

/**
 * Whether a step of an attacker into a tile holding `target` is an attack on it instead of a
 * move (the roguelike bump): a living creature is, unless it is one you talk to (flagged
 * interactable: a merchant, a quest giver); a living player only where PvP holds at both tiles
 * (`pvpBoth`). A dead entity (hp 0) is never a foe: steps pass over corpses.
 */
export function isFoe(targetTypeId: number, targetHp: number, targetFlags: number, pvpBoth: boolean): boolean {
  if (targetHp <= 0) return false;
  if (isNpcType(targetTypeId)) return (targetFlags & ENTITY_FLAG_INTERACTABLE) === 0;
  return pvpBoth;
}
