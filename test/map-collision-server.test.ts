// Collision drawn as a rectangle in a Tiled object layer (issue 16), over real
// loopback UDP: the real server, the networking core's prediction and the
// wasm A* all refuse the same cells, because the rectangle's cells are
// collision twins whose TILE_FLAGS say so on both hosts (docs/maps.md § Collision
// objects). The map: 40 × 40 floor, a `Collisions` rectangle as a wall down
// column 8 with a gap at rows 20..21, the spawn west of it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GameClient } from "../ts/client/core/index.js";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { drive, joinOverUdp, neighbourhoodComplete } from "./client-core-support.js";

const SIZE = 40;
const WALL_X = 8;
const GAP_Y = 20;
const SPAWN = { x: 5, y: 10 };
const EAST = actionFor(1, 0);

function actionFor(dx: number, dy: number): number {
  for (let action = 1; action < ACTION_DX.length; action++) {
    if (ACTION_DX[action] === dx && ACTION_DY[action] === dy) return action;
  }
  throw new Error(`no action for ${dx},${dy}`);
}

/** The map: a floor everywhere, the wall only as a collision object (two rectangles around the gap). */
function mapText(): string {
  const floor = Array.from({ length: SIZE * SIZE }, () => 1).join(",");
  return `<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" width="${SIZE}" height="${SIZE}" tilewidth="16" tileheight="16" infinite="0">
 <tileset firstgid="1" name="floor" tilewidth="16" tileheight="16" tilecount="4" columns="2"><image source="floor.png" width="32" height="32"/></tileset>
 <layer id="1" name="ground" width="${SIZE}" height="${SIZE}"><data encoding="csv">${floor}</data></layer>
 <objectgroup id="2" name="Collisions">
  <object id="1" name="north wall" x="${WALL_X * 16}" y="0" width="16" height="${GAP_Y * 16}"/>
  <object id="2" name="south wall" x="${WALL_X * 16}" y="${(GAP_Y + 2) * 16}" width="16" height="${(SIZE - GAP_Y - 2) * 16}"/>
 </objectgroup>
 <objectgroup id="3" name="spawns"><object id="3" type="spawn" x="${SPAWN.x * 16 + 8}" y="${SPAWN.y * 16 + 8}"><point/></object></objectgroup>
</map>`;
}

const dir = mkdtempSync(join(tmpdir(), "map-collision-server-"));
let server: RunningServer;
const clients: GameClient[] = [];

beforeAll(async () => {
  const path = join(dir, "walled.tmx");
  writeFileSync(path, mapText());
  server = await startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: path,
    logger: new Logger("silent"),
  });
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a collision rectangle over real UDP", () => {
  it("blocks steps for the server, the client's prediction and the wasm A*, by one rule", async () => {
    const client = await joinOverUdp(`http://127.0.0.1:${server.httpPort}`, "Mason", clients);
    await drive([client], "the neighbourhood", () => neighbourhoodComplete(client));
    expect(client.confirmed).toEqual(SPAWN);
    const world = server.game.world;

    // The server: every wall cell blocks, the gap and both sides do not.
    for (let y = 0; y < SIZE; y++) {
      const gap = y === GAP_Y || y === GAP_Y + 1;
      expect(world.walkable(WALL_X, y)).toBe(gap);
      expect(world.walkable(WALL_X - 1, y)).toBe(true);
    }
    // The prediction: the same rule from the client's own tile data.
    expect(client.sim.stepAllowed(WALL_X - 1, SPAWN.y, EAST)).toBe(false);
    expect(client.sim.stepAllowed(WALL_X - 1, GAP_Y, EAST)).toBe(true);

    // Walk to the wall, then hold east into it: the prediction sends nothing, the server agrees.
    expect(client.setGoal(WALL_X - 1, SPAWN.y)).toBe("planned");
    await drive([client], "the wall", () => client.goal === null && client.pending.length === 0, 15_000);
    expect(client.confirmed).toEqual({ x: WALL_X - 1, y: SPAWN.y });
    client.setHeldAction(EAST);
    const heldUntil = performance.now() + 1000;
    await drive([client], "a second of pushing east", () => performance.now() > heldUntil);
    client.setHeldAction(0);
    const entity = server.game.entities.get(client.ownEntityId)!;
    expect({ x: entity.x, y: entity.y }).toEqual({ x: WALL_X - 1, y: SPAWN.y });
    expect(client.confirmed).toEqual({ x: WALL_X - 1, y: SPAWN.y });
    expect(client.stats.corrections).toBe(0);

    // A*: a goal inside the wall is unreachable; the cell beyond is reached only through the gap.
    expect(client.sim.astar(WALL_X - 1, SPAWN.y, WALL_X, SPAWN.y, 10_000).status).toBeLessThan(0);
    const goal = { x: WALL_X + 1, y: SPAWN.y };
    const route = client.sim.astar(WALL_X - 1, SPAWN.y, goal.x, goal.y, 10_000);
    expect(route.status).toBeGreaterThanOrEqual(0);
    let { x, y } = { x: WALL_X - 1, y: SPAWN.y };
    const crossings: number[] = [];
    for (const action of route.path) {
      x += ACTION_DX[action];
      y += ACTION_DY[action];
      if (x === WALL_X) crossings.push(y);
    }
    expect(crossings.length).toBeGreaterThan(0);
    for (const row of crossings) expect([GAP_Y, GAP_Y + 1]).toContain(row);
    // And the walk the plan makes arrives, the server agreeing step for step.
    expect(client.setGoal(goal.x, goal.y)).toBe("planned");
    await drive(
      [client],
      "the far side",
      () => client.goal === null && client.pending.length === 0,
      20_000,
      () => {
        const at = client.predicted;
        if (at && !world.walkable(at.x, at.y)) throw new Error(`prediction inside the wall at ${at.x},${at.y}`);
      },
    );
    expect(client.confirmed).toEqual(goal);
    expect({ x: entity.x, y: entity.y }).toEqual(goal);
    expect(client.stats.corrections).toBe(0);
  }, 60_000);
});
