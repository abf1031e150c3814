// A creature crossing a border in a real cluster (ts/cluster/npc-link.ts), over UDP through a gateway:
// a wolf of region 0's spawn wakes for a player standing in region 1 (a ghost in region 0), chases it
// across the border, is handed to region 1 with its chase and bites there; the player sees the same
// wolf, under the same id, all along. Killed in region 1, it is replaced by its spawn in region 0.
// (Before, a creature stayed its spawn's region's wherever it walked, and slept unless one of that
// region's own players was near: this wolf never woke.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { BORDER_X, clusterSkipReason, startTestCluster, type TestCluster, until } from "./support/cluster-process.js";
import { postJson } from "./support/game-harness.js";
import { testKind, writeNpcMap } from "./support/npc-map.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";

const skip = clusterSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-creatures.test.ts skipped: ${skip}\n`);

const WOLF = testKind({
  name: "wolf",
  typeId: 0x301,
  behaviour: "hostile",
  speed: 50,
  hp: 4,
  perception: 20,
  leash: 30,
  attack: 1,
  respawnSeconds: 1,
});
const HOME = { x: BORDER_X - 6, y: 35 };
// The player's spawn: far enough into region 1 to be handed there at once, 12 tiles from the wolf.
const SPAWN = { x: BORDER_X + 6, y: 35 };

interface CreatureStatus {
  count: number;
  away: number;
  holding: number;
  handedOut: number;
  handedIn: number;
  diedAway: number;
  diedHere: number;
}

describe.skipIf(skip !== null)("a creature across a border, in a cluster", () => {
  let cluster: TestCluster;
  let client: UdpTestClient | undefined;
  const creatures = async (region: number) =>
    ((await cluster.regionStatus(region)) as unknown as { npcs: CreatureStatus }).npcs;

  beforeAll(async () => {
    const map = writeNpcMap({
      width: 80,
      height: 70,
      spawn: SPAWN,
      kinds: [WOLF],
      spawns: [{ kind: "wolf", x: HOME.x, y: HOME.y }],
    });
    cluster = await startTestCluster(1, [], map);
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await cluster?.stop();
  }, 20_000);

  it("wakes for a player across the border, chases it over, bites there, and is replaced at home when killed there", async () => {
    const joined = await postJson(cluster.ready.gateways[0].httpPort, "/api/guest", { nick: "Hunter" });
    expect(joined.status).toBe(200);
    client = await (await UdpTestClient.withSession(joined.body as unknown as Joined)).sign().placed();
    const player = client;
    const me = player.joined.entityId;
    expect(await until("region 1 playing the player", async () => (await cluster.ownerOf(me)) === 1)).toBe(true);
    // Keep the session alive and the view flowing while the wolf comes.
    const wolfInView = () => player.inView(WOLF.typeId)[0];
    const keepAlive = setInterval(() => player.action(player.lastState()!.tick + 4, 0), 200);
    try {
      const first = await player.waitFor("the wolf in view", () => wolfInView(), 10_000);
      // Region 0's wolf (its ids start at 2^24 + 1), seen first as a ghost in region 1.
      expect(first.id).toBeLessThan(2 * 2 ** 24);
      await until("the wolf handed to region 1", async () => (await creatures(1)).handedIn >= 1, 15_000);
      const [west, east] = await Promise.all([creatures(0), creatures(1)]);
      expect(west).toMatchObject({ count: 0, away: 1, handedOut: 1 });
      expect(east).toMatchObject({ count: 1, holding: 1 });
      // The same wolf, under the same id, now simulated by region 1: it bites the player there.
      expect(wolfInView()?.id).toBe(first.id);
      await until("the wolf biting", async () => (await cluster.regionStatus(1)).combat.attacks >= 1, 10_000);
    } finally {
      clearInterval(keepAlive);
    }

    // The player fights back until the wolf dies in region 1; region 0's spawn hears of it.
    const died = await until(
      "the wolf dead and its death told at home",
      async () => {
        const wolf = wolfInView();
        const at = player.position();
        if (wolf !== undefined && at !== undefined) {
          const dx = Math.sign(wolf.x - at.x);
          const dy = Math.sign(wolf.y - at.y);
          const code = ACTION_DX.findIndex((ax, c) => c > 0 && ax === dx && ACTION_DY[c] === dy);
          player.action(player.lastState()!.tick + 4, code > 0 ? code : 0);
        } else {
          player.action(player.lastState()!.tick + 4, 0);
        }
        return (await creatures(0)).diedAway >= 1;
      },
      30_000,
    );
    expect(died).toBe(true);
    expect((await creatures(1)).diedHere).toBe(1);
    // Replaced at home after its respawn time (1 s), by region 0.
    await until("a new wolf at home", async () => (await creatures(0)).count === 1, 10_000);
    expect((await creatures(0)).away).toBe(0);
  }, 90_000);
});
