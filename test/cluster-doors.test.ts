// Doors across a border (ts/cluster/door-link.ts), in a real cluster over UDP: a wall along region 1's
// first column with one door in it. A player of region 0 uses the door — a ghost there, held by region 1
// — and region 1 opens it; region 0 learns the cell and lets the player walk through into region 1, which
// then lets it walk back through the same open door. (Before, each region had a door of its own there:
// the one region 0 opened stayed closed in region 1, which stopped the walk back.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENTITY_TYPE_DOOR } from "../ts/entity-types.js";
import { ENTITY_TYPE_SIGN_POST } from "../ts/server/world/interactables.js";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { HANDOFF_MARGIN_TILES } from "../ts/cluster/layout.js";
import { BORDER_X, clusterSkipReason, startTestCluster, type TestCluster, until } from "./support/cluster-process.js";
import { postJson } from "./support/game-harness.js";
import { NPC_DOOR, NPC_FLOOR, NPC_WALL, writeNpcMap } from "./support/npc-map.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const skip = clusterSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-doors.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);
const EAST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 1 && ACTION_DY[code] === 0);
const WIDTH = 80;
const HEIGHT = 70;
const DOOR = { x: BORDER_X, y: 35 };
const SPAWN = { x: BORDER_X - 3, y: 35 };

describe.skipIf(skip !== null)("a door on a border, in a cluster", () => {
  let cluster: TestCluster;
  const clients: UdpTestClient[] = [];
  /** A guest joined through the gateway, bound and placed. */
  async function guest(nick: string): Promise<UdpTestClient> {
    const joined = await postJson(cluster.ready.gateways[0].httpPort, "/api/guest", { nick });
    expect(joined.status).toBe(200);
    const client = await (await UdpTestClient.withSession(joined.body as unknown as Joined)).sign().placed();
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    const map = writeNpcMap({
      width: WIDTH,
      height: HEIGHT,
      tile: (x, y) => {
        if (x === 0 || y === 0 || x === WIDTH - 1 || y === HEIGHT - 1) return NPC_WALL;
        if (x === DOOR.x) return y === DOOR.y ? NPC_DOOR : NPC_WALL;
        return NPC_FLOOR;
      },
      spawn: SPAWN,
      kinds: [],
      spawns: [],
      doors: [{ x: DOOR.x, y: DOOR.y, name: "border door" }],
      signs: [{ name: "border sign", x: DOOR.x - 2, y: DOOR.y - 2, text: "East: region 1" }],
    });
    cluster = await startTestCluster(1, [], map);
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await cluster?.stop();
  }, 20_000);

  it("is used from the other side through its region, and stands open for both", async () => {
    const player = await guest("Porter");
    const id = player.joined.entityId;
    expect(await until("region 0 playing it", async () => (await cluster.ownerOf(id)) === 0)).toBe(true);
    // The door is region 1's: region 0 shows it as a ghost.
    const door = await player.waitFor("the door in view", () => player.inView(ENTITY_TYPE_DOOR)[0]?.id, 5000);
    // Region 1 spawned it (its ids start at 2 × 2^24 + 1: ts/cluster/region.ts).
    expect(door).toBeGreaterThan(2 * 2 ** 24);
    // Up to it, and use it.
    const before = await walkSteps(player, [EAST, EAST]);
    expect(before).toEqual({ x: DOOR.x - 1, y: DOOR.y });
    player.query(door);
    await until("region 1 opened it", async () => ((await cluster.regionStatus(1)).doors?.used ?? 0) >= 1);
    // Through it into region 1 (region 0 knows the cell is open), far enough to be handed over.
    const east = await until(
      "the walk through",
      async () => {
        const at = await walkSteps(player, [EAST]);
        return at.x > DOOR.x - 1 && at;
      },
      5000,
    );
    expect(east).toEqual({ x: DOOR.x, y: DOOR.y });
    const inside = await walkSteps(
      player,
      Array.from({ length: HANDOFF_MARGIN_TILES + 2 }, () => EAST),
    );
    expect(inside.x).toBe(DOOR.x + HANDOFF_MARGIN_TILES + 2);
    expect(await until("region 1 playing it", async () => (await cluster.ownerOf(id)) === 1)).toBe(true);
    // Back through the same door, region 1 deciding: it is open there too.
    const back = await walkSteps(
      player,
      Array.from({ length: inside.x - (DOOR.x - 1) }, () => WEST),
    );
    expect(back).toEqual({ x: DOOR.x - 1, y: DOOR.y });
    const [s0, s1] = await Promise.all([cluster.regionStatus(0), cluster.regionStatus(1)]);
    expect(s0.doors!.sent).toBeGreaterThanOrEqual(1);
    expect(s0.doors!.cellsSet).toBeGreaterThanOrEqual(1);
    expect(s1.doors!.refused).toBe(0);
  }, 60_000);

  it("shows a sign by the border once: each region has its own, and none is a ghost", async () => {
    const reader = await guest("Reader");
    const signs = () => reader.inView(ENTITY_TYPE_SIGN_POST);
    await reader.waitFor("the sign in view", () => signs().length > 0, 5000);
    // Several broadcasts: a ghost from region 1 would have arrived by now.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(signs().map((sign) => [sign.x, sign.y])).toEqual([[DOOR.x - 2, DOOR.y - 2]]);
  }, 30_000);
});
