// A player saved in a dungeon level (issue 15, docs/dungeons.md § Saved in a
// level), over real loopback UDP and a real SQLite file: levels do not outlive
// the process, so a character in one is saved at the map's stairs down it came
// by — every periodic save, so a crash too — and logging in again (which ends
// the old session) or after a restart puts it there. A pile dropped in a level
// goes up to those stairs when the level is dropped, in the database as well.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { connectAccount, type AccountRequest } from "../ts/client/core/account-api.js";
import { GameClient, type ItemEvent } from "../ts/client/core/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { inArea } from "../ts/server/areas.js";
import { Logger } from "../ts/server/log.js";
import { openGameDatabase } from "../ts/server/persistence/database.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { readWorld } from "../ts/server/world-areas.js";
import { loadCore } from "../ts/wasm/node.js";
import { drive } from "./client-core-support.js";

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

function start(): Promise<RunningServer> {
  return startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: MAP,
    logger: new Logger("silent"),
    levelSlots: 1,
    levelKeepEmptyMs: 1000,
    database: openGameDatabase(dbPath),
  });
}

async function play(running: RunningServer, request: AccountRequest): Promise<GameClient> {
  const connection = await connectAccount(`http://127.0.0.1:${running.httpPort}`, request, (session) =>
    UdpNodeTransport.connect("127.0.0.1", session.udpPort, session.key),
  );
  const client = GameClient.create({ core: await loadCore(), ...connection });
  clients.push(client);
  await drive([client], `${request.name} playing`, () => client.state === "playing" && client.confirmed !== null);
  return client;
}

async function walkTo(client: GameClient, goal: { x: number; y: number }, what: string, done: () => boolean) {
  expect(["planned", "unchanged"]).toContain(client.setGoal(goal.x, goal.y));
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
  it("logged out or restarted in a level: back on the map's stairs down; a pile left below comes up to them", async () => {
    const stairs = readWorld(MAP).warps.find((warp) => warp.stairs === "down")!;
    const register: AccountRequest = { kind: "register", name: "delver", password: "delver-pw-1", nick: "Delver" };
    const login: AccountRequest = { kind: "login", name: "delver", password: "delver-pw-1" };
    let running = (server = await start());
    const game = () => running.game;
    const slot = game().world.levelSlots[0];
    const saved = () =>
      game().database.db.prepare("SELECT x, y FROM characters WHERE map = ?").get(game().world.name) as
        { x: number; y: number } | undefined;
    const piles = () =>
      game().database.db.prepare("SELECT x, y, item_id AS itemId, count FROM item_piles").all() as {
        x: number;
        y: number;
        itemId: number;
        count: number;
      }[];

    // A torch from the supply chest, to leave below.
    let client = await play(running, register);
    const events: ItemEvent[] = [];
    client.items.listen((event) => events.push(event));
    const torch = [...client.itemCatalogue.values()].find((item) => item.name === "torch")!.id;
    const chest = game().items.chestNamed("supply chest")!;
    const beside = [
      [1, 0],
      [-1, 0],
      [0, 1],
      [0, -1],
    ]
      .map(([dx, dy]) => ({ x: chest.x + dx, y: chest.y + dy }))
      .find((tile) => game().world.walkable(tile.x, tile.y))!;
    await walkTo(client, beside, "beside the chest", () => client.goal === null && client.pending.length === 0);
    client.interact(chest.id);
    await drive([client], "the chest window", () => client.items.chest !== null);
    const inChest = client.items.chest!.stacks.find((stack) => stack.itemId === torch)!;
    expect(await answered(client, events, client.take(chest.id, inChest.slot))).toBe("ok");
    await drive([client], "the torch in the bag", () =>
      (client.items.inventory?.stacks ?? []).some((stack) => stack.itemId === torch),
    );

    // Down the stairs; the torch dropped in the level.
    const inLevel = () => client.confirmed !== null && inArea(slot, client.confirmed.x, client.confirmed.y);
    await walkTo(client, stairs, "arrival in the level", inLevel);
    const entry = { ...client.confirmed! };
    const bagSlot = client.items.inventory!.stacks.find((stack) => stack.itemId === torch)!.slot;
    expect(await answered(client, events, client.drop(bagSlot))).toBe("ok");
    expect(piles()).toEqual([{ ...entry, itemId: torch, count: 1 }]);
    // While it plays in the level its saved place is the stairs it came by (so a crash puts it there too).
    await drive([client], "a save at the stairs", () => saved()?.x === stairs.x && saved()?.y === stairs.y, 5000);

    // Logging in again ends the session in the level: the character starts on the map's stairs down.
    client.close();
    client = await play(running, login);
    const laterEvents: ItemEvent[] = [];
    client.items.listen((event) => laterEvents.push(event));
    expect(client.confirmed).toEqual({ x: stairs.x, y: stairs.y });
    // Starting on the stairs is arriving on them, not stepping on: it does not go down by itself.
    const joinedAt = game().tick;
    await drive([client], "three movement windows", () => game().tick >= joinedAt + 12);
    const player = [...game().sessions.values()].find((session) => session.nick === "Delver")!.entity;
    expect({ x: player.x, y: player.y }).toEqual({ x: stairs.x, y: stairs.y });

    // The level, empty, is dropped; the torch comes up to the stairs, in memory and in the database.
    await drive([client], "the empty level dropped", () => game().levels.size === 0, 10_000);
    expect(piles()).toEqual([{ x: stairs.x, y: stairs.y, itemId: torch, count: 1 }]);
    await drive([client], "the pile in view at the stairs", () =>
      [...client.entities.values()].some(
        (entity) => entity.x === stairs.x && entity.y === stairs.y && entity.meta.some((tlv) => tlv.kind === "item"),
      ),
    );

    // Down again (off the stairs and back on), and the server stops while the player is below.
    const off = [
      [0, 1],
      [1, 0],
      [-1, 0],
      [0, -1],
    ]
      .map(([dx, dy]) => ({ x: stairs.x + dx, y: stairs.y + dy }))
      .find((tile) => game().world.walkable(tile.x, tile.y))!;
    await walkTo(
      client,
      off,
      "a step off the stairs",
      () => client.confirmed?.x === off.x && client.confirmed.y === off.y,
    );
    // Stepping onto the stairs picked the torch up; dropped below again, it is in the level when the server stops.
    await walkTo(client, stairs, "down again", inLevel);
    await drive([client], "the torch picked up on the stairs", () =>
      (client.items.inventory?.stacks ?? []).some((stack) => stack.itemId === torch),
    );
    const below = { ...client.confirmed! };
    const again = client.items.inventory!.stacks.find((stack) => stack.itemId === torch)!.slot;
    expect(await answered(client, laterEvents, client.drop(again))).toBe("ok");
    expect(piles()).toEqual([{ ...below, itemId: torch, count: 1 }]);
    client.close();
    await running.close();
    running = server = await start();
    expect(saved()).toEqual({ x: stairs.x, y: stairs.y });
    // No level outlives the process: the pile found in the slot at start is moved up to the stairs.
    expect(piles()).toEqual([{ x: stairs.x, y: stairs.y, itemId: torch, count: 1 }]);
    client = await play(running, login);
    expect(client.confirmed).toEqual({ x: stairs.x, y: stairs.y });
    expect(running.game.levels.size).toBe(0);
  }, 90_000);
});
