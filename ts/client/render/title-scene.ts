// The picture behind the join card: a small cave drawn with the real tiles,
// sprites and HUD, so the first thing a visitor sees is the game's own look.
// Grown from a fixed seed by a cellular automaton (the classic 4-5 rule), then
// furnished; the tile window lives in the IO stage, not in the game's grid.
import type { WasmBlitter } from "../../wasm/blit.js";
import { CELL_SIZE_PX, PLAYER_VARIANT_FIRST, SPRITE_CHEST, SPRITE_CREATURE, SPRITE_PLAYER } from "../assets/sheets.js";
import type { FrameScene, SpriteInstance } from "./frame.js";
import * as P from "./palette.js";
import { mulberry32 } from "../../random.js";

const SIZE = 31;
const SEED = 0x0fca7e5;

const FLOOR = 1;
const GRAVEL = 2;
const MOSS = 3;
const FLAGSTONE = 4;
const ROCK = 5;
const DARK_ROCK = 6;
const CRYSTAL = 7;
const PILLAR = 8;
const WATER = 9;
const DEEP_WATER = 10;
const MUSHROOMS = 12;
const TORCH = 13;
const BRIDGE = 16;

/** The default map's ids drawn with their own sheet cells: enough for the title cave before /api/world is known. */
export const DEFAULT_TILE_LOOKS = Array.from({ length: BRIDGE }, (_, index) => ({ id: index + 1, look: index + 1 }));

const isWall = (tile: number): boolean => tile === ROCK || tile === DARK_ROCK || tile === CRYSTAL || tile === TORCH;

/** The title cave as SIZE×SIZE tile ids, row-major. Deterministic. */
export function titleCaveTiles(): Uint16Array {
  const random = mulberry32(SEED);
  const centre = (SIZE - 1) / 2;
  let solid: boolean[] = [];
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const edge = x === 0 || y === 0 || x === SIZE - 1 || y === SIZE - 1;
      const distance = Math.max(Math.abs(x - centre), Math.abs(y - centre));
      solid.push(edge || (distance > 4 && random() < 0.44));
    }
  }
  for (let round = 0; round < 5; round++) {
    const next: boolean[] = [];
    for (let y = 0; y < SIZE; y++) {
      for (let x = 0; x < SIZE; x++) {
        let walls = 0;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const nx = x + dx;
            const ny = y + dy;
            if (nx < 0 || ny < 0 || nx >= SIZE || ny >= SIZE || solid[ny * SIZE + nx]) walls++;
          }
        }
        next.push(walls >= 5);
      }
    }
    solid = next;
  }

  const tiles = new Uint16Array(SIZE * SIZE);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const index = y * SIZE + x;
      if (solid[index]) {
        // Slate in the north, sandy rock in the south, crystal veins where the two meet.
        const band = y + Math.floor(random() * 4);
        tiles[index] = band < 10 ? DARK_ROCK : band < 13 && random() < 0.5 ? CRYSTAL : ROCK;
        continue;
      }
      const roll = random();
      tiles[index] = roll < 0.12 ? GRAVEL : roll < 0.2 ? MOSS : FLOOR;
    }
  }
  const put = (x: number, y: number, tile: number): void => {
    if (x > 0 && y > 0 && x < SIZE - 1 && y < SIZE - 1) tiles[y * SIZE + x] = tile;
  };
  // A flagstone hall with pillars around the centre, where the players stand.
  for (let y = 12; y <= 18; y++) for (let x = 11; x <= 19; x++) put(x, y, FLAGSTONE);
  for (const [x, y] of [
    [11, 12],
    [19, 12],
    [11, 18],
    [19, 18],
  ]) {
    put(x, y, PILLAR);
  }
  // A stream across the south with a bridge.
  for (let x = 1; x < SIZE - 1; x++) {
    const y = 22 + Math.round(Math.sin(x / 4) * 1.5);
    for (let depth = -1; depth <= 1; depth++) {
      const at = (y + depth) * SIZE + x;
      if (!isWall(tiles[at])) tiles[at] = depth === 0 ? DEEP_WATER : WATER;
    }
  }
  for (let y = 19; y <= 25; y++) if (!isWall(tiles[y * SIZE + 15])) put(15, y, BRIDGE);
  // Moss gathers in patches; mushrooms grow in it; torches hang on walls above open floor.
  for (let y = 1; y < SIZE - 1; y++) {
    for (let x = 1; x < SIZE - 1; x++) {
      const index = y * SIZE + x;
      if (tiles[index] === MOSS && random() < 0.3) tiles[index] = MUSHROOMS;
      const below = tiles[index + SIZE];
      if (tiles[index] === ROCK && (below === FLOOR || below === FLAGSTONE) && random() < 0.18) tiles[index] = TORCH;
    }
  }
  return tiles;
}

/** The title frame's scene; stages its tiles in IO (call right before rendering). */
export function titleScene(blitter: WasmBlitter): FrameScene {
  const tilesPtr = blitter.stageTiles(titleCaveTiles());
  const at = (x: number, y: number, cell: number): SpriteInstance => ({
    xPx: x * CELL_SIZE_PX,
    yPx: y * CELL_SIZE_PX,
    cell,
  });
  return {
    camera: { x: 15 * CELL_SIZE_PX, y: 15 * CELL_SIZE_PX },
    grid: { tilesPtr, width: SIZE, height: SIZE, originX: 0, originY: 0 },
    entities: [
      at(14, 15, SPRITE_PLAYER),
      at(16, 14, PLAYER_VARIANT_FIRST),
      at(17, 16, PLAYER_VARIANT_FIRST + 3),
      at(13, 17, SPRITE_CHEST),
      at(8, 20, SPRITE_CREATURE),
    ],
    pendingSteps: [],
    plannedSteps: [],
    goal: null,
    cursor: null,
    banner: null,
    hud: {
      name: "Welcome!",
      hp: 100,
      hpMax: 100,
      position: null,
      status: { text: "not joined", colour: P.TEXT_DIM },
      nearby: [],
    },
  };
}
