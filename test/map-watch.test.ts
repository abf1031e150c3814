// `npm start -- --map PATH --watch` (issue 16), over real loopback UDP: the
// host edits the map file, the server reloads it (debounced), and a connected
// client sees the changed tile without a restart — through the tile-update
// path and the chunk's version. A broken edit keeps the old map and logs why;
// an edit that needs a tile id the client's tile data lacks is refused the
// same way; a good edit after either still applies.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GameClient } from "../ts/client/core/index.js";
import { CHUNK_SIZE } from "../ts/constants.js";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { drive, joinOverUdp, neighbourhoodComplete } from "./client-core-support.js";

const SIZE = 40;
const SPAWN = { x: 10, y: 10 };
const dir = mkdtempSync(join(tmpdir(), "map-watch-"));
const path = join(dir, "edited.tmx");

/** The map: GID 1 everywhere, GID 2 on a few cells (so it is drawn and in the atlas), `edits` on top. */
function mapText(edits: Record<string, number> = {}): string {
  const gids: number[] = [];
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) gids.push(edits[`${x},${y}`] ?? ((x + y) % 13 === 0 ? 2 : 1));
  }
  return `<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" width="${SIZE}" height="${SIZE}" tilewidth="16" tileheight="16" infinite="0">
 <tileset firstgid="1" name="t" tilewidth="16" tileheight="16" tilecount="4" columns="2"><image source="t.png" width="32" height="32"/></tileset>
 <layer id="1" name="ground" width="${SIZE}" height="${SIZE}"><data encoding="csv">${gids.join(",")}</data></layer>
 <objectgroup id="2" name="spawns"><object id="1" type="spawn" x="${SPAWN.x * 16 + 8}" y="${SPAWN.y * 16 + 8}"><point/></object></objectgroup>
</map>`;
}

const logLines: { msg: string; error?: string; changedCells?: number }[] = [];
let server: RunningServer;
const clients: GameClient[] = [];

beforeAll(async () => {
  writeFileSync(path, mapText());
  const logger = new Logger("info", (line) => logLines.push(JSON.parse(line) as (typeof logLines)[number]));
  server = await startServer({ host: "127.0.0.1", httpPort: 0, udpPort: 0, mapPath: path, logger, watchMap: true });
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Waits (driving the client) for the watcher's next reload or refusal after `count` of them. */
async function nextReload(client: GameClient, count: number): Promise<(typeof logLines)[number]> {
  const watcher = server.mapWatcher!;
  await drive([client], "the map reload", () => watcher.stats.reloads + watcher.stats.refused > count, 10_000);
  return logLines.filter((line) => line.msg.startsWith("map reload")).at(-1)!;
}

describe("--watch over real UDP", () => {
  it("an edit reaches a connected client; broken and unservable edits keep the old map and say why", async () => {
    expect(server.mapWatcher).not.toBeNull();
    const client = await joinOverUdp(`http://127.0.0.1:${server.httpPort}`, "Builder", clients);
    await drive([client], "the neighbourhood", () => neighbourhoodComplete(client));
    const world = server.game.world;
    const target = { x: SPAWN.x + 2, y: SPAWN.y };
    expect(client.sim.getTile(target.x, target.y)).toBe(1);
    const chunkVersion = world.chunkVersion(Math.floor(target.x / CHUNK_SIZE), Math.floor(target.y / CHUNK_SIZE));

    // 1. A good edit: the cell becomes GID 2, the client sees it, the chunk's version went up.
    writeFileSync(path, mapText({ [`${target.x},${target.y}`]: 2 }));
    expect(await nextReload(client, 0)).toMatchObject({ msg: "map reloaded", changedCells: 1 });
    await drive([client], "the edited tile", () => client.sim.getTile(target.x, target.y) === 2);
    expect(world.tileAt(target.x, target.y)).toBe(2);
    expect(world.chunkVersion(Math.floor(target.x / CHUNK_SIZE), Math.floor(target.y / CHUNK_SIZE))).toBeGreaterThan(
      chunkVersion,
    );

    // 2. A broken edit (a half-written file): refused, logged, the world as it was.
    writeFileSync(path, mapText().slice(0, 400));
    const broken = await nextReload(client, 1);
    expect(broken.msg).toBe("map reload refused; the running map stays");
    expect(broken.error).toContain(path);
    expect(world.tileAt(target.x, target.y)).toBe(2);

    // 3. An edit that needs a tile the clients have no art for (GID 3 was never drawn): refused by name.
    writeFileSync(path, mapText({ [`${target.x},${target.y}`]: 3 }));
    const unservable = await nextReload(client, 2);
    expect(unservable.msg).toBe("map reload refused; the running map stays");
    expect(unservable.error).toContain("1 cells need tile ids the running world's clients do not have");
    expect(unservable.error).toContain("the running atlas has no art for it");
    expect(world.tileAt(target.x, target.y)).toBe(2);

    // 4. The watcher still works: the cell back to GID 1 and another to GID 2, in one save.
    const other = { x: SPAWN.x, y: SPAWN.y + 3 };
    writeFileSync(path, mapText({ [`${other.x},${other.y}`]: 2 }));
    expect(await nextReload(client, 3)).toMatchObject({ msg: "map reloaded", changedCells: 2 });
    await drive(
      [client],
      "both edited tiles",
      () => client.sim.getTile(target.x, target.y) === 1 && client.sim.getTile(other.x, other.y) === 2,
    );
    expect(client.stats.corrections).toBe(0);
  }, 60_000);
});
