// One rule for everyone (issue 12): on random worlds, with random NPCs of every
// behaviour and players sending random steps, every position the server ever
// holds is a free tile and every change of position is one step THE rule
// allows from where the entity stood — checked against the plain-JS oracle
// (ts/ref/sim.ts), not against the wasm that moved them. The Game is stepped
// directly (no sockets), so thousands of ticks take a second.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TICKS_PER_MOVE, TILE_FLAG_COLLIDES } from "../ts/constants.js";
import { RefGrid } from "../ts/ref/sim.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import type { NpcKind } from "../ts/server/content/npc-kinds.js";
import type { NpcSpawnSpec } from "../ts/server/content/npc-spawns.js";
import type { WorldMap } from "../ts/server/world/world.js";
import { loadCore } from "../ts/wasm/node.js";
import { testKind } from "./support/npc-map.js";

const FLOOR = 1;
const WALL = 5;
const SIZE = 40;

const KINDS: NpcKind[] = [
  testKind({ name: "rat", typeId: 16, speed: 35, wander: 5 }),
  testKind({ name: "spider", typeId: 18, behaviour: "hostile", speed: 50, perception: 8, leash: 14 }),
  testKind({ name: "slow one", typeId: 19, behaviour: "hostile", speed: 9, perception: 5, leash: 9, wander: 2 }),
  testKind({ name: "guard", typeId: 20, behaviour: "guard", speed: 100, perception: 4, leash: 6, wander: 0 }),
];

function worldOf(seedTiles: boolean[], spawns: NpcSpawnSpec[], playerSpawn: { x: number; y: number }): WorldMap {
  const tiles = new Uint16Array(SIZE * SIZE);
  for (let i = 0; i < tiles.length; i++) tiles[i] = seedTiles[i] ? WALL : FLOOR;
  const flags = new Uint8Array(65536);
  flags[WALL] = TILE_FLAG_COLLIDES;
  return {
    name: "random",
    width: SIZE,
    height: SIZE,
    tiles,
    flags,
    spawns: [playerSpawn],
    tileInfo: [
      { id: FLOOR, collides: false, opaque: false, look: FLOOR },
      { id: WALL, collides: true, opaque: true, look: WALL },
    ],
    npcKinds: KINDS,
    npcSpawns: spawns,
  };
}

describe("NPC steps and player steps obey the one rule", () => {
  it("on random worlds, every position is free and every move is one allowed step", async () => {
    const core = await loadCore();
    let npcMoves = 0;
    await fc.assert(
      fc.asyncProperty(
        // About one wall in four: mazes with corners to cut, not solid rock.
        fc
          .array(fc.nat(3), { minLength: SIZE * SIZE, maxLength: SIZE * SIZE })
          .map((cells) => cells.map((c) => c === 0)),
        fc.array(
          fc.tuple(fc.nat(KINDS.length - 1), fc.nat(SIZE - 1), fc.nat(SIZE - 1), fc.integer({ min: 1, max: 4 })),
          {
            minLength: 1,
            maxLength: 8,
          },
        ),
        fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 60, maxLength: 60 }),
        fc.integer(),
        async (walls, spawnPicks, playerActions, seed) => {
          const free = (x: number, y: number) => x >= 0 && y >= 0 && x < SIZE && y < SIZE && !walls[y * SIZE + x];
          const freeCells: { x: number; y: number }[] = [];
          for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) if (free(x, y)) freeCells.push({ x, y });
          fc.pre(freeCells.length > 10);
          const spawns: NpcSpawnSpec[] = spawnPicks.map(([kind, x, y, count], index) => {
            const cells = freeCells.filter((c) => Math.abs(c.x - x) <= 3 && Math.abs(c.y - y) <= 3);
            return {
              objectId: index + 1,
              name: `spawn ${index}`,
              kind: KINDS[kind],
              x: x - 3,
              y: y - 3,
              width: 7,
              height: 7,
              count,
              respawnSeconds: 1,
              cells: cells.length > 0 ? cells : [freeCells[index % freeCells.length]],
            };
          });
          const playerSpawn = freeCells[Math.abs(seed) % freeCells.length];
          const game = new Game(
            core,
            worldOf(walls, spawns, playerSpawn),
            { npcSeed: seed >>> 0 },
            new Logger("silent"),
          );
          try {
            const player = game.join("walker").entity;
            const guard = [...game.npcs.values()].find((npc) => npc.kind.behaviour === "guard");
            if (guard) game.npcs.provoke(guard.entity.id, player.id);
            const oracle = new RefGrid(SIZE, SIZE);
            oracle.flagsReset();
            oracle.flags[WALL] = TILE_FLAG_COLLIDES;
            for (let y = 0; y < SIZE; y++)
              for (let x = 0; x < SIZE; x++) oracle.setTile(x, y, walls[y * SIZE + x] ? WALL : FLOOR);
            const before = new Map<number, { x: number; y: number }>();
            for (const entity of game.entities.values()) before.set(entity.id, { x: entity.x, y: entity.y });
            for (let window = 0; window < playerActions.length; window++) {
              const next = game.nextWindow;
              player.slots.offer(next * TICKS_PER_MOVE, playerActions[window], next);
              for (let tick = 0; tick < TICKS_PER_MOVE; tick++) {
                game.step();
                for (const entity of game.entities.values()) {
                  expect(oracle.isFree(entity.x, entity.y), `entity ${entity.id} on (${entity.x}, ${entity.y})`).toBe(
                    true,
                  );
                  const was = before.get(entity.id);
                  if (was && (was.x !== entity.x || was.y !== entity.y)) {
                    if (entity.id !== player.id) npcMoves++;
                    const action = actionBetween(was, entity);
                    expect(action, `entity ${entity.id} jumped`).toBeGreaterThan(0);
                    expect(
                      oracle.stepAllowed(was.x, was.y, action),
                      `entity ${entity.id} ${was.x},${was.y} → ${entity.x},${entity.y}`,
                    ).toBe(true);
                  }
                  before.set(entity.id, { x: entity.x, y: entity.y });
                }
              }
            }
          } finally {
            game.shutdown();
          }
        },
      ),
      { numRuns: 40 },
    );
    // The property saw creatures move, not a world of statues.
    expect(npcMoves).toBeGreaterThan(500);
  });
});

const DX = [0, 0, 1, 0, -1, 1, 1, -1, -1];
const DY = [0, -1, 0, 1, 0, -1, 1, 1, -1];

/** The action code that moves `from` to `to`, or 0 when they are not one step apart. */
function actionBetween(from: { x: number; y: number }, to: { x: number; y: number }): number {
  for (let action = 1; action <= 8; action++)
    if (from.x + DX[action] === to.x && from.y + DY[action] === to.y) return action;
  return 0;
}
