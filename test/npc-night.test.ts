// Night and weather on the creatures (issue 15): fog shortens how far a hostile notices, the night
// gives a kind its night radius, and a hostile spawn keeps more creatures at night (none of the
// extras come back by day). Over real UDP with real wasm, the world clock set as an operator would.
import { afterEach, describe, expect, it } from "vitest";
import { NpcGame } from "./support/npc-game.js";
import { testKind } from "./support/npc-map.js";
import type { UdpTestClient } from "./support/udp-client.js";

const E = 2;
const NOON = 0.5;
const MIDNIGHT = 0;

const npcGame = new NpcGame();
afterEach(() => npcGame.cleanup());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Walks `steps` steps east, one per window, waiting for each to show. */
async function walkEast(client: UdpTestClient, steps: number): Promise<void> {
  for (let step = 0; step < steps; step++) {
    const before = client.position()!;
    client.action(client.lastState()!.tick + 4, E);
    await client.waitFor("a step", () => client.position()!.x !== before.x);
  }
}

/** A spider at (30, 8) in an open room (its kind with `spider`'s fields), a player at the spawn (4, 8), noon. */
async function spiderAndBait(spider: Record<string, unknown>) {
  const { game } = await npcGame.start({
    width: 48,
    height: 16,
    spawn: { x: 4, y: 8 },
    kinds: [
      testKind({
        name: "spider",
        typeId: 18,
        behaviour: "hostile",
        perception: 6,
        leash: 20,
        wander: 0,
        sprite: "spider",
        ...spider,
      }),
    ],
    spawns: [{ kind: "spider", x: 30, y: 8 }],
  });
  game.worldClock.setTimeOfDay(NOON, game.tick);
  const client = await npcGame.connect("bait");
  const [npc] = [...game.npcs.values()];
  return { game, client, npc };
}

describe("creatures at night and in bad weather", () => {
  it("fog halves a hostile's perception: 5 tiles away it notices in clear weather, not in fog", async () => {
    const { game, client, npc } = await spiderAndBait({});
    game.worldClock.setWeather("fog", game.tick);
    await walkEast(client, 21); // to x = 25: 5 from the spider; in fog it notices within 3
    await sleep(800);
    expect(npc.entity.x).toBe(30);
    game.worldClock.setWeather("clear", game.tick);
    await client.waitFor("the spider coming", () => npc.entity.x < 30, 3000);
  });

  it("at night a kind notices from its night radius", async () => {
    const { game, client, npc } = await spiderAndBait({ nightPerception: 9 });
    await walkEast(client, 18); // to x = 22: 8 from the spider, past its day radius of 6
    await sleep(800);
    expect(npc.entity.x).toBe(30);
    game.worldClock.setTimeOfDay(MIDNIGHT, game.tick);
    await client.waitFor("the spider coming", () => npc.entity.x < 30, 3000);
  });

  it("a hostile spawn keeps half again as many at night, and the extras are not replaced by day", async () => {
    const { game } = await npcGame.start({
      width: 30,
      height: 12,
      spawn: { x: 4, y: 6 },
      kinds: [testKind({ name: "bat", typeId: 19, behaviour: "hostile", perception: 3, leash: 6, sprite: "spider" })],
      spawns: [{ kind: "bat", x: 14, y: 3, width: 6, height: 6, count: 4, respawn: 1 }],
    });
    game.worldClock.setTimeOfDay(NOON, game.tick);
    await sleep(300);
    expect(game.npcs.size).toBe(4);
    game.worldClock.setTimeOfDay(MIDNIGHT, game.tick);
    // ⌈4 × 1.5⌉ = 6: two more, a respawn time (1 s) apart.
    await waitUntil(() => game.npcs.size === 6, 5000);
    game.worldClock.setTimeOfDay(NOON, game.tick);
    await sleep(200);
    const [first, second, third] = [...game.npcs.values()];
    for (const bat of [first, second]) expect(game.npcs.kill(bat.entity.id)).toBe(true);
    await sleep(2500); // past the respawn time: the spawn is at its day count of 4, so none come back
    expect(game.npcs.size).toBe(4);
    expect(game.npcs.kill(third.entity.id)).toBe(true); // below 4 now: this one is replaced
    await waitUntil(() => game.npcs.size === 4, 4000);
  });
});

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const start = performance.now();
  while (!condition()) {
    if (performance.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(50);
  }
}
