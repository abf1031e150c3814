// The bot driver in-process against the real server on the default caves map:
// every behaviour moves its bots through the shared client core, driven from
// the one loop, and the swarm's figures add up.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCavesServer } from "../../test/support/caves-server.js";
import { Logger } from "../server/ops/log.js";
import { type RunningServer, startServer } from "../server/server.js";
import { testKind, writeNpcMap } from "../../test/support/npc-map.js";
import { loadCore } from "../wasm/node.js";
import { inArea } from "../server/world/areas.js";
import { farthestReachable, type Point } from "./behaviours.js";
import type { BehaviourName } from "./cli-args.js";
import { Swarm } from "./swarm.js";

let server: RunningServer;
const swarms: Swarm[] = [];

beforeAll(async () => {
  ({ server } = await startCavesServer());
});

afterAll(async () => {
  for (const swarm of swarms) swarm.stop();
  await server?.close();
});

function swarmOf(
  behaviour: BehaviourName,
  count: number,
  seed: number,
  goal: Point | null = null,
  http = `http://127.0.0.1:${server.httpPort}`,
) {
  const chosen: Point[] = [];
  const swarm = new Swarm({
    count,
    http,
    server: null,
    behaviour,
    goal,
    netsim: null,
    seed,
    // Swarms of one behaviour share the server at once: the seed keeps their nicks apart (look-alikes are refused).
    nickPrefix: `${behaviour.slice(0, 4)}s${seed}n`,
    joinParallel: 4,
    updateMs: 10,
    loadCore: () => loadCore(),
    onGoalChosen: (point) => chosen.push(point),
  });
  swarms.push(swarm);
  return { swarm, chosen };
}

async function until(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.concurrent("the swarm", () => {
  it("wander: every bot reaches random goals by click-to-move", async ({ expect }) => {
    const { swarm } = swarmOf("wander", 4, 1);
    swarm.start();
    await swarm.joinAll();
    await until("a goal reached by every bot", () => swarm.bots.every((bot) => bot.mind.goalsReached >= 1), 40_000);
    const figures = swarm.figures();
    expect(figures).toMatchObject({ joined: 4, wanted: 4, joinFailures: 0, playing: 4 });
    for (const bot of swarm.bots) expect(bot.mind.goalsAbandoned).toBe(0);
    const summary = swarm.summary();
    expect(summary.stepsSent).toBeGreaterThan(0);
    expect(summary.wasmMiBPerBot).toBeGreaterThanOrEqual(1); // one core instance per bot
    swarm.stop();
    expect(swarm.bots.every((bot) => bot.client.state === "closed")).toBe(true);
  }, 60_000);

  it("delve: a bot takes the stairs down in view of the spawn points and arrives in a dungeon level", async ({
    expect,
  }) => {
    const { swarm } = swarmOf("delve", 1, 7);
    swarm.start();
    await swarm.joinAll();
    const [bot] = swarm.bots;
    const inLevel = () => {
      const me = server.game.entities.get(bot.client.ownEntityId);
      return me !== undefined && server.game.world.levelSlots.some((slot) => inArea(slot, me.x, me.y));
    };
    await until("the bot in a dungeon level", inLevel, 40_000);
    expect(server.game.levels.size).toBeGreaterThanOrEqual(1);
    // The client followed the teleport: its confirmed tile is in the level too.
    await until(
      "the client in the level",
      () => {
        const at = bot.client.confirmed;
        return at !== null && server.game.world.levelSlots.some((slot) => inArea(slot, at.x, at.y));
      },
      10_000,
    );
    swarm.stop();
  }, 60_000);

  it("hunt: bots walk up to a creature they see, across the room", async () => {
    // One statue-still rat (wander 0) 12 tiles east of the spawn: in view, but only a hunter goes to it.
    const npcMap = writeNpcMap({
      width: 40,
      height: 14,
      spawn: { x: 6, y: 7 },
      kinds: [testKind({ name: "rat", typeId: 16, wander: 0 })],
      spawns: [{ kind: "rat", x: 18, y: 7 }],
    });
    const hunted = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: npcMap.path,
      logger: new Logger("silent"),
    });
    try {
      const { swarm } = swarmOf("hunt", 2, 4, null, `http://127.0.0.1:${hunted.httpPort}`);
      swarm.start();
      await swarm.joinAll();
      const [rat] = [...hunted.game.npcs.values()];
      await until(
        "both bots beside the rat",
        () =>
          swarm.bots.every((bot) => {
            const me = hunted.game.entities.get(bot.client.ownEntityId);
            return me !== undefined && Math.max(Math.abs(rat.entity.x - me.x), Math.abs(rat.entity.y - me.y)) <= 1;
          }),
        30_000,
      );
      swarm.stop();
    } finally {
      await hunted.close();
      npcMap.dispose();
    }
  }, 45_000);

  it("fight: bots attack the creatures they see until they die, and they respawn", async ({ expect }) => {
    // Three weak, still rats across the room: the fighters walk up, bump them to death, and look again.
    const npcMap = writeNpcMap({
      width: 40,
      height: 14,
      spawn: { x: 6, y: 7 },
      kinds: [testKind({ name: "rat", typeId: 16, wander: 0, hp: 6, respawnSeconds: 2 })],
      spawns: [{ kind: "rat", x: 16, y: 5, width: 6, height: 5, count: 3 }],
    });
    const arena = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: npcMap.path,
      logger: new Logger("silent"),
    });
    try {
      const { swarm } = swarmOf("fight", 2, 5, null, `http://127.0.0.1:${arena.httpPort}`);
      swarm.start();
      await swarm.joinAll();
      await until("four kills", () => arena.game.combat.stats.kills.npcs >= 4, 30_000);
      expect(arena.game.combat.stats.attacks).toBeGreaterThanOrEqual(4);
      expect(arena.game.npcs.stats.respawns).toBeGreaterThanOrEqual(1);
      swarm.stop();
    } finally {
      await arena.close();
      npcMap.dispose();
    }
  }, 45_000);

  it("talk: bots walk up to the great hall's people, use them and answer the dialogs they open", async ({ expect }) => {
    const scripts = server.game.scripts!;
    const before = { events: scripts.stats.events, replies: server.game.dialogs.stats.replies };
    const { swarm } = swarmOf("talk", 2, 8);
    swarm.start();
    await swarm.joinAll();
    // Mira and Old Tom answer a talk with a dialog; its button press is a reply the server handles.
    await until("a dialog answered", () => server.game.dialogs.stats.replies > before.replies, 40_000);
    expect(scripts.stats.events).toBeGreaterThanOrEqual(before.events + 2); // the talk, and the answer's callback
    expect(scripts.stats.errors).toBe(0);
    swarm.stop();
  }, 60_000);

  it("goto: all bots walk to one goal and stand on it", async ({ expect }) => {
    const spawn = server.game.world.spawns[0];
    const goal = { x: spawn.x, y: spawn.y - 8 }; // across the great hall, past the sign
    expect(server.game.world.walkable(goal.x, goal.y)).toBe(true);
    const { swarm } = swarmOf("goto", 3, 2, goal);
    swarm.start();
    await swarm.joinAll();
    await until("every bot on the goal", () => swarm.bots.every((bot) => bot.mind.goalsReached >= 1), 30_000);
    for (const bot of swarm.bots) {
      expect(bot.client.confirmed).toEqual(goal);
      const entity = server.game.entities.get(bot.client.ownEntityId)!;
      expect({ x: entity.x, y: entity.y }).toEqual(goal);
    }
  }, 60_000);

  it("goto without a goal: picks the farthest tile the first bot can reach, 30+ steps away", async ({ expect }) => {
    const { swarm, chosen } = swarmOf("goto", 1, 3);
    swarm.start();
    await swarm.joinAll();
    await until("the goal choice", () => chosen.length === 1, 20_000);
    const client = swarm.bots[0].client;
    const from = client.confirmed!;
    expect(farthestReachable(client, from)).toEqual(chosen[0]);
    expect(server.game.world.walkable(chosen[0].x, chosen[0].y)).toBe(true);
    const route = client.sim.astar(from.x, from.y, chosen[0].x, chosen[0].y, 20_000);
    expect(route.status).toBeGreaterThanOrEqual(30);
    await until("the bot on its way", () => client.pending.length > 0 || client.goal !== null, 10_000);
  }, 60_000);

  it("keyboard: held directions walk the bots, and they change", async ({ expect }) => {
    const { swarm } = swarmOf("keyboard", 2, 4);
    swarm.start();
    await swarm.joinAll();
    const held = new Set<number>();
    await until(
      "two different held directions and steps",
      () => {
        for (const bot of swarm.bots) held.add(bot.client.heldAction);
        return held.size >= 3 && swarm.summary().stepsSent >= 6;
      },
      30_000,
    );
    expect(held.size).toBeGreaterThanOrEqual(3); // NOOP before the first act, then at least two directions
  }, 60_000);
});

it("joinAll fails with the reason when the server cannot be reached at all", async () => {
  const swarm = new Swarm({
    count: 3,
    http: "http://127.0.0.1:9", // discard port: nothing listens
    server: null,
    behaviour: "wander",
    goal: null,
    netsim: null,
    seed: 1,
    nickPrefix: "lost",
    joinParallel: 2,
    updateMs: 10,
    loadCore: () => loadCore(),
  });
  await expect(swarm.joinAll()).rejects.toThrow(/join: /);
  expect(swarm.bots).toHaveLength(0);
});
