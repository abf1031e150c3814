// NPCs in the frame, on the real wasm blitter: hostiles over a red frame, and
// entities that share a tile (entities never block each other) all visible, in
// an order that does not change from frame to frame. Fed entities we build here:
// no server with NPCs is needed.
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FB_WIDTH } from "../ts/constants.js";
import type { Rgb332Image } from "../ts/client/assets/image.js";
import { CELL_SIZE_PX, SPRITE_GUARD, SPRITE_RAT, SPRITE_SPIDER } from "../ts/client/assets/sheets.js";
import { type DrawnEntity, entitySprites, STACK_STEP_PX } from "../ts/client/render/entity-layer.js";
import { spriteCellsOfKinds } from "../ts/client/render/entity-sprites.js";
import { type FrameRenderer, type FrameScene } from "../ts/client/render/frame.js";
import * as P from "../ts/client/render/palette.js";
import { ENTITY_FLAG_HOSTILE } from "../ts/protocol/entity.js";
import type { WasmBlitter } from "../ts/wasm/blit.js";
import type { WasmSim } from "../ts/wasm/sim.js";
import { floorGrid, makeRenderRig, RIG_FLOOR, SHEETS, renderAtRigCamera, rigScreenOf } from "./client-render-rig.js";
import { CAVE_KINDS, GUARD, RAT, SPIDER } from "./client-npc-support.js";

const images = SHEETS;
const FLOOR = RIG_FLOOR;
const OWN = 7;
const kindCells = spriteCellsOfKinds(CAVE_KINDS);

let blitter: WasmBlitter;
let sim: WasmSim;
let renderer: FrameRenderer;

beforeAll(async () => {
  ({ blitter, sim, renderer } = await makeRenderRig());
});

beforeEach(() => floorGrid(sim));

/** An entity at rest on tile (x, y). */
function at(id: number, typeId: number, x: number, y: number, flags = 0): DrawnEntity {
  return { id, typeId, flags, tileX: x, tileY: y, xPx: x * CELL_SIZE_PX, yPx: y * CELL_SIZE_PX };
}

/** Renders the sprites with the camera on tile (10, 12), whose top-left lands at framebuffer (116, 116). */
function render(entities: FrameScene["entities"]): void {
  renderAtRigCamera({ renderer, sim }, entities);
}

/** Framebuffer position of tile (x, y)'s top-left with the camera on (10, 12). */
const screen = rigScreenOf;

function pixel(x: number, y: number): number {
  return blitter.framebuffer()[y * FB_WIDTH + x];
}

/** The 8×8 framebuffer block at (x, y). */
function block(x: number, y: number): number[] {
  const out: number[] = [];
  for (let row = 0; row < 8; row++) for (let col = 0; col < 8; col++) out.push(pixel(x + col, y + row));
  return out;
}

/** Sheet cell `index` drawn over `background` (transparent pixels show it). */
function over(image: Rgb332Image, index: number, background: readonly number[]): number[] {
  const out: number[] = [];
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      const value = image.pixels[row * image.width + (index % 16) * 8 + col];
      out.push(value === 0 ? background[row * 8 + col] : value);
    }
  }
  return out;
}

const floorCell = (): number[] => over(images.tiles, FLOOR, new Array<number>(64).fill(0));

describe("hostile NPCs", () => {
  it("are drawn over a red frame that the same creature without the flag lacks", () => {
    const sprites = entitySprites(
      [at(30, SPIDER, 11, 12, ENTITY_FLAG_HOSTILE), at(31, SPIDER, 13, 12), at(32, RAT, 11, 14)],
      OWN,
      kindCells,
    );
    expect(sprites.map((sprite) => sprite.hostile)).toEqual([true, false, false]);
    render(sprites);
    const hostile = screen(11, 12);
    const calm = screen(13, 12);
    const red = (x: number, y: number): number => block(x, y).filter((value) => value === P.HOSTILE_MARK).length;
    // Where the spider's cell is transparent on the frame's ring, the red shows; the sprite stays on top.
    expect(red(hostile.x, hostile.y)).toBeGreaterThanOrEqual(6);
    expect(red(calm.x, calm.y)).toBe(0);
    expect(block(calm.x, calm.y)).toEqual(over(images.sprites, SPRITE_SPIDER, floorCell()));
    const withFrame = block(hostile.x, hostile.y);
    const spider = over(images.sprites, SPRITE_SPIDER, floorCell());
    withFrame.forEach((value, index) => {
      if (spider[index] !== floorCell()[index]) expect(value).toBe(spider[index]);
    });
    // No art pixel is this red, so the frame cannot be mistaken for a creature's own colours.
    expect(images.sprites.pixels.includes(P.HOSTILE_MARK)).toBe(false);
    expect(images.tiles.pixels.includes(P.HOSTILE_MARK)).toBe(false);
  });

  it("a guard is marked only once the server sets its hostile flag", () => {
    const calm = entitySprites([at(40, GUARD, 11, 12)], OWN, kindCells);
    const provoked = entitySprites([at(40, GUARD, 11, 12, ENTITY_FLAG_HOSTILE)], OWN, kindCells);
    expect(calm[0]).toMatchObject({ cell: SPRITE_GUARD, hostile: false });
    expect(provoked[0]).toMatchObject({ cell: SPRITE_GUARD, hostile: true });
  });
});

describe("entities sharing a tile", () => {
  it("each later one of a stack is moved a step up and right; the own player stays on its tile, drawn last", () => {
    const entities = [at(50, RAT, 11, 12), at(OWN, 0, 11, 12), at(12, 0, 11, 12), at(60, SPIDER, 20, 20)];
    const sprites = entitySprites(entities, OWN, kindCells);
    const base = { xPx: 11 * 8, yPx: 12 * 8 };
    expect(sprites.map(({ xPx, yPx, cell }) => ({ xPx, yPx, cell }))).toEqual([
      // Others by id; the own player is first in the stack, so player 12 and the rat take steps 1 and 2.
      { xPx: base.xPx + STACK_STEP_PX.x, yPx: base.yPx + STACK_STEP_PX.y, cell: spriteCellsFor(12) },
      { xPx: base.xPx + 2 * STACK_STEP_PX.x, yPx: base.yPx + 2 * STACK_STEP_PX.y, cell: SPRITE_RAT },
      { xPx: 20 * 8, yPx: 20 * 8, cell: SPRITE_SPIDER },
      { ...base, cell: spriteCellsFor(OWN) },
    ]);
  });

  it("a player and an NPC on one tile are both visible, and the order is the same whatever order they came in", () => {
    const player = at(9, 0, 11, 12);
    const rat = at(50, RAT, 11, 12);
    const forward = entitySprites([player, rat], OWN, kindCells);
    const backward = entitySprites([rat, player], OWN, kindCells);
    expect(backward).toEqual(forward);
    render(forward);
    const tile = screen(11, 12);
    const drawn = [...block(tile.x, tile.y), ...block(tile.x + STACK_STEP_PX.x, tile.y + STACK_STEP_PX.y)];
    // Pixels of both sprites show: colours only the rat has, and colours only the player has.
    const ratColours = cellColours(SPRITE_RAT);
    const playerColours = cellColours(forward[0].cell);
    const onlyRat = [...ratColours].filter((value) => !playerColours.has(value));
    const onlyPlayer = [...playerColours].filter((value) => !ratColours.has(value));
    expect(onlyRat.length).toBeGreaterThan(0);
    expect(onlyPlayer.length).toBeGreaterThan(0);
    expect(drawn.some((value) => onlyRat.includes(value))).toBe(true);
    expect(drawn.some((value) => onlyPlayer.includes(value))).toBe(true);
  });

  it("two players on one tile: both visible, the same one on top in every frame", () => {
    const a = at(21, 0, 11, 12);
    const b = at(22, 0, 11, 12);
    const first = entitySprites([a, b], OWN, kindCells);
    render(first);
    const tile = screen(11, 12);
    const frameOne = block(tile.x, tile.y - 2).concat(block(tile.x + 3, tile.y));
    for (const order of [
      [b, a],
      [a, b],
      [b, a],
    ]) {
      const sprites = entitySprites(order, OWN, kindCells);
      expect(sprites).toEqual(first);
      render(sprites);
      expect(block(tile.x, tile.y - 2).concat(block(tile.x + 3, tile.y))).toEqual(frameOne);
    }
    // Player 22 (the later) is drawn over 21 at a step up and right, and 21's left column still shows.
    expect(first[1]).toMatchObject({ xPx: 11 * 8 + STACK_STEP_PX.x, yPx: 12 * 8 + STACK_STEP_PX.y });
    const leftColumn = [0, 1, 2, 3, 4, 5, 6, 7].map((row) => pixel(tile.x, tile.y + row));
    const expectedLeft = over(images.sprites, first[0].cell, floorCell()).filter((_, index) => index % 8 === 0);
    expect(leftColumn).toEqual(expectedLeft);
  });
});

/** The opaque colours of sprite cell `index`. */
function cellColours(index: number): Set<number> {
  const colours = new Set<number>();
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) colours.add(images.sprites.pixels[row * images.sprites.width + index * 8 + col]);
  }
  colours.delete(0);
  return colours;
}

/** The tunic cell entitySprites picks for player `id` (entity-sprites.ts). */
function spriteCellsFor(id: number): number {
  return entitySprites([at(id, 0, 0, 0)], OWN, kindCells)[0].cell;
}
