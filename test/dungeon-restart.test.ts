// A character saved in a dungeon level comes back in that level (issue 41):
// a real server process on a real SQLite file, killed with SIGKILL while the
// character stands a few steps into the first level below the bundled map's
// stairs, and started again on the same file — the login brings the level back
// from its seed (the player waits on the map's stairs while the worker makes
// it) and puts the player at the cell it was saved at. Started with another
// dungeon seed, no stairs lead to that level any more: the player wakes on the
// map's stairs down, and is told why — never silently at the spawn.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { AccountRequest, GameClient } from "../ts/client/core/index.js";
import { readWorld } from "../ts/server/world/world-areas.js";
import { drive } from "./client-core-support.js";
import { playAccount } from "./support/account-client.js";
import { startServerProcess } from "./support/server-process.js";

const MAP = resolve(import.meta.dirname, "../maps/caves.tmj");
const dir = mkdtempSync(join(tmpdir(), "caves-dungeon-restart-"));
const dbPath = join(dir, "caves.sqlite");
const children: ChildProcess[] = [];
const clients: GameClient[] = [];

afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

async function play(httpPort: number, request: AccountRequest): Promise<{ client: GameClient; told: string[] }> {
  const told: string[] = [];
  const client = await playAccount(httpPort, request, told);
  clients.push(client);
  return { client, told };
}

/** The character's saved row, read from the file while the server runs (WAL: a reader sees every commit). */
function savedRow(): Record<string, number | null> | undefined {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(
        "SELECT x, y, dungeon_seed AS seed, dungeon_depth AS depth, dungeon_size AS size, dungeon_x AS cellX, " +
          "dungeon_y AS cellY FROM characters",
      )
      .get() as Record<string, number | null> | undefined;
  } finally {
    db.close();
  }
}

describe("a character saved in a dungeon level", () => {
  it("comes back in that level at its cell after a crash; with another dungeon seed, on the map's stairs, told why", async () => {
    const [stairs] = readWorld(MAP).warps.filter((warp) => warp.stairs === "down");
    const first = await startServerProcess(dbPath, MAP, children);
    let { client } = await play(first.httpPort, {
      kind: "register",
      name: "delver",
      password: "delver-pw-1",
      nick: "Delver",
    });
    // Down the stairs (they lie a few rows south of the spawn points)…
    await drive([client], "a route to the stairs", () =>
      ["planned", "unchanged"].includes(client.setGoal(stairs.x, stairs.y)),
    );
    const mapWidth = readWorld(MAP).map.width;
    const onMap = (x: number) => x < mapWidth;
    await drive(
      [client],
      "arrival in the level",
      () => client.confirmed !== null && !onMap(client.confirmed.x),
      20_000,
    );
    const entry = { ...client.confirmed! };
    // …and a few steps off its stairs up: to a free cell two steps away, once the level's chunks are in.
    const candidates = [
      { x: entry.x + 2, y: entry.y },
      { x: entry.x - 2, y: entry.y },
      { x: entry.x, y: entry.y + 2 },
      { x: entry.x, y: entry.y - 2 },
    ];
    let cell: { x: number; y: number } | undefined;
    await drive([client], "a route two steps into the level", () => {
      cell = candidates.find((at) => client.sim.isFree(at.x, at.y) && client.setGoal(at.x, at.y) === "planned");
      return cell !== undefined;
    });
    if (cell === undefined) throw new Error("no free cell two steps from the stairs up");
    const target = cell;
    await drive(
      [client],
      "two steps into the level",
      () => client.confirmed?.x === target.x && client.confirmed.y === target.y && client.pending.length === 0,
      20_000,
    );
    // Saved there by the periodic save (every 500 ms: three of them after it stopped): the level's identity,
    // the cell in it, and the map's stairs down to it.
    const stoppedAt = performance.now();
    await drive([client], "three saves", () => performance.now() - stoppedAt > 1500);
    const row = savedRow();
    expect(row).toMatchObject({ x: stairs.x, y: stairs.y, depth: 1 });
    expect(row!.seed).not.toBeNull();
    const corner = { x: target.x - row!.cellX!, y: target.y - row!.cellY! };
    expect([corner.x % 32, corner.y % 32]).toEqual([0, 0]);

    // Killed, and started again on the same file: the login brings the level back and the player to its cell.
    client.close();
    first.child.kill("SIGKILL");
    await once(first.child, "exit");
    const second = await startServerProcess(dbPath, MAP, children);
    ({ client } = await play(second.httpPort, { kind: "login", name: "delver", password: "delver-pw-1" }));
    await drive(
      [client],
      "back at the cell in the level",
      () => client.confirmed?.x === target.x && client.confirmed.y === target.y,
      20_000,
    );
    // The level around it is the one it left, tile for tile as the client sees it.
    await drive(
      [client],
      "the level's chunk",
      () => client.sim.isFree(target.x, target.y) && client.sim.isFree(entry.x, entry.y),
    );
    expect(savedRow()).toMatchObject({ x: stairs.x, y: stairs.y, seed: row!.seed, depth: 1, cellX: row!.cellX });
    client.close();
    second.child.kill("SIGTERM");
    await once(second.child, "exit");

    // Another dungeon seed: no stairs of this world lead to that level. On the map's stairs, told — not at the spawn.
    const third = await startServerProcess(dbPath, MAP, children, ["--dungeon-seed", "4242"]);
    const woken = await play(third.httpPort, { kind: "login", name: "delver", password: "delver-pw-1" });
    expect(woken.client.confirmed).toEqual({ x: stairs.x, y: stairs.y });
    await drive([woken.client], "told why", () => woken.told.length > 0);
    expect(woken.told).toContain("The level you were saved in is no longer below these stairs: you wake above it.");
    // Starting on the stairs is arriving on them: it does not go down by itself.
    const wokenAt = performance.now();
    await drive([woken.client], "a second of play", () => performance.now() - wokenAt > 1000);
    expect(woken.client.confirmed).toEqual({ x: stairs.x, y: stairs.y });
    third.child.kill("SIGTERM");
    await once(third.child, "exit");
  }, 120_000);
});
