// A creature crossing a border in a real cluster (ts/cluster/npc-link.ts), over UDP through a gateway:
// a wolf of region 0's spawn wakes for a player standing in region 1 (a ghost in region 0), chases it
// across the border, is handed to region 1 with its chase and bites there; the player sees the same
// wolf, under the same id, all along — and so does a spectator following the wolf through the gateway
// (the console's Follow): its camera goes to region 1 with the wolf, in the same tick (docs/scaling.md
// § Following across regions). Killed in region 1, it is replaced by its spawn in region 0.
// (Before, a creature stayed its spawn's region's wherever it walked, and slept unless one of that
// region's own players was near: this wolf never woke.)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { BORDER_X, clusterSkipReason, startTestCluster, type TestCluster, until } from "./support/cluster-process.js";
import { postJson } from "./support/game-harness.js";
import { testKind, writeNpcMap } from "./support/npc-map.js";
import { type Joined, joinSpectator, UdpTestClient } from "./support/udp-client.js";

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
const TOKEN = "creature-follow-token-0123456789abcdef";
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
  let spectator: UdpTestClient | undefined;
  let dir: string;
  const creatures = async (region: number) =>
    ((await cluster.regionStatus(region)) as unknown as { npcs: CreatureStatus }).npcs;
  /** Region `region`'s spectators, as its /api/status counts them. */
  const spectatorsOf = async (region: number) => {
    const entry = cluster.ready.regions.find((r) => r.region === region)!;
    const status = (await (await fetch(`http://127.0.0.1:${entry.httpPort}/api/status`)).json()) as {
      spectators: { count: number; following: number; handedIn: number; handedOut: number };
    };
    return status.spectators;
  };

  beforeAll(async () => {
    const map = writeNpcMap({
      width: 80,
      height: 70,
      spawn: SPAWN,
      kinds: [WOLF],
      spawns: [{ kind: "wolf", x: HOME.x, y: HOME.y }],
    });
    dir = mkdtempSync(join(tmpdir(), "caves-cluster-creatures-"));
    writeFileSync(join(dir, "admin-token"), `${TOKEN}\n`);
    cluster = await startTestCluster(1, ["--admin-token-file", join(dir, "admin-token")], map);
  }, 120_000);

  afterAll(async () => {
    client?.close();
    spectator?.close();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 20_000);

  it("wakes for a player across the border, chases it over, bites there, and is replaced at home when killed there", async () => {
    // A spectator at the gateway looks at the wolf's home (region 0 serves it) and follows the wolf.
    const watcher = (
      await UdpTestClient.withSession(
        await joinSpectator(cluster.ready.gateways[0].httpPort, { adminToken: TOKEN, at: HOME }),
      )
    ).sign();
    spectator = watcher;
    const watched = () => watcher.inView(WOLF.typeId)[0];
    const sleeping = await watcher.waitFor("the wolf in the spectator's view", () => {
      watcher.action(0, 0);
      return watched();
    });
    watcher.camera(HOME.x, HOME.y, sleeping.id);
    await until("region 0's spectator following", async () => (await spectatorsOf(0)).following === 1);
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
      expect(first.id).toBe(sleeping.id);
      // Its spectator went with it — region 0 let it go in the tick it handed the wolf on, and the
      // gateway carried it to region 1 (another path than the wolf's, so awaited): region 1 serves the view
      // now, still following the wolf, which it sees.
      expect(await spectatorsOf(0)).toMatchObject({ count: 0, handedOut: 1 });
      await until("the spectator in region 1", async () => (await spectatorsOf(1)).handedIn === 1);
      expect(await spectatorsOf(1)).toMatchObject({ count: 1, following: 1, handedIn: 1 });
      const since = watcher.states.length;
      await watcher.waitFor("the wolf in view from region 1", () => {
        watcher.action(0, 0);
        return watcher.states.length > since + 2 && watched()?.id === sleeping.id;
      });
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
