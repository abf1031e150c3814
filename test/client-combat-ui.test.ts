// The browser client's combat pieces that have logic, without a server or a
// browser: the damage-number bookkeeping (each blow floats once, whether the
// notice or the hp drop tells it first; lost notices still float from hp
// drops), the death countdown (from the kill notice's tick, else from the
// first hp 0; gone when hp returns), the log's wording, the foe under the
// pointer and click-to-attack in the click steering.
import { describe, expect, it } from "vitest";
import { PLAYER_RESPAWN_SECONDS } from "../ts/combat-rules.js";
import type { CombatNotice } from "../ts/client/core/combat.js";
import { kindsByTypeId } from "../ts/client/core/kinds.js";
import * as P from "../ts/client/render/palette.js";
import { ClickSteering } from "../ts/client/ui/click-steering.js";
import {
  CombatEffects,
  FLASH_MS,
  FLOAT_MS,
  FLOATERS_MAX,
  floaterRisePx,
  FLOAT_RISE_PX,
} from "../ts/client/ui/combat-effects.js";
import { combatantOf, combatLogLine, type CombatNames } from "../ts/client/ui/combat-log.js";
import { DeathWatch, deathScreenText } from "../ts/client/ui/death-watch.js";
import { foeAtTile } from "../ts/client/ui/hover.js";
import { player, sign } from "./client-core-support.js";
import { CAVE_KINDS, entity, RAT, SKELETON, SPIDER } from "./client-npc-support.js";

const OWN = 7;

function notice(kind: CombatNotice["kind"], attackerId: number, targetId: number, amount: number, targetHp: number) {
  return { kind, attackerId, targetId, amount, targetHp, tick: 100, atMs: 0 } satisfies CombatNotice;
}

/** An entity map of id → hp (hpMax 10). */
function hps(entries: [number, number][]): Map<number, { hp: number; hpMax: number }> {
  return new Map(entries.map(([id, hp]) => [id, { hp, hpMax: 10 }]));
}

const texts = (effects: CombatEffects, nowMs: number): string[] =>
  effects.floaters(nowMs).map((f) => `${f.entityId}:${f.text}`);

describe("damage numbers", () => {
  it("float a notice's hit over its target, in the colour of who dealt it, and flash the target briefly", () => {
    const effects = new CombatEffects();
    effects.notice(notice("hit", OWN, 30, 5, 5), OWN, 1000);
    effects.notice(notice("hit", 30, OWN, 3, 97), OWN, 1010);
    effects.notice(notice("miss", OWN, 30, 0, 5), OWN, 1020);
    expect(effects.floaters(1100).map((f) => [f.entityId, f.text, f.colour])).toEqual([
      [30, "5", P.COMBAT_DEALT],
      [OWN, "3", P.COMBAT_TAKEN],
      [30, "miss", P.COMBAT_MISS],
    ]);
    expect(effects.flashing(30, 1000 + FLASH_MS - 1)).toBe(true);
    expect(effects.flashing(30, 1000 + FLASH_MS)).toBe(false);
    // A miss does not flash.
    effects.notice(notice("miss", 30, OWN, 0, 97), OWN, 2000);
    expect(effects.flashing(OWN, 2001)).toBe(false);
  });

  it("a notice's hit is not floated again by the update that shows its hp drop", () => {
    const effects = new CombatEffects();
    effects.observe(hps([[30, 10]]), OWN, 0);
    effects.notice(notice("hit", OWN, 30, 4, 6), OWN, 100);
    effects.observe(hps([[30, 6]]), OWN, 150);
    expect(texts(effects, 200)).toEqual(["30:4"]);
  });

  it("two own hits between updates float twice, and only what lies beyond them floats from the drop", () => {
    const effects = new CombatEffects();
    effects.observe(hps([[30, 10]]), OWN, 0);
    effects.notice(notice("hit", OWN, 30, 2, 8), OWN, 100);
    effects.notice(notice("hit", OWN, 30, 3, 5), OWN, 110);
    // Someone else's blow of 1 in the same update: 10 → 4, of which 10 → 5 was ours.
    effects.observe(hps([[30, 4]]), OWN, 150);
    expect(texts(effects, 200)).toEqual(["30:2", "30:3", "30:1"]);
  });

  it("fights this player has no part in float from hp drops between updates", () => {
    const effects = new CombatEffects();
    effects.observe(
      hps([
        [40, 10],
        [41, 10],
      ]),
      OWN,
      0,
    );
    effects.observe(
      hps([
        [40, 7],
        [41, 10],
      ]),
      OWN,
      100,
    );
    // Regeneration (a rise) floats nothing; a new entity's first hp is no drop.
    effects.observe(
      hps([
        [40, 8],
        [41, 10],
        [42, 3],
      ]),
      OWN,
      200,
    );
    expect(effects.floaters(300).map((f) => [f.entityId, f.text, f.colour])).toEqual([[40, "3", P.COMBAT_OTHER]]);
    expect(effects.flashing(40, 150)).toBe(true);
  });

  it("a lost notice still floats from the drop, and its late arrival floats no second number", () => {
    const effects = new CombatEffects();
    effects.observe(hps([[OWN, 10]]), OWN, 0);
    effects.observe(hps([[OWN, 6]]), OWN, 100); // the notice is late (or lost)
    effects.notice(notice("hit", 30, OWN, 4, 6), OWN, 140);
    expect(texts(effects, 200)).toEqual([`${OWN}:4`]);
    // A later blow is news again.
    effects.notice(notice("hit", 30, OWN, 2, 4), OWN, 300);
    expect(texts(effects, 350)).toEqual([`${OWN}:4`, `${OWN}:2`]);
  });

  it("numbers rise as they age, expire after FLOAT_MS, and at most FLOATERS_MAX live at once", () => {
    expect(floaterRisePx(0, 0)).toBe(0);
    expect(floaterRisePx(0, FLOAT_MS)).toBe(FLOAT_RISE_PX);
    expect(floaterRisePx(0, FLOAT_MS / 2)).toBe(Math.round(FLOAT_RISE_PX / 2));
    const effects = new CombatEffects();
    for (let index = 0; index < FLOATERS_MAX + 10; index++)
      effects.notice(notice("miss", OWN, 30 + index, 0, 1), OWN, index);
    const live = effects.floaters(FLOATERS_MAX + 10);
    expect(live.length).toBe(FLOATERS_MAX);
    expect(live[0].entityId).toBe(30 + 10);
    expect(effects.floaters(FLOATERS_MAX + 10 + FLOAT_MS).length).toBe(0);
    expect(effects.floated).toBe(FLOATERS_MAX + 10);
  });

  it("forgets entities that left view, so one seen again is not a drop from its old hp", () => {
    const effects = new CombatEffects();
    effects.observe(hps([[40, 10]]), OWN, 0);
    effects.observe(hps([]), OWN, 100);
    effects.observe(hps([[40, 2]]), OWN, 200);
    expect(texts(effects, 250)).toEqual([]);
  });
});

describe("the death countdown", () => {
  it("counts PLAYER_RESPAWN_SECONDS from the first hp 0 seen, and ends when hp returns", () => {
    const watch = new DeathWatch();
    expect(watch.observe(100, 100, 0)).toBe(false);
    expect(watch.state(0).dead).toBe(false);
    expect(watch.observe(0, 100, 1000)).toBe(true);
    expect(watch.observe(0, 100, 1100)).toBe(false); // the same death
    expect(watch.state(1000)).toEqual({ dead: true, secondsLeft: PLAYER_RESPAWN_SECONDS, killer: "" });
    expect(watch.state(1000 + 1500).secondsLeft).toBe(PLAYER_RESPAWN_SECONDS - 1);
    expect(watch.state(1000 + PLAYER_RESPAWN_SECONDS * 1000 + 500).secondsLeft).toBe(0);
    expect(watch.dead).toBe(true);
    watch.observe(100, 100, 7000);
    expect(watch.state(7000).dead).toBe(false);
  });

  it("counts from the kill notice's tick when it came first, naming the killer", () => {
    const watch = new DeathWatch();
    // Killed at tick 100; the client's clock says the server is at tick 124 (1 s later at 24 Hz).
    watch.killed("The skeleton", 100, 124, 24, 5000);
    expect(watch.state(5000).dead).toBe(false); // the truth is the hp: not dead until an update says so
    expect(watch.observe(0, 100, 5100)).toBe(true);
    const state = watch.state(5100);
    expect(state).toEqual({ dead: true, secondsLeft: PLAYER_RESPAWN_SECONDS - 1, killer: "The skeleton" });
    expect(deathScreenText(state)).toEqual({
      title: "You died",
      detail: "The skeleton killed you.",
      countdown: `Back on your feet in ${PLAYER_RESPAWN_SECONDS - 1} s`,
    });
    expect(deathScreenText({ dead: true, secondsLeft: 0, killer: "" }).countdown).toBe("Getting up...");
  });

  it("a kill notice after the hp 0 corrects the countdown; an entity without health is never dead", () => {
    const watch = new DeathWatch();
    watch.observe(0, 100, 0);
    watch.killed("Bob", 0, 48, 24, 500); // two seconds ago, by the server's tick
    expect(watch.state(500).secondsLeft).toBe(PLAYER_RESPAWN_SECONDS - 2);
    const thing = new DeathWatch();
    expect(thing.observe(0, 0, 0)).toBe(false);
    expect(thing.state(0).dead).toBe(false);
  });
});

describe("combat lines in the log", () => {
  const entities = new Map([
    [OWN, player(OWN, 10, 10)],
    [30, entity(30, SPIDER, 11, 10, true)],
    [31, entity(31, RAT, 9, 10)],
    [32, entity(32, SKELETON, 10, 11, true)],
    [9, player(9, 10, 9)],
  ]);
  const sources: CombatNames = { ownId: OWN, entities, names: new Map([[9, "Bob"]]), kinds: kindsByTypeId(CAVE_KINDS) };
  const line = (n: CombatNotice) => combatLogLine(n, sources);

  it("names creatures with 'the' and players by nick, in plain sentences", () => {
    expect(line(notice("hit", OWN, 30, 5, 5))).toEqual({
      text: "You hit the cave spider for 5.",
      colour: P.COMBAT_DEALT,
    });
    expect(line(notice("miss", 30, OWN, 0, 100))).toEqual({
      text: "The cave spider misses you.",
      colour: P.COMBAT_QUIET,
    });
    expect(line(notice("hit", 30, OWN, 3, 97))).toEqual({
      text: "The cave spider hits you for 3.",
      colour: P.COMBAT_TAKEN,
    });
    expect(line(notice("miss", OWN, 31, 0, 10)).text).toBe("You miss the cave rat.");
    expect(line(notice("kill", OWN, 31, 8, 0))).toEqual({
      text: "You killed the cave rat (+8 rating).",
      colour: P.COMBAT_KILL,
    });
    expect(line(notice("kill", 32, OWN, 12, 0))).toEqual({ text: "The skeleton killed you.", colour: P.COMBAT_DEATH });
    expect(line(notice("hit", 9, OWN, 4, 96)).text).toBe("Bob hits you for 4.");
    expect(line(notice("kill", OWN, 31, 0, 0)).text).toBe("You killed the cave rat.");
  });

  it("a looked-up name wins over the kind's; one gone from view is 'something'", () => {
    const named = { ...sources, names: new Map([[30, "Old Widow"]]) };
    expect(combatLogLine(notice("hit", 30, OWN, 2, 98), named).text).toBe("The Old Widow hits you for 2.");
    expect(combatantOf(99, sources)).toEqual({ name: "something", own: false, creature: false, unseen: true });
    expect(line(notice("hit", 99, OWN, 1, 99)).text).toBe("Something hits you for 1.");
    expect(line(notice("hit", OWN, 99, 1, 9)).text).toBe("You hit something for 1.");
  });
});

describe("click-to-attack", () => {
  const entities = new Map([
    [OWN, player(OWN, 10, 10)],
    [30, entity(30, RAT, 12, 10)],
    [31, { ...entity(31, RAT, 13, 10), hp: 0 }],
    [3, sign(3, 14, 10)],
    [9, player(9, 15, 10)],
  ]);

  it("a living creature is a foe under the pointer; a corpse, a sign, a player and the floor are not", () => {
    expect(foeAtTile(entities, { x: 12, y: 10 }, OWN)?.id).toBe(30);
    for (const x of [13, 14, 15, 11]) expect(foeAtTile(entities, { x, y: 10 }, OWN)).toBeNull();
    expect(foeAtTile(entities, null, OWN)).toBeNull();
  });

  it("a press on a foe attacks it (the press then steers nothing); a press elsewhere sets a goal", () => {
    const calls: string[] = [];
    const client = {
      setGoal: (x: number, y: number) => calls.push(`goal ${x},${y}`),
      attack: (id: number) => {
        calls.push(`attack ${id}`);
        return null;
      },
    };
    const foeAt = (tile: { x: number; y: number }) => foeAtTile(entities, tile, OWN)?.id ?? null;
    const steering = new ClickSteering();
    steering.press();
    expect(steering.frame({ x: 12, y: 10 }, client, foeAt)).toBe("attacking");
    expect(steering.steering).toBe(false);
    // The camera scrolls under the still pointer: nothing re-aims the attack away.
    expect(steering.frame({ x: 11, y: 10 }, client, foeAt)).toBeUndefined();
    steering.press();
    steering.frame({ x: 13, y: 10 }, client, foeAt); // the corpse's tile: a walk
    expect(calls).toEqual(["attack 30", "goal 13,10"]);
  });
});
