// Dungeon levels in a cluster (ts/cluster/cluster-levels.ts, docs/scaling.md § Dungeon levels), over real
// processes — the launcher's redis-server and PostgreSQL, two regions, a gateway — and real UDP clients, on
// the bundled map cut so that its far stairs down lie on region 1's first column. Ada plays in region 0 and
// steps onto them from the west — still region 0's by the handoff margin — and Bob plays in region 1 and
// steps onto them from the east: both go down into the one level region 1 holds below those stairs, and see
// each other there. Ada leaves a torch below (its row names the level and the cell), goes up and is on the
// stairs. Region 1 is killed with SIGKILL: restored from its checkpoint, Bob is back in the level (made again
// from its seed) at his cell, the torch at its cell (read from PostgreSQL), and Ada on the stairs. Then Bob
// logs in again through the gateway — region 0 runs every login — and is back at his cell below region 1's
// stairs, his place read from PostgreSQL.
import { resolve } from "node:path";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENTITY_TYPE_PLAYER } from "../ts/entity-types.js";
import { ENTITY_TYPE_CHEST, ENTITY_TYPE_ITEM } from "../ts/item-types.js";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { isFreeTile } from "../ts/tile-flags.js";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import { DEFAULT_GAME_OPTIONS } from "../ts/server/game-options.js";
import { generateDungeon } from "../ts/server/dungeon/generate-dungeon.js";
import { levelSeed } from "../ts/server/dungeon/levels.js";
import { type AreaRect, inArea, layoutAreas } from "../ts/server/world/areas.js";
import { readWorld } from "../ts/server/world/world-areas.js";
import {
  clusterSkipReason,
  connectStore,
  startTestCluster,
  type TestCluster,
  until,
} from "./support/cluster-process.js";
import { postJson } from "./support/game-harness.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";
import { bagOf, itemRequest } from "./support/item-client.js";
import { lines } from "./support/chat-lines.js";

const skip = clusterSkipReason() ?? postgresSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-levels.test.ts skipped: ${skip}\n`);

const BUNDLED = resolve(import.meta.dirname, "../maps/caves.tmj");
/** The far hall's spiders, which would bite the players waiting there (a death sends one to the spawn). */
const FAR_HALL_SPIDERS = { x: 1464, y: 184 };

/** A chest by the far stairs on region 0's ground (tile units), holding a torch for Ada to leave below. */
const HALL_CHEST = { x: 189, y: 30 };

/**
 * The bundled map, without the far hall's spiders and with HALL_CHEST, in `dir` with its tile data, kinds and
 * items beside it.
 */
function writeMap(dir: string): string {
  const tmj = JSON.parse(readFileSync(BUNDLED, "utf8")) as {
    layers: { name: string; objects?: { x: number; y: number }[] }[];
    tilewidth: number;
  };
  for (const layer of tmj.layers) {
    layer.objects = layer.objects?.filter(
      (object) => object.x !== FAR_HALL_SPIDERS.x || object.y !== FAR_HALL_SPIDERS.y,
    );
  }
  const px = (tile: number) => tile * tmj.tilewidth + tmj.tilewidth / 2;
  tmj.layers
    .find((layer) => layer.name === "interactables")!
    .objects!.push({
      id: 9001,
      name: "hall chest",
      type: "",
      x: px(HALL_CHEST.x),
      y: px(HALL_CHEST.y),
      width: 0,
      height: 0,
      rotation: 0,
      visible: true,
      point: true,
      properties: [
        { name: "items", type: "string", value: "torch" },
        { name: "kind", type: "string", value: "chest" },
      ],
    } as { x: number; y: number });
  const path = join(dir, "caves.tmj");
  writeFileSync(path, JSON.stringify(tmj));
  for (const side of ["tiles", "npcs", "items"]) {
    copyFileSync(BUNDLED.replace(/\.tmj$/, `.${side}.json`), join(dir, `caves.${side}.json`));
  }
  return path;
}
const world = readWorld(BUNDLED).map;
/** The far hall's stairs down, (192, 31): chunk column 6, region 1's first. */
const STAIRS = world.warps!.filter((warp) => warp.stairs === "down")[1];
const REGIONS: { region: number; chunks: [number, number, number, number] }[] = [
  { region: 0, chunks: [0, 0, 6, 7] },
  { region: 1, chunks: [6, 0, 7, 7] },
];
const TOKEN = "c".repeat(16) + "0123456789abcdef0123456789abcdef";
const { levelSlots, levelSize, dungeonSeed } = DEFAULT_GAME_OPTIONS;
/** Region 1's level slots: every region's are laid out, region r's from r × levelSlots on. */
const REGION_1_SLOTS = layoutAreas([world], levelSlots * REGIONS.length, levelSize).slots.slice(levelSlots);
/** The level below the far stairs, as region 1's worker makes it. */
const LEVEL = generateDungeon({
  seed: levelSeed(dungeonSeed, STAIRS.y * 65536 + STAIRS.x),
  depth: 1,
  width: levelSize,
  height: levelSize,
});
const step = (dx: number, dy: number) =>
  ACTION_DX.findIndex((ax, code) => code > 0 && ax === dx && ACTION_DY[code] === dy);
const EAST = step(1, 0);
const WEST = step(-1, 0);

/** The level slot of region 1 holding (x, y), if any. */
const slotOf = (at: { x: number; y: number } | undefined): AreaRect | undefined =>
  at === undefined ? undefined : REGION_1_SLOTS.find((slot) => inArea(slot, at.x, at.y));

describe.skipIf(skip !== null)("dungeon levels in a cluster", () => {
  let cluster: TestCluster;
  let dir: string;
  /** The cluster's PostgreSQL, as the test reads it. */
  let store: pg.Client | undefined;
  const clients: UdpTestClient[] = [];
  const gateway = () => cluster.ready.gateways[0].httpPort;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "caves-cluster-levels-"));
    const tokenFile = join(dir, "admin-token");
    writeFileSync(tokenFile, `${TOKEN}\n`);
    cluster = await startTestCluster(
      1,
      ["--admin-token-file", tokenFile],
      { path: writeMap(dir), dispose: () => {} },
      REGIONS,
    );
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await store?.end().catch(() => {});
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 20_000);

  async function playing(joined: Joined): Promise<UdpTestClient> {
    const client = (await UdpTestClient.withSession(joined)).sign();
    clients.push(client);
    return client.placed();
  }
  async function register(name: string): Promise<UdpTestClient> {
    const answer = await postJson(gateway(), "/api/register", { name, password: `${name}-password`, nick: name });
    expect(answer.status).toBe(200);
    return playing(answer.body as unknown as Joined);
  }
  async function teleport(client: UdpTestClient, to: { x: number; y: number }): Promise<void> {
    const response = await fetch(`http://127.0.0.1:${gateway()}/api/admin/teleport`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ entityId: client.joined.entityId, ...to }),
    });
    expect(response.status).toBe(200);
    await client.waitFor("the teleport", () => {
      const at = client.position();
      return at?.x === to.x && at.y === to.y;
    });
  }
  async function levelsOf(region: number): Promise<{ held: number; generated: number; broughtBack: number }> {
    const { httpPort } = cluster.ready.regions.find((entry) => entry.region === region)!;
    const status = (await (await fetch(`http://127.0.0.1:${httpPort}/api/status`)).json()) as {
      levels: { held: number; generated: number; broughtBack: number };
    };
    return status.levels;
  }
  const free = (x: number, y: number) => isFreeTile(world.flags, world.tiles[y * world.width + x], 0);
  const freeInLevel = (x: number, y: number) => isFreeTile(world.flags, LEVEL.tiles[y * LEVEL.width + x], 0);
  /** Steps from the level's stairs up onto the free cells beside them. */
  const offEntry = [
    [1, 0],
    [-1, 0],
    [0, 1],
    [0, -1],
  ].filter(([dx, dy]) => freeInLevel(LEVEL.entry.x + dx, LEVEL.entry.y + dy));

  it("two players from two regions take the same stairs into one level and meet; up is back on the stairs; a SIGKILL of the level's region and a new login bring the player back into it", async () => {
    // The hall around the far stairs is open floor: three tiles west (region 0's ground), five east (region 1's).
    const west = { x: STAIRS.x - 3, y: STAIRS.y };
    const east = { x: STAIRS.x + 5, y: STAIRS.y };
    for (let x = west.x; x <= east.x; x++) expect(free(x, STAIRS.y)).toBe(true);
    const ada = await register("ada");
    const bob = await register("bob");
    await teleport(ada, west);
    await teleport(bob, east);
    // Ada takes the torch from the chest beside her (region 0's), to leave it below.
    const chest = await ada.waitFor(
      "the hall chest in view",
      () => ada.inView(ENTITY_TYPE_CHEST).find((seen) => seen.x === HALL_CHEST.x && seen.y === HALL_CHEST.y)?.id,
    );
    expect(await itemRequest(ada, 1, "take", { container: chest, slot: 0 })).toBe("ok");
    const [torch] = await bagOf(ada);
    await until(
      "Ada in region 0, Bob in region 1",
      async () =>
        (await cluster.ownerOf(ada.joined.entityId)) === 0 && (await cluster.ownerOf(bob.joined.entityId)) === 1,
    );

    // Ada steps onto the stairs from the west: one tile into region 1's ground, within the margin, so still
    // region 0's player — the stairs are region 1's, which takes her down. Bob steps on them from the east.
    await walkSteps(ada, [EAST, EAST, EAST]);
    await walkSteps(bob, [WEST, WEST, WEST, WEST, WEST]);
    // The level is made in region 1's worker meanwhile (the players wait on the stairs).
    const entry = await until(
      "both below, in one slot of region 1",
      async () => {
        const slot = slotOf(ada.position());
        return slot !== undefined && slotOf(bob.position()) === slot && slot;
      },
      30_000,
    );
    expect(ada.position()).toEqual({ x: entry.x + LEVEL.entry.x, y: entry.y + LEVEL.entry.y });
    expect(await cluster.ownerOf(ada.joined.entityId)).toBe(1);
    // One level instance, region 1's: region 0 made none.
    expect(await levelsOf(1)).toMatchObject({ held: 1, generated: 1 });
    expect(await levelsOf(0)).toMatchObject({ held: 0, generated: 0 });
    // They see each other there.
    await ada.waitFor("Bob in Ada's view", () =>
      ada.inView(ENTITY_TYPE_PLAYER).some((entity) => entity.id === bob.joined.entityId),
    );
    await bob.waitFor("Ada in Bob's view", () =>
      bob.inView(ENTITY_TYPE_PLAYER).some((entity) => entity.id === ada.joined.entityId),
    );

    // Bob steps off the stairs up; Ada steps off them the other way, leaves the torch there, and steps back
    // on: up, back on the map's stairs.
    const [[dx, dy], [ex, ey]] = offEntry;
    const cell = { x: LEVEL.entry.x + dx, y: LEVEL.entry.y + dy };
    const pileCell = { x: LEVEL.entry.x + ex, y: LEVEL.entry.y + ey };
    expect(await walkSteps(bob, [step(dx, dy)])).toEqual({ x: entry.x + cell.x, y: entry.y + cell.y });
    expect(await walkSteps(ada, [step(ex, ey)])).toEqual({ x: entry.x + pileCell.x, y: entry.y + pileCell.y });
    expect(await itemRequest(ada, 2, "drop", { slot: torch.slot, count: 1 })).toBe("ok");
    // Written with the level's identity and its level-relative cell (one process's rule).
    const db = (store = await connectStore(cluster));
    const pileRows = async () =>
      (
        await db.query<{ x: string; y: string; seed: string; depth: string; item: string }>(
          `SELECT x, y, level_seed AS seed, level_depth AS depth, item_id AS item FROM item_piles
           WHERE level_seed IS NOT NULL`,
        )
      ).rows;
    const kept = [
      {
        x: String(pileCell.x),
        y: String(pileCell.y),
        seed: String(LEVEL.seed),
        depth: "1",
        item: String(torch.itemId),
      },
    ];
    expect(await pileRows()).toEqual(kept);
    await walkSteps(ada, [step(-ex, -ey)]);
    await ada.waitFor("Ada up on the stairs", () => {
      const at = ada.position();
      return at?.x === STAIRS.x && at.y === STAIRS.y;
    });
    // Still region 1's (its ground); the level stays held for Bob.
    expect(await cluster.ownerOf(ada.joined.entityId)).toBe(1);

    // Region 1 killed: restored from its checkpoint, Bob below at his cell (the level made again), Ada on the stairs.
    const redis = new Redis(cluster.ready.redis);
    try {
      const endpoint = async () =>
        JSON.parse((await redis.get("fc:region:1")) ?? "null") as { pid: number; httpPort: number } | null;
      const checkpointed = async (client: UdpTestClient) =>
        (await redis.hget("fc:checkpoint:1", client.token.toString(16).padStart(16, "0"))) ?? "";
      await until(
        "Bob's checkpoint below and Ada's on the stairs",
        async () => (await checkpointed(bob)).includes('"below":{') && !(await checkpointed(ada)).includes('"below":{'),
      );
      const before = (await endpoint())!;
      const states = { ada: ada.states.length, bob: bob.states.length };
      process.kill(before.pid, "SIGKILL");
      const keepAlive = setInterval(() => {
        ada.action(0, 0);
        bob.action(0, 0);
      }, 200);
      try {
        await until("region 1 restarted", async () => (await endpoint())?.pid !== before.pid, 30_000);
        await bob.waitFor("Bob back below", () => bob.states.length > states.bob + 5 && slotOf(bob.position()), 30_000);
        await ada.waitFor("Ada back in play", () => ada.states.length > states.ada + 5 && ada.position(), 30_000);
      } finally {
        clearInterval(keepAlive);
      }
      const slot = slotOf(bob.position())!;
      expect(bob.position()).toEqual({ x: slot.x + cell.x, y: slot.y + cell.y });
      // The torch lies at its cell again: read from PostgreSQL by the new process, back with the level.
      await bob.waitFor("the torch at its cell", () =>
        bob.inView(ENTITY_TYPE_ITEM).some((pile) => pile.x === slot.x + pileCell.x && pile.y === slot.y + pileCell.y),
      );
      expect(await pileRows()).toEqual(kept);
      expect(ada.position()).toEqual({ x: STAIRS.x, y: STAIRS.y });
      cluster.ready.regions.find((entry) => entry.region === 1)!.httpPort = (await endpoint())!.httpPort;
      expect(await levelsOf(1)).toMatchObject({ held: 1, broughtBack: 1 });
    } finally {
      redis.disconnect();
    }

    // Bob logs in again (his session there ends, saved below): region 0 runs the login, reads his place from
    // PostgreSQL — below region 1's stairs — and hands him to region 1, which takes him back to his cell.
    const login = await postJson(gateway(), "/api/login", { name: "bob", password: "bob-password" });
    expect(login.status).toBe(200);
    const again = await playing(login.body as unknown as Joined);
    const back = await again.waitFor("Bob below again", () => slotOf(again.position()), 30_000);
    expect(again.position()).toEqual({ x: back.x + cell.x, y: back.y + cell.y });
    const row = (
      await db.query<{ seed: string; depth: string; x: string; y: string; stairsX: string; stairsY: string }>(
        `SELECT dungeon_seed AS seed, dungeon_depth AS depth, dungeon_x AS x, dungeon_y AS y,
                c.x AS "stairsX", c.y AS "stairsY"
         FROM characters c JOIN accounts a ON a.id = c.account_id WHERE a.name_key = 'bob'`,
      )
    ).rows[0];
    expect(row).toEqual({
      seed: String(LEVEL.seed),
      depth: "1",
      x: String(cell.x),
      y: String(cell.y),
      stairsX: String(STAIRS.x),
      stairsY: String(STAIRS.y),
    });

    // Bob leaves (saved below) and logs in while region 1 is down — killed, with the launcher frozen so it is
    // not started again yet. Region 0 holds him on the stairs and tries to hand him to region 1 once a second
    // (the gateway sends each try back), not every tick, and tells him why he waits; once region 1 is back
    // he goes down to his cell.
    again.leave();
    await until("Bob's session ended", async () => (await cluster.ownerOf(again.joined.entityId)) === null);
    const redisNow = new Redis(cluster.ready.redis);
    const launcher = cluster.process.pid;
    let frozen = false;
    try {
      const down = JSON.parse((await redisNow.get("fc:region:1"))!) as { pid: number };
      process.kill(launcher, "SIGSTOP");
      frozen = true;
      process.kill(down.pid, "SIGKILL");
      const relogin = await postJson(gateway(), "/api/login", { name: "bob", password: "bob-password" });
      expect(relogin.status).toBe(200);
      const waiting = await playing(relogin.body as unknown as Joined);
      const keepAlive = setInterval(() => waiting.action(0, 0), 200);
      try {
        await waiting.waitFor("Bob on the stairs, waiting", () => {
          const at = waiting.position();
          return at?.x === STAIRS.x && at.y === STAIRS.y;
        });
        const first = await cluster.regionStatus(0);
        await new Promise((resolve) => setTimeout(resolve, 4_000));
        const later = await cluster.regionStatus(0);
        const seconds = (later.tick - first.tick) / DEFAULT_GAME_OPTIONS.tickHz;
        const tries = later.handoffsOut - first.handoffsOut;
        // At most one try a second (HANDOFF_RETRY_MS); every tick, as before, was tickHz a second.
        expect(tries).toBeGreaterThan(0);
        expect(tries).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
        expect((later as unknown as { handoffsBounced: number }).handoffsBounced).toBeGreaterThan(0);
        expect(waiting.position()).toEqual({ x: STAIRS.x, y: STAIRS.y });
        expect(
          lines(waiting).filter((line) => line.text.startsWith("The level below is held by a part of the world")),
        ).toHaveLength(1);
        process.kill(launcher, "SIGCONT");
        frozen = false;
        const slot = await waiting.waitFor("Bob below once region 1 is back", () => slotOf(waiting.position()), 40_000);
        expect(waiting.position()).toEqual({ x: slot.x + cell.x, y: slot.y + cell.y });
      } finally {
        clearInterval(keepAlive);
      }
    } finally {
      if (frozen) process.kill(launcher, "SIGCONT");
      redisNow.disconnect();
    }
  }, 240_000);
});
