// NPCs over real UDP with the real wasm (issue 12): a test map with creatures
// is written as a Tiled file with its kinds file and read by the real loader;
// the game runs on its own tick loop; a protocol client joins over HTTP, walks
// with ActionPackets and sees the creatures in its EntityPackets.
import { afterEach, describe, expect, it } from "vitest";
import { WAKE_RADIUS } from "../ts/server/npc/wake-schedule.js";
import { ENTITY_FLAG_HOSTILE } from "../ts/protocol/entity.js";
import { latestEntry as latest, NpcGame } from "./support/npc-game.js";
import { NPC_WALL, testKind, walledRoom } from "./support/npc-map.js";
import { UdpTestClient } from "./support/udp-client.js";

const E = 2;
const W = 4;

const npcGame = new NpcGame();
afterEach(() => npcGame.cleanup());

/** Every NPC entry the client has seen, in arrival order, by entity id. */
function sightings(client: UdpTestClient, typeId: number): Map<number, { x: number; y: number; flags: number }[]> {
  const seen = new Map<number, { x: number; y: number; flags: number }[]>();
  for (const packet of client.entityPackets) {
    for (const entity of packet.entities) {
      if (entity.typeId !== typeId) continue;
      const track = seen.get(entity.id) ?? [];
      const last = track[track.length - 1];
      if (!last || last.x !== entity.x || last.y !== entity.y || last.flags !== entity.flags) {
        track.push({ x: entity.x, y: entity.y, flags: entity.flags });
      }
      seen.set(entity.id, track);
    }
  }
  return seen;
}

/** Walks `steps` steps with `action`, one per window, waiting for each to show. */
async function walk(client: UdpTestClient, action: number, steps: number): Promise<void> {
  for (let step = 0; step < steps; step++) {
    const before = client.position()!;
    client.action(client.lastState()!.tick + 4, action);
    await client.waitFor("a step", () => {
      const now = client.position()!;
      return now.x !== before.x || now.y !== before.y;
    });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const chebyshev = (a: { x: number; y: number }, b: { x: number; y: number }) =>
  Math.max(Math.abs(a.x - b.x), Math.abs(a.y - b.y));

describe("NPCs over UDP", () => {
  it("a critter wanders within its range and never enters a wall", async () => {
    // A room with a comb of walls inside the rats' range: every wall cell is a chance to step wrong.
    const width = 30;
    const height = 20;
    const room = walledRoom(width, height);
    const tile = (x: number, y: number) => (x >= 14 && x <= 22 && y % 3 === 0 ? NPC_WALL : room(x, y));
    await npcGame.start({
      width,
      height,
      tile,
      spawn: { x: 4, y: 10 },
      kinds: [testKind({ name: "rat", typeId: 16, wander: 4 })],
      spawns: [{ kind: "rat", x: 16, y: 7, width: 4, height: 5, count: 6 }],
    });
    const client = await npcGame.connect("watcher");
    await sleep(4000);
    const tracks = sightings(client, 16);
    expect(tracks.size).toBe(6);
    let moves = 0;
    for (const track of tracks.values()) {
      for (let i = 0; i < track.length; i++) {
        const at = track[i];
        expect(tile(at.x, at.y), `a rat at (${at.x}, ${at.y})`).not.toBe(NPC_WALL);
        // Home is a cell of the area, the range 4 tiles around it.
        expect(at.x).toBeGreaterThanOrEqual(16 - 4);
        expect(at.x).toBeLessThanOrEqual(19 + 4);
        if (i > 0) {
          expect(chebyshev(at, track[i - 1])).toBeLessThanOrEqual(2); // one step (two if an update was skipped)
          moves++;
        }
      }
      expect(track.every((at) => (at.flags & ENTITY_FLAG_HOSTILE) === 0)).toBe(true);
    }
    // Six rats deciding 6 times a second for 4 s, resting 40 % of the time: they clearly move.
    expect(moves).toBeGreaterThan(30);
    // Names come through EntityDetail, like players'.
    const ratId = [...tracks.keys()][0];
    client.query(ratId);
    await client.waitFor("the rat's name", () =>
      client.received.some((r) => r.packet?.type === "entity_detail" && r.packet.entityId === ratId),
    );
    const detail = client.received.find((r) => r.packet?.type === "entity_detail")!.packet!;
    expect(JSON.stringify(detail)).toContain("rat");
  });

  it("a hostile notices a player in its radius, reaches adjacency by the shortest route, and walks home past its leash", async () => {
    const game = (
      await npcGame.start({
        width: 48,
        height: 16,
        spawn: { x: 4, y: 8 },
        kinds: [
          testKind({
            name: "spider",
            typeId: 18,
            behaviour: "hostile",
            perception: 6,
            leash: 12,
            wander: 0,
            sprite: "spider",
          }),
        ],
        spawns: [{ kind: "spider", x: 30, y: 8 }],
      })
    ).game;
    const client = await npcGame.connect("bait");
    const [spider] = [...game.npcs.values()];
    expect(spider.entity.flags & ENTITY_FLAG_HOSTILE).toBe(ENTITY_FLAG_HOSTILE);
    // Out of its perception: it stays put.
    await walk(client, E, 14); // to x = 18: 12 from the spider
    await sleep(600);
    expect({ x: spider.entity.x, y: spider.entity.y }).toEqual({ x: 30, y: 8 });
    await walk(client, E, 6); // to x = 24: 6 from the spider, inside its perception
    const me = client.position()!;
    expect(me).toEqual({ x: 24, y: 8 });
    await client.waitFor("the spider beside the player", () => {
      const seen = latest(client, spider.entity.id);
      return seen && chebyshev(seen, me) === 1;
    });
    // The shortest route in an open room: straight along the row, one tile per step, 6 - 1 steps.
    const track = sightings(client, 18).get(spider.entity.id)!;
    const cells = track.map(({ x, y }) => `${x},${y}`);
    expect(cells).toEqual(["30,8", "29,8", "28,8", "27,8", "26,8", "25,8"]);
    // It stays beside the player.
    await sleep(500);
    expect(chebyshev(spider.entity, me)).toBe(1);
    // Run: 14 tiles from the spider's home is past its leash of 12.
    await walk(client, W, 8); // to x = 16
    await client.waitFor(
      "the spider back home",
      () => {
        const seen = latest(client, spider.entity.id);
        return seen && seen.x === 30 && seen.y === 8;
      },
      6000,
    );
    const back = sightings(client, 18).get(spider.entity.id)!;
    const farthestWest = Math.min(...back.map((at) => at.x));
    expect(farthestWest).toBeGreaterThanOrEqual(30 - 12); // it never followed past its leash
    expect(game.npcs.stats.searches).toBeGreaterThan(0); // the chase and the way home came from the wasm A*
  });

  it("no NPC thinks with no player near; a far player does not wake them", async () => {
    const width = 120;
    const game = (
      await npcGame.start({
        width,
        height: 20,
        spawn: { x: 4, y: 10 },
        kinds: [testKind({ name: "rat", typeId: 16 })],
        spawns: [{ kind: "rat", x: 90, y: 5, width: 10, height: 10, count: 20 }],
      })
    ).game;
    await sleep(700);
    expect(game.npcs.size).toBe(20);
    expect(game.npcs.stats.thinks).toBe(0);
    const homes = [...game.npcs.values()].map((npc) => `${npc.entity.x},${npc.entity.y}`);
    const client = await npcGame.connect("far away");
    expect(90 - client.position()!.x).toBeGreaterThan(WAKE_RADIUS);
    await sleep(1500);
    expect(game.npcs.awake).toBe(0);
    expect(game.npcs.stats.thinks).toBe(0);
    expect([...game.npcs.values()].map((npc) => `${npc.entity.x},${npc.entity.y}`)).toEqual(homes);
    const status = (await (await fetch(`http://127.0.0.1:${npcGame.harness.httpPort}/api/status`)).json()) as {
      npcs: { count: number; awake: number; thinksPerSecond: number };
    };
    expect(status.npcs).toMatchObject({ count: 20, awake: 0, thinksPerSecond: 0 });
  });

  it("with the budget forced small, the NPCs nearest the player still act and the far ones are shed", async () => {
    // One rat per 1×1 spawn along a row, 2 .. 22 tiles east of the player: all awake.
    const spawns = Array.from({ length: 11 }, (_, i) => ({ kind: "rat", x: 6 + 2 * i, y: 6 }));
    const game = (
      await npcGame.start(
        {
          width: 40,
          height: 13,
          spawn: { x: 4, y: 6 },
          kinds: [testKind({ name: "rat", typeId: 16, wander: 2 })],
          spawns,
        },
        // budget = 2 / (1 client + 1) = 1 unit per entity tick: one decision.
        { npcThinkBudgetBase: 2 },
      )
    ).game;
    const rats = [...game.npcs.values()].sort((a, b) => a.homeX - b.homeX);
    const moved = new Set<number>();
    const watch = setInterval(() => {
      for (const rat of rats) if (rat.entity.x !== rat.homeX || rat.entity.y !== rat.homeY) moved.add(rat.homeX);
    }, 20);
    try {
      await npcGame.connect("centre");
      await sleep(3000);
    } finally {
      clearInterval(watch);
    }
    expect(game.npcs.awake).toBe(11);
    expect(game.npcs.lastTick.budget).toBe(1);
    expect(game.npcs.stats.shed).toBeGreaterThan(0);
    // Every decision went to the nearest rats: the first moved, the far half never did.
    expect(moved.has(6)).toBe(true);
    for (const rat of rats.slice(5)) expect(moved.has(rat.homeX), `rat at x ${rat.homeX}`).toBe(false);
    // Twelve decisions a second go to the two nearest rats (six each); nobody else decides twice a second.
    expect(game.npcs.decidingTwice).toBeGreaterThanOrEqual(1);
    expect(game.npcs.decidingTwice).toBeLessThanOrEqual(3);
    // One unit a tick, one decision a tick: the budget held.
    expect(game.npcs.stats.thinks).toBeLessThanOrEqual(game.npcs.stats.budgetSpent);
  });

  it("a dead NPC's spawn brings a new one after its respawn time", async () => {
    const game = (
      await npcGame.start({
        width: 30,
        height: 12,
        spawn: { x: 4, y: 6 },
        kinds: [testKind({ name: "rat", typeId: 16, respawnSeconds: 5 })],
        // The map object's respawn (1 s) overrides the kind's (5 s).
        spawns: [{ kind: "rat", x: 10, y: 4, width: 4, height: 4, count: 2, respawn: 1 }],
      })
    ).game;
    const client = await npcGame.connect("witness");
    await client.waitFor("two rats", () => sightings(client, 16).size === 2);
    const [victim, survivor] = [...sightings(client, 16).keys()];
    const killedAt = performance.now();
    expect(game.npcs.kill(victim)).toBe(true);
    expect(game.npcs.size).toBe(1);
    await client.waitFor("the rat gone from view", () => {
      const update = client.latestEntities();
      return update && !update.packets.some((p) => p.entities.some((e) => e.id === victim));
    });
    const replacement = await client.waitFor(
      "a new rat",
      () => [...sightings(client, 16).keys()].find((id) => id !== victim && id !== survivor),
      4000,
    );
    expect(performance.now() - killedAt).toBeGreaterThan(800);
    expect(replacement).toBeGreaterThan(victim); // ids are never reused
    expect(game.npcs.size).toBe(2);
    expect(game.npcs.stats).toMatchObject({ deaths: 1, respawns: 1 });
  });

  it("a guard stands at its post beside a player until provoked, then chases and calms down at home", async () => {
    const game = (
      await npcGame.start({
        width: 40,
        height: 12,
        spawn: { x: 10, y: 6 },
        kinds: [testKind({ name: "guard", typeId: 20, behaviour: "guard", perception: 4, leash: 6, sprite: "guard" })],
        spawns: [{ kind: "guard", x: 12, y: 6 }],
      })
    ).game;
    const client = await npcGame.connect("visitor");
    const [guard] = [...game.npcs.values()];
    expect(guard.entity.flags & ENTITY_FLAG_HOSTILE).toBe(0);
    await walk(client, E, 1); // beside the guard
    await sleep(800);
    expect({ x: guard.entity.x, y: guard.entity.y }).toEqual({ x: 12, y: 6 });
    expect(game.npcs.stats.thinks).toBe(0); // a guard at its post decides nothing
    await walk(client, W, 3); // x = 8, 4 from the guard
    expect(game.npcs.provoke(guard.entity.id, client.joined.entityId)).toBe(true);
    await client.waitFor("the guard hostile and beside the player", () => {
      const seen = latest(client, guard.entity.id);
      return seen && (seen.flags & ENTITY_FLAG_HOSTILE) !== 0 && chebyshev(seen, client.position()!) === 1;
    });
    await walk(client, W, 4); // x = 4: 8 from its post, past its leash of 6
    await client.waitFor(
      "the guard at its post, calm",
      () => {
        const seen = latest(client, guard.entity.id);
        return seen && seen.x === 12 && seen.y === 6 && (seen.flags & ENTITY_FLAG_HOSTILE) === 0;
      },
      5000,
    );
  });
});
