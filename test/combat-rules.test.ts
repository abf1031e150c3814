// The combat formula, the Elo update and the PvP zones as pure rules: every
// branch pinned with chosen draws, and the properties that make the numbers
// sensible (monotone in level, a hit always hurts, ratings bounded); and the
// room's memory of who is fighting stays bounded (a Game stepped by hand).
import { ENTITY_FLAG_HOSTILE, ENTITY_FLAG_INTERACTABLE } from "../ts/protocol/entity.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ELO_MAX, ELO_MIN, REGEN_DELAY_SECONDS, isFoe } from "../ts/combat-rules.js";
import { ACTION_E } from "../ts/protocol/action.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import { loadCore } from "../ts/wasm/node.js";
import { testKind, writeNpcMap } from "./support/npc-map.js";
import { eloAfterKill, expectedScore, hitChance, resolveBlow } from "../ts/server/combat/formula.js";
import { PvpRule } from "../ts/server/combat/pvp-rule.js";
import { mapPvpOf, safeZonesOf } from "../ts/server/content/safe-zones.js";
import { MapError } from "../ts/server/content/map-error.js";
import type { MapObject } from "../ts/server/content/map-object.js";

const elo = fc.integer({ min: ELO_MIN, max: 3000 });
const draw = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe("the damage formula", () => {
  it("equal levels: 80 % to hit; the spread is ±50 % around the weapon; armor 10 halves it", () => {
    expect(hitChance(1000, 1000)).toBeCloseTo(0.8);
    expect(resolveBlow(1000, 1000, 10, 0, 0.79, 0.5)).toEqual({ hit: true, damage: 10 });
    expect(resolveBlow(1000, 1000, 10, 0, 0.8, 0.5)).toEqual({ hit: false, damage: 0 });
    expect(resolveBlow(1000, 1000, 10, 0, 0, 0)).toEqual({ hit: true, damage: 5 });
    expect(resolveBlow(1000, 1000, 10, 0, 0, 0.999)).toEqual({ hit: true, damage: 15 });
    expect(resolveBlow(1000, 1000, 10, 10, 0, 0.5)).toEqual({ hit: true, damage: 5 });
  });

  it("400 points above doubles the damage and hits 95 %; 400 below halves it and hits 65 %; beyond that it is capped", () => {
    expect(resolveBlow(1400, 1000, 10, 0, 0, 0.5).damage).toBe(20);
    expect(resolveBlow(600, 1000, 10, 0, 0, 0.5).damage).toBe(5);
    expect(resolveBlow(3000, 1000, 10, 0, 0, 0.5).damage).toBe(20);
    expect(hitChance(1400, 1000)).toBeCloseTo(0.95);
    expect(hitChance(600, 1000)).toBeCloseTo(0.65);
    expect(hitChance(100, 3000)).toBeCloseTo(0.65);
  });

  it("the attacker's level adds 2.5 % a level (issue 39): ×1.1 at level 5, ×1.475 at the cap and above; never the hit chance", () => {
    expect(resolveBlow(1000, 1000, 10, 0, 0, 0.5, 1).damage).toBe(10);
    expect(resolveBlow(1000, 1000, 20, 0, 0, 0.5, 5).damage).toBe(22);
    expect(resolveBlow(1000, 1000, 20, 0, 0, 0.5, 20).damage).toBe(30); // 29.5
    expect(resolveBlow(1000, 1000, 20, 0, 0, 0.5, 99).damage).toBe(30);
    expect(resolveBlow(1000, 1000, 20, 0, 0.8, 0.5, 20)).toEqual({ hit: false, damage: 0 });
  });

  it("a hit always hurts, a miss never does, and more level never means less damage", () => {
    fc.assert(
      fc.property(
        elo,
        elo,
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 1000 }),
        draw,
        draw,
        (a, d, w, armor, h, s) => {
          const blow = resolveBlow(a, d, w, armor, h, s);
          expect(blow.hit ? blow.damage >= 1 : blow.damage === 0).toBe(true);
          const stronger = resolveBlow(a + 100, d, w, armor, 0, s);
          expect(stronger.damage).toBeGreaterThanOrEqual(resolveBlow(a, d, w, armor, 0, s).damage);
          expect(hitChance(a, d)).toBeGreaterThanOrEqual(0.5);
          expect(hitChance(a, d)).toBeLessThanOrEqual(0.95);
        },
      ),
    );
  });
});

describe("the Elo update of a kill", () => {
  it("equal ratings move by K/2 = 16; beating a far weaker foe gains almost nothing", () => {
    expect(eloAfterKill(1000, 1000)).toEqual({ killer: 1016, victim: 984 });
    expect(eloAfterKill(1000, 800).killer).toBe(1008);
    expect(eloAfterKill(2000, 800).killer).toBe(2000);
    expect(eloAfterKill(800, 1200).killer).toBe(800 + 29);
  });

  it("conserves rating within the bounds, and never leaves ELO_MIN … ELO_MAX", () => {
    fc.assert(
      fc.property(fc.integer({ min: ELO_MIN, max: ELO_MAX }), fc.integer({ min: ELO_MIN, max: ELO_MAX }), (k, v) => {
        const after = eloAfterKill(k, v);
        expect(after.killer).toBeGreaterThanOrEqual(k);
        expect(after.victim).toBeLessThanOrEqual(v);
        expect(after.killer).toBeLessThanOrEqual(ELO_MAX);
        expect(after.victim).toBeGreaterThanOrEqual(ELO_MIN);
        expect(expectedScore(k, v) + expectedScore(v, k)).toBeCloseTo(1);
      }),
    );
  });
});

describe("who a bump attacks", () => {
  it("a living creature but one you talk to; a living player only where PvP holds; never a corpse", () => {
    expect(isFoe(16, 5, 0, false)).toBe(true);
    expect(isFoe(16, 5, ENTITY_FLAG_HOSTILE, false)).toBe(true);
    expect(isFoe(16, 5, ENTITY_FLAG_INTERACTABLE, false)).toBe(false); // a merchant, a quest giver
    expect(isFoe(16, 0, 0, false)).toBe(false);
    expect(isFoe(0, 100, 0, false)).toBe(false);
    expect(isFoe(0, 100, 0, true)).toBe(true);
    expect(isFoe(0, 0, 0, true)).toBe(false);
    expect(isFoe(3, 0, 0, false)).toBe(false); // a sign post
  });
});

describe("PvP zones", () => {
  const object = (fields: Partial<MapObject>): MapObject => ({
    id: 7,
    name: "hall",
    type: "safe_zone",
    layer: "zones",
    x: 2,
    y: 3,
    width: 4,
    height: 2,
    point: false,
    properties: {},
    ...fields,
  });

  it("reads safe_zone rectangles (any case) and the map's pvp switch", () => {
    const zones = safeZonesOf(
      [object({}), object({ id: 8, type: "SAFE_ZONE", x: 20 }), object({ type: "spawn" })],
      "m.tmj",
    );
    expect(zones.map((zone) => zone.objectId)).toEqual([7, 8]);
    const rule = new PvpRule(true, zones);
    expect(rule.allowsAt(1, 3)).toBe(true);
    expect(rule.allowsAt(2, 3)).toBe(false);
    expect(rule.allowsAt(5, 4)).toBe(false);
    expect(rule.allowsAt(6, 4)).toBe(true);
    expect(new PvpRule(false, zones).allowsAt(1, 3)).toBe(false);
    expect(mapPvpOf({ pvp: true }, "m.tmj")).toBe(true);
    expect(mapPvpOf({}, "m.tmj")).toBeNull();
  });

  it("refuses a point, an unknown property and a pvp property that is not a bool, naming the object", () => {
    expect(() => safeZonesOf([object({ point: true })], "m.tmj")).toThrow(
      /safe_zone object 7 \("hall"\): a safe zone is a rectangle/,
    );
    expect(() => safeZonesOf([object({ properties: { pvp: true } })], "m.tmj")).toThrow(/unknown property "pvp"/);
    expect(() => mapPvpOf({ pvp: "yes" }, "m.tmj")).toThrow(MapError);
  });
});

describe("the combat room's memory", () => {
  it("forgets a fighter once the regeneration delay has passed, even one that left mid-fight", async () => {
    const npcMap = writeNpcMap({
      width: 12,
      height: 8,
      spawn: { x: 4, y: 4 },
      kinds: [testKind({ name: "dummy", typeId: 16, wander: 0, hp: 5000 })],
      spawns: [{ kind: "dummy", x: 5, y: 4 }],
    });
    const game = new Game(await loadCore(), npcMap.map, {}, new Logger("silent"));
    try {
      const session = game.join("Ann");
      // The game is stepped by hand (no tick loop, no network): bump east in every window for two seconds.
      for (let tick = 0; tick < 48; tick++) {
        session.entity.slots.offer(game.tick + 4, ACTION_E, game.nextWindow);
        game.step();
      }
      expect(game.combat.stats.attacks).toBeGreaterThan(0);
      expect(game.combat.fighting).toBe(2);
      game.leave(session, "left");
      for (let tick = 0; tick < (REGEN_DELAY_SECONDS + 1) * game.options.tickHz; tick++) game.step();
      expect(game.combat.fighting).toBe(0);
    } finally {
      game.shutdown();
      npcMap.dispose();
    }
  });
});
