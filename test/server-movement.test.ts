// The server's movement, pinned: scripted actions for many entities over many
// windows on maps with walls, run through the real Game (real wasm) window by
// window. The expected positions and counts were recorded from the server as
// it was before the per-window move kernel (one step_allowed call per entity,
// then ACTION_DX/DY in TS) and must not change: same inputs, same positions,
// same executed/blocked counts, and the spatial index agrees with every entity.
import { describe, expect, it } from "vitest";
import { TICKS_PER_MOVE, TILE_FLAG_COLLIDES } from "../ts/constants.js";
import { mulberry32 } from "../ts/random.js";
import type { StoredEntity } from "../ts/server/entities/entities.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import type { WorldMap } from "../ts/server/world/world.js";
import { loadCore } from "../ts/wasm/node.js";

const FLOOR = 1;
const WALL = 5;
const N = 1, E = 2, S = 3, W = 4, NE = 5, SE = 6, SW = 7, NW = 8; // prettier-ignore

/** A `width`×`height` map of floor and walls (tile ids chosen by `tileAt`); tiles beyond it are TILE_BORDER. */
function mapOf(name: string, width: number, height: number, tileAt: (x: number, y: number) => number): WorldMap {
  const tiles = new Uint16Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) tiles[y * width + x] = tileAt(x, y);
  const flags = new Uint8Array(65536);
  flags[WALL] = TILE_FLAG_COLLIDES;
  return {
    name,
    width,
    height,
    tiles,
    flags,
    spawns: [{ x: 1, y: 1 }],
    tileInfo: [
      { id: FLOOR, collides: false, opaque: false, look: FLOOR },
      { id: WALL, collides: true, opaque: true, look: WALL },
    ],
  };
}

function spawnAt(game: Game, x: number, y: number): StoredEntity {
  return game.entities.spawn({ typeId: 1, x, y, hp: 1, hpMax: 1, elo: 0, flags: 0, name: "", meta: [] });
}

/** Offers each entity's action (or none for -1) for the next window, then steps the game through that window. */
function runWindow(game: Game, entities: readonly StoredEntity[], actions: readonly number[]): void {
  const window = game.nextWindow;
  entities.forEach((entity, index) => {
    if (actions[index] >= 0)
      expect(entity.slots.offer(window * TICKS_PER_MOVE, actions[index], window)).toBe("scheduled");
  });
  while (game.nextWindow === window) game.step();
}

function actionCounts(game: Game): Record<string, number> {
  return game.status().actions as Record<string, number>;
}

/** Every entity is found by a zero-radius query at its own position: the spatial index followed every move. */
function expectIndexAgrees(game: Game): void {
  const out: StoredEntity[] = [];
  for (const entity of game.entities.values()) {
    const count = game.entities.inSquare(entity.x, entity.y, 0, out);
    expect(out.slice(0, count)).toContain(entity);
  }
}

describe("server movement (pinned from the per-entity step_allowed server)", () => {
  it("moves, blocks and cuts no corners on a hand-made map, across chunk edges and the map edge", async () => {
    const core = await loadCore();
    // 70×40: the grid is 96×64, so x >= 70 is TILE_BORDER; chunk edges at x = 32, 64 and y = 32.
    const walls = new Set(["11,10", "21,20", "30,5", "30,6", "31,4"]);
    const map = mapOf("hand", 70, 40, (x, y) => (walls.has(`${x},${y}`) ? WALL : FLOOR));
    const game = new Game(core, map, {}, new Logger("silent"));
    const entities = [
      spawnAt(game, 10, 10), // 0: E and NE against the wall east of it, then round it by N and SE
      spawnAt(game, 20, 20), // 1: E into the wall, SE and NE would cut its corners
      spawnAt(game, 69, 5), // 2: on the map's east edge: SE into the border beyond it
      spawnAt(game, 31, 5), // 3: walls N, W and SW: every step but SE blocked
      spawnAt(game, 0, 0), // 4: W, N and NW leave the grid
      spawnAt(game, 31, 31), // 5: over the chunk corner (32, 32) and back
      spawnAt(game, 31, 31), // 6: shares entity 5's tile: entities do not block each other
      spawnAt(game, 63, 39), // 7: S and SW into the border below the map, E over the chunk edge x = 64
    ];
    // One column per window; -1 offers nothing.
    const script = [
      [E, NE, NE, N, N, SE, SE, S],
      [E, SE, E, NW, N, W, SW, -1],
      [S, SE, W, SW, NW, SE, SE, E],
      [N, NW, W, SW, N, NW, NE, SE],
      [W, N, NW, SE, E, NE, SW, -1],
      [N, N, N, W, NE, NE, NE, E],
      [E, E, W, SW, SE, NE, SE, -1],
      [S, E, NE, SE, SW, E, E, E],
    ];
    // prettier-ignore
    const expected = [
      [[10, 10], [10, 10], [10, 10], [10, 9], [10, 8], [11, 9], [11, 9], [11, 9]],
      [[20, 20], [20, 20], [20, 20], [19, 19], [19, 18], [18, 18], [17, 19], [17, 19]],
      [[69, 6], [69, 6], [68, 6], [67, 7], [66, 6], [67, 7], [68, 8], [69, 8]],
      [[31, 5], [31, 5], [31, 5], [31, 5], [31, 5], [31, 5], [31, 5], [32, 6]],
      [[0, 0], [0, 0], [0, 0], [1, 1], [2, 1], [3, 0], [2, 1], [2, 1]],
      [[31, 30], [31, 29], [31, 28], [30, 28], [31, 27], [32, 26], [33, 25], [34, 25]],
      [[32, 31], [33, 31], [32, 31], [31, 32], [32, 33], [33, 32], [34, 33], [34, 33]],
      [[63, 39], [64, 39], [65, 38], [66, 39], [66, 39], [67, 39], [68, 39], [69, 39]],
    ];
    const trace: number[][][] = entities.map(() => []);
    for (let step = 0; step < script.length; step++) {
      runWindow(
        game,
        entities,
        script.map((row) => row[step]),
      );
      entities.forEach((entity, index) => trace[index].push([entity.x, entity.y]));
    }
    expect(trace).toEqual(expected);
    expect(actionCounts(game)).toEqual({ executed: 40, blocked: 21 });
    expectIndexAgrees(game);
  });

  it("matches the recorded positions for 600 random walkers over 24 windows on a walled map", async () => {
    const core = await loadCore();
    const random = mulberry32(0x5eed11);
    const width = 150;
    const height = 110;
    const walls = new Uint8Array(width * height);
    for (let i = 0; i < walls.length; i++) walls[i] = random() < 0.3 ? 1 : 0;
    const map = mapOf("walled", width, height, (x, y) => (walls[y * width + x] ? WALL : FLOOR));
    const game = new Game(core, map, {}, new Logger("silent"));
    const entities: StoredEntity[] = [];
    while (entities.length < 600) {
      const x = Math.floor(random() * width);
      const y = Math.floor(random() * height);
      if (!walls[y * width + x]) entities.push(spawnAt(game, x, y));
    }
    for (let window = 0; window < 24; window++) {
      // -1: nothing offered; 0: a NOOP (taken, neither executed nor blocked); 1..8 steps.
      runWindow(
        game,
        entities,
        entities.map(() => Math.floor(random() * 10) - 1),
      );
    }
    let digest = 0x811c9dc5;
    for (const entity of entities) {
      for (const value of [entity.id, entity.x, entity.y]) digest = Math.imul(digest ^ value, 0x01000193) >>> 0;
    }
    expect(digest.toString(16)).toBe("57c0cf37");
    expect(actionCounts(game)).toEqual({ executed: 5885, blocked: 5668 });
    // prettier-ignore
    expect(entities.slice(0, 12).map((e) => [e.x, e.y])).toEqual([
      [115, 18], [129, 48], [5, 100], [67, 74], [43, 36], [39, 39], [76, 54], [54, 36], [39, 10], [118, 65], [16, 84], [9, 44],
    ]);
    expectIndexAgrees(game);
  });
});
