// The level curve and what a level is worth (ts/progression.ts, docs/combat.md § Experience and levels):
// the documented numbers pinned, and the properties that make the curve sensible — a level never falls as
// experience grows, each step is longer than the last, the cap holds, and the gains stay small.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addXp,
  damageFactorAtLevel,
  hpMaxAtLevel,
  killXpFor,
  LEVEL_MAX,
  levelForXp,
  nextLevelXp,
  XP_MAX,
  xpForLevel,
} from "../ts/progression.js";
import { CAVE_NPC_KINDS } from "../ts/server/map/caves-npcs.js";

describe("the level curve", () => {
  it("begins each level at 50 · L · (L − 1) / 2: 0, 50, 150, 300, 500 … 9,500 at the cap", () => {
    expect([1, 2, 3, 4, 5, 10, LEVEL_MAX].map(xpForLevel)).toEqual([0, 50, 150, 300, 500, 2250, 9500]);
    expect(levelForXp(0)).toBe(1);
    expect(levelForXp(49)).toBe(1);
    expect(levelForXp(50)).toBe(2);
    expect(levelForXp(149)).toBe(2);
    expect(levelForXp(150)).toBe(3);
    expect(levelForXp(9499)).toBe(19);
    expect(levelForXp(9500)).toBe(LEVEL_MAX);
    expect(levelForXp(XP_MAX)).toBe(LEVEL_MAX);
    expect(nextLevelXp(1)).toBe(50);
    expect(nextLevelXp(19)).toBe(9500);
    expect(nextLevelXp(LEVEL_MAX)).toBe(0);
  });

  it("never falls as experience grows, and each step is 50 longer than the one before", () => {
    fc.assert(
      fc.property(fc.nat({ max: 20_000 }), fc.nat({ max: 500 }), (xp, more) => {
        expect(levelForXp(xp + more)).toBeGreaterThanOrEqual(levelForXp(xp));
        const level = levelForXp(xp);
        expect(xpForLevel(level)).toBeLessThanOrEqual(xp);
        if (level < LEVEL_MAX) expect(nextLevelXp(level)).toBeGreaterThan(xp);
      }),
    );
    for (let level = 2; level < LEVEL_MAX; level++) {
      const step = xpForLevel(level + 1) - xpForLevel(level);
      expect(step - (xpForLevel(level) - xpForLevel(level - 1))).toBe(50);
    }
  });

  it("adds whole, non-negative gains and holds at XP_MAX", () => {
    expect(addXp(10, 5)).toBe(15);
    expect(addXp(10, -5)).toBe(10);
    expect(addXp(10, 2.9)).toBe(12);
    expect(addXp(XP_MAX - 1, 10)).toBe(XP_MAX);
  });
});

describe("what a level is worth", () => {
  it("5 hit points and 2.5 % of a blow's damage per level above the first, capped with the level", () => {
    expect(hpMaxAtLevel(1)).toBe(100);
    expect(hpMaxAtLevel(2)).toBe(105);
    expect(hpMaxAtLevel(LEVEL_MAX)).toBe(195);
    expect(hpMaxAtLevel(LEVEL_MAX + 10)).toBe(195);
    expect(damageFactorAtLevel(1)).toBe(1);
    expect(damageFactorAtLevel(5)).toBeCloseTo(1.1);
    expect(damageFactorAtLevel(LEVEL_MAX)).toBeCloseTo(1.475);
    expect(damageFactorAtLevel(99)).toBeCloseTo(1.475);
  });
});

describe("what a kill is worth", () => {
  it("a kind without xp is worth the work of its fight: hp, stretched by armor, times how hard it bites", () => {
    expect(killXpFor({ hp: 8, attack: 0, armor: 0 })).toBe(2);
    expect(killXpFor({ hp: 20, attack: 3, armor: 1 })).toBe(10);
    expect(killXpFor({ hp: 30, attack: 4, armor: 3 })).toBe(20);
    expect(killXpFor({ hp: 60, attack: 7, armor: 6 })).toBe(66);
    expect(killXpFor({ hp: 1, attack: 0, armor: 0 })).toBe(1);
  });

  it("the bundled kinds: the fighters worth their fight, the people of the hall nothing", () => {
    const xp = Object.fromEntries(CAVE_NPC_KINDS.map((kind) => [kind.name, kind.xp]));
    expect(xp).toMatchObject({ "cave rat": 3, "cave spider": 10, skeleton: 20, "Mira the merchant": 0, "Old Tom": 0 });
  });
});
