// A character that grows (issue 39; docs/combat.md § Experience and levels): the level curve, what a
// level is worth in a fight, and what a creature's death is worth in experience. One place for each
// rule: the server's combat room and its experience keeper apply them, the cluster's regions carry
// their inputs, and a client that wants to show a number (a bar, a level) finds the rule here.
//
// Experience only ever grows, and only by whole numbers: a kill of a creature (its kind's `xp`), a quest
// handed in, a script's grant. Nothing here reads a clock or draws a random number: the same kills and
// rewards make the same level on every run.

/** The highest level: experience past it still counts, but nothing grows any more. */
export const LEVEL_MAX = 20;
/** Experience the step from level L to L + 1 takes, per L: 50 to reach level 2, 100 more for 3, … */
export const XP_PER_LEVEL_STEP = 50;
/** The most experience a character holds (well within a u32 on the wire and a PostgreSQL bigint). */
export const XP_MAX = 2_000_000_000;
/** A level-1 character's hit points. */
export const HP_MAX_BASE = 100;
/** Hit points each level above the first adds: 195 at the cap, under twice a beginner's. */
export const HP_MAX_PER_LEVEL = 5;
/** Share of its damage each level above the first adds to a blow: ×1.475 at the cap. */
export const DAMAGE_PER_LEVEL = 0.025;

/**
 * The experience at which `level` begins: XP_PER_LEVEL_STEP · L · (L − 1) / 2 — 0, 50, 150, 300, 500, …,
 * 9,500 for the cap. Each step is longer than the last by the same amount, so the early levels come in a
 * few fights and the later ones take an evening each. `level` is clamped to 1 … LEVEL_MAX.
 */
export function xpForLevel(level: number): number {
  const l = Math.max(1, Math.min(LEVEL_MAX, Math.floor(level)));
  return (XP_PER_LEVEL_STEP * l * (l - 1)) / 2;
}

/** The level `xp` experience makes: the highest L ≤ LEVEL_MAX with xpForLevel(L) ≤ xp (1 for 0 or less). */
export function levelForXp(xp: number): number {
  let level = 1;
  while (level < LEVEL_MAX && xpForLevel(level + 1) <= xp) level++;
  return level;
}

/** The experience at which the level after `level` begins; 0 at the cap (there is none). */
export function nextLevelXp(level: number): number {
  return level >= LEVEL_MAX ? 0 : xpForLevel(level + 1);
}

/** A character's maximum hit points at `level`: HP_MAX_BASE + HP_MAX_PER_LEVEL · (level − 1). */
export function hpMaxAtLevel(level: number): number {
  const l = Math.max(1, Math.min(LEVEL_MAX, Math.floor(level)));
  return HP_MAX_BASE + HP_MAX_PER_LEVEL * (l - 1);
}

/** What `level` multiplies a blow's damage by: 1 + DAMAGE_PER_LEVEL · (level − 1); 1 for a creature (level 1). */
export function damageFactorAtLevel(level: number): number {
  const l = Math.max(1, Math.min(LEVEL_MAX, Math.floor(level)));
  return 1 + DAMAGE_PER_LEVEL * (l - 1);
}

/** `xp` after `gain` more, kept within 0 … XP_MAX (a gain is a whole number ≥ 0). */
export function addXp(xp: number, gain: number): number {
  return Math.min(XP_MAX, Math.max(0, xp) + Math.max(0, Math.floor(gain)));
}

/** What a creature's death is worth when its kind does not say: see killXpFor. */
export interface KillXpInputs {
  readonly hp: number;
  readonly attack: number;
  readonly armor: number;
}

/**
 * The experience a kill of a creature is worth when its kind gives no `xp`: the work of the fight, so a
 * host's new kind is worth something sensible without a number to tune. round(hp · (1 + attack / 4) ·
 * (10 + armor) / 40), at least 1 — the blows it takes (its hp, which its armor stretches by
 * (10 + armor) / 10, as the damage formula divides by it) times how much it hurts back (a quarter more per
 * point of its attack). The bundled kinds: a cave rat 2, a cave spider 10, a skeleton 20, the hall guard 66.
 */
export function killXpFor(kind: KillXpInputs): number {
  return Math.max(1, Math.round((kind.hp * (1 + kind.attack / 4) * (10 + kind.armor)) / 40));
}

/** What each member near a party's kill gains beyond an even split: a fifth more for every other member. */
export const PARTY_XP_BONUS = 0.2;

/**
 * Each sharer's experience from a kill worth `xp`, shared by `sharers` party members near it (1: the killer
 * alone, who gets it all): the kill's worth grown by PARTY_XP_BONUS per other member, split evenly, rounded
 * up — so playing together is never slower than alone per kill for the group (a rat of 3 shared by four
 * gives each 2, 8 in all), while each member levels slower than a killer alone (less than `xp` each
 * from 2 members on), which keeps the solo path worth taking.
 */
export function partyXpShare(xp: number, sharers: number): number {
  if (sharers <= 1) return xp;
  return Math.ceil((xp * (1 + PARTY_XP_BONUS * (sharers - 1))) / sharers);
}
