// The damage formula, the one place it lives (docs/combat.md gives its reasons).
//
// Inputs are what the wire already carries or the data files give: the
// attacker's and defender's `elo` (their rating), the attacker's level (a
// player's experience makes it, ts/progression.ts; a creature fights at 1),
// the attacker's weapon damage and the defender's armor (from the weapon/armor
// TLVs through the item data, or a kind's natural values), and two uniform
// draws from the combat room's seeded stream — so a fight replays exactly
// from its seed.
//
//   Δ        = clamp((elo_a − elo_d) / 400, −1, 1)     the Elo scale: 400 points ≈ ten-to-one odds
//   p_hit    = clamp(0.80 + 0.15 · Δ, 0.50, 0.95)      a miss is possible at any rating, never certain
//   spread   = 0.5 + u₂                                 ±50 % around the weapon's damage
//   rating   = 2^Δ                                      from ½× to 2× by rating difference
//   armor    = 10 / (10 + armor)                        each armor point absorbs less than the last
//   level    = 1 + 0.025 · (level_a − 1)                a little more per level, ×1.475 at the cap
//   damage   = max(1, round(weapon · spread · rating · armor · level))   a hit always hurts
import { ELO_MAX, ELO_MIN } from "../../combat-rules.js";
import { damageFactorAtLevel } from "../../progression.js";

/** The Elo scale's spread: a rating 400 points higher expects to win ten times as often. */
const ELO_SCALE = 400;
/** Most a rating moves in one kill (the Elo K-factor of club play). */
export const ELO_K = 32;

export interface Blow {
  /** Whether the attack hit; a miss deals nothing. */
  hit: boolean;
  /** HP taken from the defender, 0 on a miss, at least 1 on a hit. */
  damage: number;
}

/** Δ: the rating difference on the Elo scale, −1 … 1. */
function ratingDelta(attackerElo: number, defenderElo: number): number {
  return Math.max(-1, Math.min(1, (attackerElo - defenderElo) / ELO_SCALE));
}

/** The chance that an attack hits, 0.5 … 0.95. */
export function hitChance(attackerElo: number, defenderElo: number): number {
  return Math.max(0.5, Math.min(0.95, 0.8 + 0.15 * ratingDelta(attackerElo, defenderElo)));
}

/**
 * One attack. `hitDraw` and `spreadDraw` are uniform in [0, 1) from the room's seeded stream
 * (passed in so this stays a pure function and a test can pin every branch); `attackerLevel` the
 * attacker's level (1 for a creature).
 */
export function resolveBlow(
  attackerElo: number,
  defenderElo: number,
  weaponDamage: number,
  defenderArmor: number,
  hitDraw: number,
  spreadDraw: number,
  attackerLevel = 1,
): Blow {
  if (hitDraw >= hitChance(attackerElo, defenderElo)) return { hit: false, damage: 0 };
  const delta = ratingDelta(attackerElo, defenderElo);
  const raw =
    weaponDamage *
    (0.5 + spreadDraw) *
    2 ** delta *
    (10 / (10 + Math.max(0, defenderArmor))) *
    damageFactorAtLevel(attackerLevel);
  return { hit: true, damage: Math.max(1, Math.round(raw)) };
}

/** The Elo expectation that a player rated `a` beats one rated `b`. */
export function expectedScore(a: number, b: number): number {
  return 1 / (1 + 10 ** ((b - a) / ELO_SCALE));
}

/**
 * A kill as an Elo game the killer won: the killer gains K · (1 − E), the victim loses the same.
 * Returns the killer's and the victim's new ratings, clamped to ELO_MIN … ELO_MAX. Beating a far
 * weaker foe gains almost nothing, so farming rats levels nobody far.
 */
export function eloAfterKill(killerElo: number, victimElo: number): { killer: number; victim: number } {
  const change = Math.round(ELO_K * (1 - expectedScore(killerElo, victimElo)));
  return {
    killer: Math.min(ELO_MAX, killerElo + change),
    victim: Math.max(ELO_MIN, victimElo - change),
  };
}
