// A player saved in a dungeon level (issues 15 and 41, docs/dungeons.md § Saved
// in a level), over real loopback UDP and a real SQLite file: levels do not
// outlive the process, so a character in one is saved with the level's seed,
// depth and size and its cell in it (and the map's stairs down it came by) —
// every periodic save, so a crash too — and logging in again (which ends the old
// session) or after a restart puts it back at that cell, the level regenerated
// from its seed if it was dropped, in whatever slot; two levels down too. A pile
// dropped in a level stays with the level: stored the same way, out of the world
// while the level is dropped, back at that cell when the level is generated
// again — after a restart too, in another slot. The crash itself:
// test/dungeon-restart.test.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { AccountRequest } from "../ts/client/core/account-api.js";
import type { GameClient, ItemEvent } from "../ts/client/core/index.js";
import { inArea } from "../ts/server/world/areas.js";
import { Logger } from "../ts/server/ops/log.js";
import { openGameDatabase } from "../ts/server/persistence/database.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { levelSeed } from "../ts/server/dungeon/levels.js";
import { PILES_MAX } from "../ts/server/items/chests-and-piles.js";
import { readWorld } from "../ts/server/world/world-areas.js";
import { drive } from "./client-core-support.js";
import { playAccount } from "./support/account-client.js";

const MAP = resolve(import.meta.dirname, "../maps/caves.tmj");
const dir = mkdtempSync(join(tmpdir(), "caves-level-save-"));
const dbPath = join(dir, "caves.sqlite");
let server: RunningServer | undefined;
const clients: GameClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function start(levelSlots = 1, path = dbPath, dungeonSeed?: number): Promise<RunningServer> {
  return startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: MAP,
    logger: new Logger("silent"),
    levelSlots,
    levelKeepEmptyMs: 1000,
    database: openGameDatabase(path),
    ...(dungeonSeed === undefined ? {} : { dungeonSeed }),
  });
}

async function play(running: RunningServer, request: AccountRequest, told: string[] = []): Promise<GameClient> {
  const client = await playAccount(running.httpPort, request, told);
  clients.push(client);
  return client;
}

async function walkTo(client: GameClient, goal: { x: number; y: number }, what: string, done: () => boolean) {
  // Just after a level change the client may not have the level's chunks yet: a route once they streamed.
  await drive([client], `a route: ${what}`, () => ["planned", "unchanged"].includes(client.setGoal(goal.x, goal.y)));
  await drive([client], what, done, 20_000);
}

async function answered(client: GameClient, events: ItemEvent[], requestId: number | null): Promise<string> {
  let status = "";
  await drive([client], `the result of request ${requestId}`, () => {
    const event = events.find((seen) => seen.kind === "result" && seen.request.requestId === requestId);
    if (event?.kind === "result") status = event.status;
    return status !== "";
  });
  return status;
}

describe("saved in a dungeon level", () => {
  it("logged out or restarted in a level: back at its cell in the level; a pile left below stays with its level and comes back at its cell", async () => {
    const [stairs, farStairs] = readWorld(MAP).warps.filter((warp) => warp.stairs === "down");
    const register: AccountRequest = { kind: "register", name: "delver", password: "delver-pw-1", nick: "Delver" };
    const login: AccountRequest = { kind: "login", name: "delver", password: "delver-pw-1" };
    let running = (server = await start());
    const game = () => running.game;
    const saved = () =>
      game()
        .database.db.prepare(
          "SELECT x, y, dungeon_seed AS seed, dungeon_depth AS depth, dungeon_x AS cellX, dungeon_y AS cellY " +
            "FROM characters JOIN accounts ON accounts.id = account_id WHERE nick = 'Delver'",
        )
        .get() as { x: number; y: number; seed: number | null; depth: number | null; cellX: number; cellY: number };
    const piles = () =>
      game()
        .database.db.prepare(
          "SELECT x, y, item_id AS itemId, count, level_seed AS seed, level_depth AS depth, level_size AS size FROM item_piles",
        )
        .all() as { x: number; y: number; itemId: number; count: number; seed: number; depth: number; size: number }[];
    const beside = (at: { x: number; y: number }) =>
      [
        [1, 0],
        [-1, 0],
        [0, 1],
        [0, -1],
      ]
        .map(([dx, dy]) => ({ x: at.x + dx, y: at.y + dy }))
        .find((tile) => game().world.walkable(tile.x, tile.y) && game().warps.at(tile.x, tile.y) === undefined)!;
    const standsAt = (client: GameClient, at: { x: number; y: number }) => () =>
      client.confirmed?.x === at.x && client.confirmed.y === at.y;

    // A torch from the supply chest, to leave below.
    let client = await play(running, register);
    const events: ItemEvent[] = [];
    client.items.listen((event) => events.push(event));
    const torch = [...client.itemCatalogue.values()].find((item) => item.name === "torch")!.id;
    const chest = game().items.chestNamed("supply chest")!;
    await walkTo(client, beside(chest), "beside the chest", () => client.goal === null && client.pending.length === 0);
    client.interact(chest.id);
    await drive([client], "the chest window", () => client.items.chest !== null);
    const inChest = client.items.chest!.stacks.find((stack) => stack.itemId === torch)!;
    expect(await answered(client, events, client.take(chest.id, inChest.slot))).toBe("ok");
    await drive([client], "the torch in the bag", () =>
      (client.items.inventory?.stacks ?? []).some((stack) => stack.itemId === torch),
    );

    // Down the stairs, and a step off the stairs up.
    let slot = game().world.levelSlots[0];
    const inLevel = () => client.confirmed !== null && inArea(slot, client.confirmed.x, client.confirmed.y);
    await walkTo(client, stairs, "arrival in the level", inLevel);
    const entry = { ...client.confirmed! };
    const dropAt = beside(entry);
    await walkTo(client, dropAt, "a step off the stairs up", standsAt(client, dropAt));
    // Saved there while it plays: the level (what regenerates it tile for tile), its cell in it, and the map's
    // stairs down to it — every periodic save, so a crash finds it there too (dungeon-restart.test.ts).
    const level = game().levels.inSlot(0)!;
    const cell = { x: dropAt.x - slot.x, y: dropAt.y - slot.y };
    const savedBelow = { x: stairs.x, y: stairs.y, seed: level.seed, depth: level.depth, cellX: cell.x, cellY: cell.y };
    await drive([client], "a save in the level", () => JSON.stringify(saved()) === JSON.stringify(savedBelow), 5000);

    // Logging in again ends the session in the level: the character goes on where it stood, in the level.
    client.close();
    client = await play(running, login);
    const laterEvents: ItemEvent[] = [];
    client.items.listen((event) => laterEvents.push(event));
    await drive([client], "back where it stood", standsAt(client, dropAt));

    // The torch dropped there: stored with its level at the cell relative to the level's corner.
    await drive([client], "the bag", () => (client.items.inventory?.stacks ?? []).some((s) => s.itemId === torch));
    const bagSlot = client.items.inventory!.stacks.find((stack) => stack.itemId === torch)!.slot;
    expect(await answered(client, laterEvents, client.drop(bagSlot))).toBe("ok");
    const row = {
      ...cell,
      itemId: torch,
      count: 1,
      seed: level.seed,
      depth: level.depth,
      size: game().options.levelSize,
    };
    expect(piles()).toEqual([row]);

    // Up the stairs to the map (a step off the torch, which stays).
    await walkTo(client, entry, "up to the map", standsAt(client, stairs));
    // The level, empty, is dropped: the torch leaves the world with it — not to the stairs — and its row stays.
    await drive([client], "the empty level dropped", () => game().levels.size === 0, 10_000);
    expect(piles()).toEqual([row]);
    expect(game().items.pileCount).toBe(0);
    expect(game().items.dormantPileCount).toBe(1);

    // Down again (off the stairs and back on): the level comes back from its seed, the torch at its cell.
    const off = beside(stairs);
    await walkTo(client, off, "a step off the stairs", standsAt(client, off));
    await walkTo(client, stairs, "down again", inLevel);
    expect(game().levels.inSlot(0)).toMatchObject({ seed: level.seed, depth: level.depth });
    const torchSeen = (at: { x: number; y: number }) => () =>
      [...client.entities.values()].some(
        (entity) =>
          entity.x === at.x &&
          entity.y === at.y &&
          entity.meta.some((tlv) => tlv.kind === "item" && tlv.itemId === torch),
      );
    await drive([client], "the torch at its cell again", torchSeen(dropAt));
    expect(game().items.dormantPileCount).toBe(0);
    expect(piles()).toEqual([row]);

    // The server stops with the torch lying below and the player on the stairs up beside it (a crash leaves the
    // same rows: nothing is written when a level goes). After the restart, with two slots, someone else takes
    // the other stairs first, so the level comes back in the second slot when the player logs in: the torch is
    // out of the world until then, then at its cell there, and the player where it stood, on the stairs up.
    const entryCell = { cellX: entry.x - slot.x, cellY: entry.y - slot.y };
    client.close();
    await running.close();
    running = server = await start(2);
    expect(saved()).toEqual({ ...savedBelow, ...entryCell });
    expect(piles()).toEqual([row]);
    expect(game().items.pileCount).toBe(0);
    expect(game().items.dormantPileCount).toBe(1);
    const other = await play(running, { kind: "register", name: "other", password: "other-pw-1", nick: "Other" });
    const otherEntity = [...game().sessions.values()].find((session) => session.nick === "Other")!.entity;
    const nearFar = beside(farStairs);
    game().warps.teleport(otherEntity, nearFar.x, nearFar.y);
    await drive([other], "the other beside the far stairs", standsAt(other, nearFar));
    const [first, second] = game().world.levelSlots;
    await walkTo(
      other,
      farStairs,
      "the other in the first slot",
      () => other.confirmed !== null && inArea(first, other.confirmed.x, other.confirmed.y),
    );
    client = await play(running, login);
    slot = second;
    const entryAgain = { x: second.x + entryCell.cellX, y: second.y + entryCell.cellY };
    await drive([client], "back on the stairs up, in the second slot", standsAt(client, entryAgain));
    expect(game().levels.inSlot(1)).toMatchObject({ seed: level.seed, depth: level.depth });
    // Arriving on the stairs up is not taking them.
    const arrivedAt = game().tick;
    await drive([client], "three movement windows", () => game().tick >= arrivedAt + 12);
    expect(client.confirmed).toEqual(entryAgain);
    const again = { x: second.x + cell.x, y: second.y + cell.y };
    await drive([client], "the torch at its cell in the second slot", torchSeen(again));
    expect(piles()).toEqual([row]);

    // It is a real pile: stepping onto it picks it up, and the row is gone.
    await walkTo(client, again, "onto the torch", standsAt(client, again));
    await drive([client], "the torch picked up", () =>
      (client.items.inventory?.stacks ?? []).some((stack) => stack.itemId === torch),
    );
    expect(piles()).toEqual([]);
  }, 120_000);

  it("two levels down: back at its cell at depth 2 after a restart, its stairs up leading where they did; every slot held: on the map's stairs, told why", async () => {
    const [stairs, farStairs] = readWorld(MAP).warps.filter((warp) => warp.stairs === "down");
    const path = join(dir, "deeper.sqlite");
    let running = (server = await start(2, path));
    const game = () => running.game;
    const standsAt = (client: GameClient, at: { x: number; y: number }) => () =>
      client.confirmed?.x === at.x && client.confirmed.y === at.y;
    const entityOf = (nick: string) => [...game().sessions.values()].find((session) => session.nick === nick)!.entity;
    /** The level slot `client` stands in, if any. */
    const slotOf = (client: GameClient) =>
      client.confirmed === null
        ? undefined
        : game().world.levelSlots.find((slot) => inArea(slot, client.confirmed!.x, client.confirmed!.y));
    /** The stairs named `name` of the level `client` stands in. */
    const stairsHere = (client: GameClient, name: string) =>
      game()
        .warps.all()
        .find((warp) => warp.name === name && inArea(slotOf(client)!, warp.x, warp.y))!;
    const free = (at: { x: number; y: number }) =>
      [
        { x: at.x + 1, y: at.y },
        { x: at.x - 1, y: at.y },
        { x: at.x, y: at.y + 1 },
        { x: at.x, y: at.y - 1 },
      ].find((cell) => game().world.walkable(cell.x, cell.y) && game().warps.at(cell.x, cell.y) === undefined)!;
    const depthOf = (client: GameClient) => {
      const slot = slotOf(client);
      return slot === undefined ? 0 : game().levels.inSlot(game().world.levelSlots.indexOf(slot))!.depth;
    };

    // Down to depth 1, then beside its stairs down and onto them: depth 2.
    let client = await play(running, { kind: "register", name: "deep", password: "deep-pw-123", nick: "Deep" });
    const off = free(stairs);
    game().warps.teleport(entityOf("Deep"), off.x, off.y);
    await drive([client], "beside the stairs", standsAt(client, off));
    await walkTo(client, stairs, "depth 1", () => depthOf(client) === 1);
    const down = stairsHere(client, "stairs down");
    const exitOfFirst = { x: down.x - slotOf(client)!.x, y: down.y - slotOf(client)!.y };
    const nearDown = free(down);
    game().warps.teleport(entityOf("Deep"), nearDown.x, nearDown.y);
    await drive([client], "beside the stairs down", standsAt(client, nearDown));
    await walkTo(client, down, "depth 2", () => depthOf(client) === 2);
    const entry = stairsHere(client, "stairs up");
    const cell = free(entry);
    await walkTo(client, cell, "a step into depth 2", standsAt(client, cell));
    client.close();
    await running.close();

    // A restart: depth 2 comes back from its seed (the chain above it known again), the player at its cell in
    // whichever slot it lands (the first, now); its stairs up lead to depth 1's stairs down, depth 1's up to the
    // map's stairs.
    running = server = await start(2, path);
    client = await play(running, { kind: "login", name: "deep", password: "deep-pw-123" });
    await drive([client], "back at depth 2", () => depthOf(client) === 2);
    const [firstSlot] = game().world.levelSlots;
    const before = game().world.levelSlots[1];
    const shifted = (at: { x: number; y: number }) => ({
      x: at.x - before.x + firstSlot.x,
      y: at.y - before.y + firstSlot.y,
    });
    const back = slotOf(client) === firstSlot ? shifted(cell) : cell;
    await drive([client], "at its cell", standsAt(client, back));
    const entryNow = stairsHere(client, "stairs up");
    await walkTo(client, entryNow, "up to depth 1", () => depthOf(client) === 1);
    // On depth 1's stairs down, at the same cell of its level as before the restart.
    const slotNow = slotOf(client)!;
    expect({ x: client.confirmed!.x - slotNow.x, y: client.confirmed!.y - slotNow.y }).toEqual(exitOfFirst);
    expect(game().levels.inSlot(game().world.levelSlots.indexOf(slotOf(client)!))).toMatchObject({ depth: 1 });
    const up = stairsHere(client, "stairs up");
    const besideUp = free(up);
    game().warps.teleport(entityOf("Deep"), besideUp.x, besideUp.y);
    await drive([client], "beside depth 1's stairs up", standsAt(client, besideUp));
    await walkTo(client, up, "up to the map", standsAt(client, stairs));

    // Saved in depth 1 again, and every slot (one, now) taken by another level someone is in: the login leaves
    // it on the map's stairs and says why — not at the spawn, not silently.
    await walkTo(client, free(stairs), "off the stairs", standsAt(client, free(stairs)));
    await walkTo(client, stairs, "depth 1 again", () => depthOf(client) === 1);
    const firstCell = free(stairsHere(client, "stairs up"));
    await walkTo(client, firstCell, "a step into depth 1", standsAt(client, firstCell));
    client.close();
    await running.close();
    running = server = await start(1, path);
    const other = await play(running, { kind: "register", name: "other", password: "other-pw-1", nick: "Other" });
    const nearFar = free(farStairs);
    game().warps.teleport(entityOf("Other"), nearFar.x, nearFar.y);
    await drive([other], "the other beside the far stairs", standsAt(other, nearFar));
    await walkTo(other, farStairs, "the other in the only slot", () => depthOf(other) === 1);
    const told: string[] = [];
    client = await play(running, { kind: "login", name: "deep", password: "deep-pw-123" }, told);
    expect(client.confirmed).toEqual({ x: stairs.x, y: stairs.y });
    await drive([client], "told why", () =>
      told.some((line) => line.startsWith("Every level below is full of players")),
    );
    expect(game().levels.stats.refused).toBe(1);
  }, 120_000);

  it("kept piles wait for their level and count against PILES_MAX; those of a level the world can never enter again (another dungeon seed) are put on the first stairs down at start", async () => {
    const [stairs] = readWorld(MAP).warps.filter((warp) => warp.stairs === "down");
    const path = join(dir, "reseeded.sqlite");
    let running = (server = await start(1, path));
    const game = () => running.game;
    const piles = () =>
      game().database.db.prepare("SELECT x, y, item_id AS itemId, count, level_seed AS seed FROM item_piles").all();
    const potion = game().world.items.find((item) => item.name === "healing potion")!.id;
    // Two piles in the first level below the stairs, as a drop there stores them (level-relative cells).
    const level = { seed: levelSeed(game().options.dungeonSeed, stairs.y * 65536 + stairs.x), depth: 1 };
    game()
      .database.db.prepare(
        "INSERT INTO item_piles (world, x, y, item_id, count, level_seed, level_depth, level_size) VALUES (?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        ...[game().world.name, 5, 6, potion, 2, level.seed, 1, game().options.levelSize],
        ...[game().world.name, 7, 8, potion, 1, level.seed, 1, game().options.levelSize],
      );
    await running.close();
    // The same world again: the level can come back, so they wait for it, out of the world.
    running = server = await start(1, path);
    expect(game().items.dormantPileCount).toBe(2);
    expect(game().items.pileCount).toBe(0);
    // Kept piles count against PILES_MAX: with the rest of the budget kept in that level too, loot falls no more.
    const insert = game().database.db.prepare(
      "INSERT INTO item_piles (world, x, y, item_id, count, level_seed, level_depth, level_size) VALUES (?, 9, 9, ?, 1, ?, 1, ?)",
    );
    game().database.db.transaction(() => {
      for (let i = 2; i < PILES_MAX; i++) insert.run(game().world.name, potion, level.seed, game().options.levelSize);
    })();
    await running.close();
    running = server = await start(1, path);
    expect(game().items.dormantPileCount).toBe(PILES_MAX);
    const potionDef = game().world.items.find((item) => item.id === potion)!;
    game().items.dropLoot([{ item: potionDef, chance: 1, min: 1, max: 1 }], stairs.x, stairs.y);
    expect(game().items.pileCount).toBe(0);
    game().database.db.prepare("DELETE FROM item_piles WHERE x = 9 AND y = 9").run();
    await running.close();
    // Another dungeon seed: no stairs lead to that level any more, so they are put on the map, none lost.
    running = server = await start(1, path, 12345);
    expect(game().items.dormantPileCount).toBe(0);
    expect(game().items.pileCount).toBe(2);
    expect(piles()).toEqual([
      { x: stairs.x, y: stairs.y, itemId: potion, count: 2, seed: null },
      { x: stairs.x, y: stairs.y, itemId: potion, count: 1, seed: null },
    ]);
  });
});
