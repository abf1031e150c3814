// Combat over real UDP with the real wasm (issue 13): a test map with
// creatures is written as a Tiled file with its kinds file and read by the
// real loader; protocol clients join over HTTP, bump with ActionPackets and
// read hp from their EntityPackets and the blows from CombatPackets.
import { afterEach, describe, expect, it } from "vitest";
import { PLAYER_RESPAWN_SECONDS } from "../ts/combat-rules.js";
import { ACTION_E, ACTION_NE, ACTION_W } from "../ts/protocol/action.js";
import { COMBAT_HIT, COMBAT_KILL, COMBAT_MISS, type CombatPacket } from "../ts/protocol/combat.js";
import type { EntityEntry } from "../ts/protocol/entity.js";
import { latestEntry as latest, NpcGame } from "./support/npc-game.js";
import { NPC_WALL, testKind, walledRoom } from "./support/npc-map.js";
import { UdpTestClient } from "./support/udp-client.js";

const npcGame = new NpcGame();
afterEach(() => npcGame.cleanup());

function me(client: UdpTestClient): EntityEntry | undefined {
  return latest(client, client.joined.entityId);
}

/** The creatures of `typeId` in the client's latest complete entity update. */
function inView(client: UdpTestClient, typeId: number): EntityEntry[] {
  return client.inView(typeId);
}

function combatEvents(client: UdpTestClient): CombatPacket["events"] {
  return client.received.flatMap((r) => (r.packet?.type === "combat" ? r.packet.events : []));
}

/** Sends `action` for the next window, `windows` times, one per window. */
async function actEachWindow(client: UdpTestClient, action: number, windows: number): Promise<void> {
  for (let i = 0; i < windows; i++) {
    client.action(client.lastState()!.tick + 4, action);
    await sleep(170);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A creature that never moves (wanders 0 tiles) and never fights back: something to hit. */
const dummy = (fields: Partial<Parameters<typeof testKind>[0]> = {}) =>
  testKind({ name: "dummy", typeId: 16, wander: 0, hp: 500, respawnSeconds: 1, ...fields });

describe("combat over UDP", () => {
  it("bumping a creature attacks it: its hp falls, the attacker does not move, and the client is told each blow", async () => {
    await npcGame.start({
      width: 12,
      height: 8,
      spawn: { x: 4, y: 4 },
      kinds: [dummy()],
      spawns: [{ kind: "dummy", x: 5, y: 4 }],
    });
    const client = await npcGame.connect("fighter");
    const target = await client.waitFor("the dummy", () => inView(client, 16)[0]);
    expect(target).toMatchObject({ x: 5, y: 4, hp: 500, hpMax: 500 });
    await actEachWindow(client, ACTION_E, 8);
    await client.waitFor("a hit", () => latest(client, target.id)!.hp < 500);
    expect(client.position()).toEqual({ x: 4, y: 4 });
    await sleep(500); // the last window's blow and its entity update arrive
    const events = combatEvents(client);
    expect(events.length).toBeGreaterThanOrEqual(1);
    for (const event of events) {
      expect(event.attackerId).toBe(client.joined.entityId);
      expect(event.targetId).toBe(target.id);
      expect([COMBAT_HIT, COMBAT_MISS]).toContain(event.kind);
    }
    // The hp in the entity updates is the sum of the hits told.
    const dealt = events.filter((e) => e.kind === COMBAT_HIT).reduce((sum, e) => sum + e.amount, 0);
    expect(latest(client, target.id)!.hp).toBe(500 - dealt);
    // At most one attack per window: 8 windows, at most 8 blows.
    expect(events.length).toBeLessThanOrEqual(8);
  });

  it("a diagonal bump past a corner is no attack, as a diagonal step past it is none", async () => {
    // The dummy stands NE of the player with a wall to the north: the corner rule forbids the step.
    const room = walledRoom(12, 8);
    await npcGame.start({
      width: 12,
      height: 8,
      tile: (x, y) => (x === 4 && y === 3 ? NPC_WALL : room(x, y)),
      spawn: { x: 4, y: 4 },
      kinds: [dummy()],
      spawns: [{ kind: "dummy", x: 5, y: 3 }],
    });
    const client = await npcGame.connect("cornered");
    const target = await client.waitFor("the dummy", () => inView(client, 16)[0]);
    await actEachWindow(client, ACTION_NE, 6);
    await sleep(300);
    expect(latest(client, target.id)!.hp).toBe(500);
    expect(combatEvents(client)).toEqual([]);
    expect(npcGame.harness.game.combat.stats.attacks).toBe(0);
  });

  it("a hostile next to a standing player hurts it on its own action points", async () => {
    await npcGame.start({
      width: 16,
      height: 8,
      spawn: { x: 4, y: 4 },
      kinds: [testKind({ name: "biter", typeId: 18, behaviour: "hostile", perception: 5, leash: 8, attack: 4 })],
      spawns: [{ kind: "biter", x: 7, y: 4 }],
    });
    const client = await npcGame.connect("standing");
    await client.waitFor("being bitten", () => me(client)!.hp < 100, 8000);
    const bites = combatEvents(client).filter((e) => e.targetId === client.joined.entityId);
    expect(bites.length).toBeGreaterThan(0);
    const biter = inView(client, 18)[0];
    expect(Math.max(Math.abs(biter.x - 4), Math.abs(biter.y - 4))).toBe(1);
    expect(client.position()).toEqual({ x: 4, y: 4 });
  });

  it("a player at 0 HP lies dead, then stands at a spawn point with full HP after the respawn delay", async () => {
    // One bite kills; the killer lives 4 tiles from the spawn point and notices at 3.
    const game = (
      await npcGame.start({
        width: 20,
        height: 8,
        spawn: { x: 3, y: 4 },
        kinds: [
          testKind({
            name: "killer",
            typeId: 18,
            behaviour: "hostile",
            perception: 3,
            leash: 5,
            attack: 1000,
            wander: 0,
          }),
        ],
        spawns: [{ kind: "killer", x: 7, y: 4 }],
      })
    ).game;
    const client = await npcGame.connect("doomed");
    const eloBefore = me(client)!.elo;
    client.action(client.lastState()!.tick + 4, ACTION_E); // to (4, 4): within 3 of the killer
    const diedAt = await client.waitFor("death", () => (me(client)!.hp === 0 ? performance.now() : 0), 8000);
    expect(game.combat.deadPlayers).toBe(1);
    // Dead: steps are ignored.
    const corpse = client.position()!;
    await actEachWindow(client, ACTION_W, 4);
    expect(client.position()).toEqual(corpse);
    const kill = combatEvents(client).find((e) => e.kind === COMBAT_KILL && e.targetId === client.joined.entityId);
    expect(kill).toBeDefined();
    expect(me(client)!.elo).toBe(eloBefore - kill!.amount);
    const risen = await client.waitFor("respawn", () => (me(client)!.hp === 100 ? performance.now() : 0), 10_000);
    expect(risen - diedAt).toBeGreaterThan(PLAYER_RESPAWN_SECONDS * 1000 - 1000);
    expect(client.position()).toEqual({ x: 3, y: 4 });
    expect(game.combat.stats.respawns).toBe(1);
  });

  it("a creature killed lies as a corpse (hp 0), is removed, and its spawn brings a new one after its respawn time", async () => {
    const game = (
      await npcGame.start({
        width: 12,
        height: 8,
        spawn: { x: 4, y: 4 },
        kinds: [dummy({ hp: 1, respawnSeconds: 2 })],
        spawns: [{ kind: "dummy", x: 5, y: 4 }],
      })
    ).game;
    const client = await npcGame.connect("slayer");
    const first = await client.waitFor("the dummy", () => inView(client, 16)[0]);
    const eloBefore = me(client)!.elo;
    const bumping = setInterval(() => client.action(client.lastState()!.tick + 4, ACTION_E), 160);
    try {
      await client.waitFor("its corpse", () => latest(client, first.id)?.hp === 0, 5000);
    } finally {
      clearInterval(bumping);
    }
    const kill = combatEvents(client).find((e) => e.kind === COMBAT_KILL)!;
    expect(kill).toMatchObject({ attackerId: client.joined.entityId, targetId: first.id, targetHp: 0 });
    expect(kill.amount).toBeGreaterThan(0);
    await client.waitFor("the killer's rating", () => me(client)!.elo === eloBefore + kill.amount);
    await client.waitFor("the corpse gone", () => !inView(client, 16).some((e) => e.id === first.id), 4000);
    const next = await client.waitFor("a new one", () => inView(client, 16).find((e) => e.id !== first.id), 5000);
    expect(next).toMatchObject({ hp: 1, x: 5, y: 4 });
    expect(game.combat.stats.kills.npcs).toBe(1);
    expect(game.npcs.stats.respawns).toBe(1);
  });

  it("PvP off: a step into a player is an ordinary step, never a blow", async () => {
    await npcGame.start({
      width: 12,
      height: 8,
      spawn: { x: 4, y: 4 },
      kinds: [dummy()],
      spawns: [{ kind: "dummy", x: 9, y: 6 }],
    });
    const a = await npcGame.connect("Ann");
    const b = await npcGame.connect("Bob");
    // Both spawn on (4, 4); Bob steps east, then Ann steps onto him.
    b.action(b.lastState()!.tick + 4, ACTION_E);
    await b.waitFor("Bob east", () => b.position()!.x === 5);
    a.action(a.lastState()!.tick + 4, ACTION_E);
    await a.waitFor("Ann onto Bob's tile", () => a.position()!.x === 5);
    await sleep(200);
    expect(me(b)!.hp).toBe(100);
    expect(npcGame.harness.game.combat.stats.attacks).toBe(0);
  });

  it("PvP on (--pvp): a bump into a player attacks, except inside a safe zone", async () => {
    await npcGame.start(
      {
        width: 16,
        height: 8,
        spawn: { x: 4, y: 4 },
        kinds: [dummy()],
        spawns: [{ kind: "dummy", x: 14, y: 6 }],
        safeZones: [{ x: 1, y: 1, width: 6, height: 6 }],
      },
      { pvp: true },
    );
    const a = await npcGame.connect("Ann");
    const b = await npcGame.connect("Bob");
    // Inside the safe zone (1..6): Bob at (5, 4), Ann bumps from (4, 4): an ordinary step.
    b.action(b.lastState()!.tick + 4, ACTION_E);
    await b.waitFor("Bob east", () => b.position()!.x === 5);
    a.action(a.lastState()!.tick + 4, ACTION_E);
    await a.waitFor("Ann onto Bob", () => a.position()!.x === 5);
    expect(npcGame.harness.game.combat.stats.attacks).toBe(0);
    // Out of it: Bob walks to (9, 4), Ann to (8, 4), and her bumps are blows.
    for (let x = 6; x <= 9; x++) {
      b.action(b.lastState()!.tick + 4, ACTION_E);
      await b.waitFor(`Bob to ${x}`, () => b.position()!.x === x);
    }
    for (let x = 6; x <= 8; x++) {
      a.action(a.lastState()!.tick + 4, ACTION_E);
      await a.waitFor(`Ann to ${x}`, () => a.position()!.x === x);
    }
    await actEachWindow(a, ACTION_E, 6);
    await b.waitFor("Bob hurt", () => me(b)!.hp < 100, 3000);
    expect(a.position()).toEqual({ x: 8, y: 4 });
    expect(combatEvents(b).some((e) => e.attackerId === a.joined.entityId && e.targetId === b.joined.entityId)).toBe(
      true,
    );
  });

  it("a flood of ActionPackets attacks no faster than one blow per movement window", async () => {
    const game = (
      await npcGame.start({
        width: 12,
        height: 8,
        spawn: { x: 4, y: 4 },
        kinds: [dummy({ hp: 60000 })],
        spawns: [{ kind: "dummy", x: 5, y: 4 }],
      })
    ).game;
    const client = await npcGame.connect("flooder");
    await client.waitFor("the dummy", () => inView(client, 16)[0]);
    const fromTick = game.tick;
    // 30 packets every 20 ms, each for one of the next three windows: far more than the windows hold.
    const flood = setInterval(() => {
      const tick = client.lastState()!.tick;
      for (let i = 0; i < 30; i++) client.action(tick + 4 + (i % 3) * 4, ACTION_E);
    }, 20);
    await sleep(2000);
    clearInterval(flood);
    await sleep(300);
    const windows = Math.ceil((game.tick - fromTick) / 4) + 1;
    expect(game.combat.stats.attacks).toBeGreaterThan(0);
    expect(game.combat.stats.attacks).toBeLessThanOrEqual(windows);
    expect(client.position()).toEqual({ x: 4, y: 4 });
  });
});
