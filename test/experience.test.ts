// A character that grows (issue 39; docs/combat.md § Experience and levels). Over real UDP with the real
// server: a player's kills of creatures give their kind's experience, its level rises by the curve, its hp
// max with it, and every client sees the level in its entries while the player reads its progress in its
// own detail. In process, with the combat room's seeded stream replayed: a level adds its documented share
// to every blow; a kill of a player gives none; a blow across a region border carries the attacker's level
// there and its experience back; a handoff between regions carries the experience, the level and the hp.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { GhostTable } from "../ts/cluster/ghosts.js";
import { arrivalOf, type HandoffState, handoffStateOf, restoreSession } from "../ts/cluster/handoff.js";
import { FrameError } from "../ts/cluster/link-frames.js";
import { ACTION_E, ACTION_W } from "../ts/protocol/action.js";
import { COMBAT_KILL, type CombatPacket } from "../ts/protocol/combat.js";
import type { EntityEntry } from "../ts/protocol/entity.js";
import type { Tlv } from "../ts/protocol/tlv.js";
import { hpMaxAtLevel, LEVEL_MAX, xpForLevel } from "../ts/progression.js";
import { mulberry32 } from "../ts/random.js";
import { UNARMED_DAMAGE } from "../ts/server/combat/combat-room.js";
import { PLAYER_RESPAWN_SECONDS } from "../ts/combat-rules.js";
import { resolveBlow } from "../ts/server/combat/formula.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import { readWorldMap } from "../ts/server/server.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { boundGuest, floorMap } from "./support/game-without-network.js";
import { latestEntry, NpcGame } from "./support/npc-game.js";
import { testKind, writeNpcMap } from "./support/npc-map.js";
import type { UdpTestClient } from "./support/udp-client.js";

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});
const npcGame = new NpcGame();
afterEach(() => npcGame.cleanup());
const quiet = new Logger("silent");

/** A sack of straw: one hit kills it, it never moves or fights back, and it is worth 60 experience. */
const sack = testKind({ name: "sack", typeId: 16, hp: 1, wander: 0, xp: 60, respawnSeconds: 1 });

const levelIn = (meta: readonly Tlv[]): number | undefined => {
  const tlv = meta.find((each) => each.kind === "level");
  return tlv?.kind === "level" ? tlv.value : undefined;
};

/** The `progress` TLV of the newest own EntityDetail the client was sent. */
function ownProgress(client: UdpTestClient): Extract<Tlv, { kind: "progress" }> | undefined {
  for (let i = client.received.length - 1; i >= 0; i--) {
    const packet = client.received[i].packet;
    if (packet?.type !== "entity_detail" || packet.entityId !== client.joined.entityId) continue;
    const progress = packet.meta.find((tlv) => tlv.kind === "progress");
    if (progress?.kind === "progress") return progress;
  }
  return undefined;
}

function kills(client: UdpTestClient): number {
  return client.received
    .flatMap((r) => (r.packet?.type === "combat" ? (r.packet as CombatPacket).events : []))
    .filter((event) => event.kind === COMBAT_KILL && event.attackerId === client.joined.entityId).length;
}

describe("experience over UDP", () => {
  it("kills give the kind's experience: the level rises by the curve, hp max with it, over heads and in the own detail", async () => {
    await npcGame.start({
      width: 12,
      height: 8,
      spawn: { x: 4, y: 4 },
      kinds: [sack],
      spawns: [{ kind: "sack", x: 5, y: 4 }],
    });
    const client = await npcGame.connect("reaper");
    const watcher = await npcGame.connect("watcher");
    const me = (): EntityEntry | undefined => latestEntry(client, client.joined.entityId);
    // A newcomer: level 1 in its entries, hp max 100.
    await client.waitFor("own level", () => me() !== undefined && levelIn(me()!.meta) === 1);
    expect(me()!.hpMax).toBe(hpMaxAtLevel(1));
    // Bump the sack while one stands east; step off its tile when a new one stands up where we stand.
    const bumping = setInterval(() => {
      const at = client.position();
      const standing = client.inView(16).find((entity) => entity.hp > 0);
      if (at === undefined || standing === undefined || standing.y !== at.y) return;
      if (standing.x === at.x + 1) client.action(client.lastState()!.tick + 4, ACTION_E);
      else if (standing.x === at.x) client.action(client.lastState()!.tick + 4, ACTION_W);
    }, 120);
    try {
      // One sack: 60 experience, level 2 (it begins at 50).
      await client.waitFor("a kill", () => kills(client) >= 1, 10_000);
      await client.waitFor("level 2 over its head", () => levelIn(me()!.meta) === 2, 3000);
      expect(me()!.hpMax).toBe(hpMaxAtLevel(2));
      await client.waitFor("its progress", () => ownProgress(client)?.xp === 60, 3000);
      expect(ownProgress(client)).toEqual({ kind: "progress", xp: 60, levelXp: 50, nextXp: 150 });
      // Two more (a sack stands again a second after it is gone): 180, level 3.
      await client.waitFor("three kills", () => kills(client) >= 3, 20_000);
    } finally {
      clearInterval(bumping);
    }
    await client.waitFor("level 3", () => levelIn(me()!.meta) === 3, 3000);
    await client.waitFor("180 experience", () => ownProgress(client)?.xp === 180, 3000);
    expect(ownProgress(client)).toEqual({ kind: "progress", xp: 180, levelXp: 150, nextXp: 300 });
    expect(me()!.hpMax).toBe(hpMaxAtLevel(3));
    // Another player sees the level in its entries, and never the experience (the own detail's alone).
    await watcher.waitFor("the reaper's level", () => {
      const seen = latestEntry(watcher, client.joined.entityId);
      return seen !== undefined && levelIn(seen.meta) === 3;
    });
    // Asked about the reaper (as a client asks a name), the server answers with its level and no progress.
    watcher.query(client.joined.entityId);
    const detail = await watcher.waitFor("the reaper's detail", () =>
      watcher.received.find((r) => r.packet?.type === "entity_detail" && r.packet.entityId === client.joined.entityId),
    );
    const meta = detail.packet?.type === "entity_detail" ? detail.packet.meta : [];
    expect(levelIn(meta)).toBe(3);
    expect(meta.some((tlv) => tlv.kind === "progress")).toBe(false);
    expect(meta.some((tlv) => tlv.kind === "level")).toBe(true);
    const game = npcGame.harness.game;
    expect(game.experience.stats).toMatchObject({ gains: 3, xp: 180, levelUps: 2 });
  }, 45_000);
});

describe("experience in the rules of a fight", () => {
  function gameWith(kinds: Parameters<typeof testKind>[0][], pvp = false): { game: Game; dispose: () => void } {
    const map = writeNpcMap({
      width: 12,
      height: 8,
      spawn: { x: 4, y: 4 },
      kinds: kinds.map(testKind),
      spawns: kinds.map((kind) => ({ kind: kind.name, x: 5, y: 4 })),
    });
    const game = new Game(core, readWorldMap(map.path), { pvp }, quiet);
    return {
      game,
      dispose: () => {
        game.shutdown();
        map.dispose();
      },
    };
  }

  it("a level adds 2.5 % a level to every blow: the room's seeded draws replayed through the formula", () => {
    const { game, dispose } = gameWith([{ name: "bale", typeId: 16, hp: 60_000, wander: 0, elo: 1100, armor: 2 }]);
    try {
      const { session } = boundGuest(game, "Veteran");
      const player = session.entity;
      game.entities.move(player, 4, 4);
      // Level 20: 9,500 experience, from a script's grant or a life of kills alike.
      game.experience.gain(player, xpForLevel(LEVEL_MAX), "test");
      expect(player.hpMax).toBe(hpMaxAtLevel(LEVEL_MAX));
      const bale = [...game.entities.values()].find((entity) => entity.typeId === 16)!;
      const draws = mulberry32(game.options.combatSeed);
      let stronger = 0;
      for (let blow = 0; blow < 40; blow++) {
        const before = bale.hp;
        expect(game.combat.bump(player, bale.x, bale.y)).toBe(true);
        const [hit, spread] = [draws(), draws()];
        const expected = resolveBlow(player.elo, bale.elo, UNARMED_DAMAGE, 2, hit, spread, LEVEL_MAX);
        expect(before - bale.hp).toBe(expected.damage);
        const atLevel1 = resolveBlow(player.elo, bale.elo, UNARMED_DAMAGE, 2, hit, spread, 1);
        if (expected.damage > atLevel1.damage) stronger++;
      }
      // The draws that hit harder at level 20 than at level 1: most of them (a miss is a miss at any level).
      expect(stronger).toBeGreaterThan(15);
    } finally {
      dispose();
    }
  });

  it("a kill of a player gives no experience (the rating is what PvP moves); a kind worth 0 gives none", () => {
    const { game, dispose } = gameWith([{ name: "friend", typeId: 16, hp: 1, wander: 0, xp: 0 }], true);
    try {
      const killer = boundGuest(game, "Killer").session.entity;
      const victim = boundGuest(game, "Victim").session.entity;
      game.entities.move(killer, 4, 4);
      game.entities.move(victim, 4, 5);
      const eloBefore = killer.elo;
      for (let blow = 0; blow < 200 && victim.hp > 0; blow++) game.combat.bump(killer, 4, 5);
      expect(victim.hp).toBe(0);
      expect(killer.elo).toBeGreaterThan(eloBefore);
      const friend = [...game.entities.values()].find((entity) => entity.typeId === 16)!;
      for (let blow = 0; blow < 50 && friend.hp > 0; blow++) game.combat.bump(killer, friend.x, friend.y);
      expect(friend.hp).toBe(0);
      expect(killer.xp).toBe(0);
      expect(game.experience.stats.gains).toBe(0);
    } finally {
      dispose();
    }
  });

  it("a blow across a border is struck at the attacker's level, and the kill's experience goes back to it", () => {
    const { game: east, dispose } = gameWith([{ name: "sack", typeId: 16, hp: 1, wander: 0, xp: 60 }]);
    const west = new Game(core, floorMap("west", 32, { x: 4, y: 4 }), { firstEntityId: 2 ** 24 }, quiet);
    try {
      const attacker = boundGuest(west, "Across").session.entity;
      west.experience.gain(attacker, xpForLevel(5), "test");
      // East holds the attacker as a ghost beside its sack.
      const ghosts = new GhostTable(east.entities);
      ghosts.apply(0, [[attacker.id, 0, 4, 4, attacker.hp, attacker.hpMax, attacker.elo, 0, "Across", attacker.meta]]);
      const ghost = ghosts.get(attacker.id)!;
      const sackId = [...east.entities.values()].find((entity) => entity.typeId === 16)!.id;
      let outcome = east.combat.strikeFrom(ghost, sackId, UNARMED_DAMAGE, 5);
      for (let blow = 0; blow < 50 && outcome !== null && !outcome.events.includes(COMBAT_KILL); blow++) {
        outcome = east.combat.strikeFrom(ghost, sackId, UNARMED_DAMAGE, 5);
      }
      expect(outcome).toMatchObject({ xp: 60 });
      // The ghost gained nothing there: its experience is its own region's.
      expect(ghost.xp).toBe(0);
      expect(east.experience.stats.gains).toBe(0);
      expect(west.combat.strikeAnswered(attacker.id, outcome!)).toBe(true);
      expect(attacker.xp).toBe(xpForLevel(5) + 60);
      // A level the rules do not have, or experience no kill is worth, is refused.
      expect(east.combat.strikeFrom(ghost, sackId, UNARMED_DAMAGE, LEVEL_MAX + 1)).toBeNull();
      expect(west.combat.strikeAnswered(attacker.id, { events: [], attackerElo: attacker.elo, xp: -1 })).toBe(false);
    } finally {
      west.shutdown();
      dispose();
    }
  });
});

describe("experience in a handoff between regions", () => {
  it("the new region's player has the experience, the level and the hp max it had, and tells its client its progress", () => {
    const old = new Game(core, floorMap("open", 64, { x: 32, y: 32 }), { firstEntityId: 1 }, quiet);
    const next = new Game(core, floorMap("open", 64, { x: 32, y: 32 }), { firstEntityId: 1 << 24 }, quiet);
    try {
      const { session, peer } = boundGuest(old, "Traveller", "gw:g0:1");
      old.experience.gain(session.entity, 200, "test");
      session.entity.hp = 90;
      // As a HANDOFF frame carries it: JSON.
      const state = JSON.parse(
        JSON.stringify(handoffStateOf(session, 0, 1, old.nextWindow, old.items.carrying(session), old.tick)),
      ) as HandoffState;
      old.releaseSession(session);
      const adopted = next.adoptSession(arrivalOf(state), peer, performance.now());
      restoreSession(adopted, state, next.nextWindow);
      const entity = adopted.entity;
      expect({ xp: entity.xp, hp: entity.hp, hpMax: entity.hpMax, level: levelIn(entity.meta) }).toEqual({
        xp: 200,
        hp: 90,
        hpMax: hpMaxAtLevel(3),
        level: 3,
      });
      // Its next gain there counts from what it carried.
      next.experience.gain(entity, 100, "test");
      expect(entity.xp).toBe(300);
      expect(levelIn(entity.meta)).toBe(4);
      const progress = next.details.meta(adopted, entity).find((tlv) => tlv.kind === "progress");
      expect(progress).toEqual({ kind: "progress", xp: 300, levelXp: 300, nextXp: 500 });
      // An older process's handoff says nothing of experience: none; a malformed one is refused.
      const { xp: _carried, ...withoutXp } = state.entity;
      expect(arrivalOf({ ...state, entity: withoutXp }).entity.xp).toBe(0);
      expect(() => arrivalOf({ ...state, entity: { ...state.entity, xp: -3 } })).toThrow(FrameError);
    } finally {
      old.shutdown();
      next.shutdown();
    }
  });

  it("a player handed over dead (or restored dead from a checkpoint) lies dead, then stands up at a spawn", () => {
    const spawn = { x: 32, y: 32 };
    const old = new Game(core, floorMap("open", 64, spawn), { firstEntityId: 1 }, quiet);
    const next = new Game(core, floorMap("open", 64, spawn), { firstEntityId: 1 << 24 }, quiet);
    try {
      const { session, peer } = boundGuest(old, "Fallen", "gw:g0:1");
      old.entities.move(session.entity, 40, 36);
      session.entity.hp = 0;
      const state = JSON.parse(
        JSON.stringify(handoffStateOf(session, 0, 1, old.nextWindow, old.items.carrying(session), old.tick)),
      ) as HandoffState;
      old.releaseSession(session);
      const adopted = next.adoptSession(arrivalOf(state), peer, performance.now());
      restoreSession(adopted, state, next.nextWindow);
      // Dead here: its actions are ignored until it respawns (before, it lay at hp 0 for good).
      expect(next.combat.isDown(adopted.entity)).toBe(true);
      expect(next.combat.deadPlayers).toBe(1);
      for (let tick = 0; tick <= PLAYER_RESPAWN_SECONDS * next.options.tickHz; tick++) next.step();
      expect(adopted.entity.hp).toBe(adopted.entity.hpMax);
      expect({ x: adopted.entity.x, y: adopted.entity.y }).toEqual(spawn);
      expect(next.combat.isDown(adopted.entity)).toBe(false);
    } finally {
      old.shutdown();
      next.shutdown();
    }
  });
});
