// Frame composition on the real wasm module: the client's grid, atlas and
// framebuffer in one core instance, drawn by ts/client/render and checked
// pixel by pixel against the committed sheets. Plus the pointer mapping
// (page → framebuffer → world tile) under camera offsets and canvas scaling.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FB_WIDTH, TILE_UNKNOWN } from "../ts/constants.js";
import { decodeTga } from "../ts/client/assets/tga.js";
import type { Rgb332Image } from "../ts/client/assets/image.js";
import {
  CELL_SIZE_PX,
  FONT_FILE,
  SPRITE_BEETLE,
  SPRITE_CREATURE,
  SPRITE_GUARD,
  SPRITE_RAT,
  SPRITE_SKELETON,
  SPRITE_SPIDER,
  SPRITES_FILE,
  TILES_FILE,
} from "../ts/client/assets/sheets.js";
import { placeViewport } from "../ts/client/render/camera.js";
import {
  type Atlas,
  installTileLooks,
  MARKER_OUTLINE,
  MARKER_STEP,
  markerSheet,
  uploadAtlas,
} from "../ts/client/render/atlas.js";
import { spriteCellFor, spriteCellsOfKinds } from "../ts/client/render/entity-sprites.js";
import { FrameRenderer, type FrameScene, gridViewOf } from "../ts/client/render/frame.js";
import { HUD_LAYOUT, type HudModel } from "../ts/client/render/hud.js";
import { PANEL, VIEWPORT } from "../ts/client/render/layout.js";
import * as P from "../ts/client/render/palette.js";
import { framebufferPixelAt, screenOfTile, worldTileAt } from "../ts/client/render/picking.js";
import { columnsIn, fitText, glyphCell, wrapText } from "../ts/client/render/text.js";
import { NO_TILE } from "../ts/ref/blit.js";
import { WasmBlitter } from "../ts/wasm/blit.js";
import { loadCore } from "../ts/wasm/node.js";
import { WasmSim } from "../ts/wasm/sim.js";
import { CAVE_KINDS } from "./client-npc-support.js";

const ASSET_DIR = new URL("../ts/client/assets/", import.meta.url);
const sheet = (name: string): Rgb332Image => decodeTga(new Uint8Array(readFileSync(new URL(name, ASSET_DIR))));
const images = { tiles: sheet(TILES_FILE), sprites: sheet(SPRITES_FILE), font: sheet(FONT_FILE) };

const FLOOR = 1;
const CRYSTAL = 7;
const WATER = 9;
/** A map tile id the server describes with a look the sheet does not have. */
const ODD_LOOK_ID = 300;
const FC_SEED = 0xc11e47;

let blitter: WasmBlitter;
let sim: WasmSim;
let atlas: Atlas;
let renderer: FrameRenderer;
let droppedLooks: number[];

beforeAll(async () => {
  const core = await loadCore();
  blitter = new WasmBlitter(core);
  sim = new WasmSim(core);
  atlas = uploadAtlas(blitter, images);
  const looks = Array.from({ length: 16 }, (_, index) => ({ id: index + 1, look: index + 1 }));
  droppedLooks = installTileLooks(blitter, atlas, [...looks, { id: ODD_LOOK_ID, look: 40 }]);
  renderer = new FrameRenderer(blitter, atlas);
});

/** A 64×64 grid at world (0, 0): floor, with a crystal at (10, 12) and water at (11, 12). */
beforeEach(() => {
  expect(sim.initGrid(64, 64, 0, 0)).toBe(true);
  for (let y = 0; y < 64; y++) for (let x = 0; x < 64; x++) sim.setTile(x, y, FLOOR);
  sim.setTile(10, 12, CRYSTAL);
  sim.setTile(11, 12, WATER);
  sim.setTile(12, 12, ODD_LOOK_ID);
});

const hud: HudModel = {
  name: "Ada",
  hp: 30,
  hpMax: 60,
  position: { x: 10, y: 12 },
  status: { text: "online", colour: P.TEXT_GOOD },
  nearby: ["Bob"],
};

function scene(overrides: Partial<FrameScene> = {}): FrameScene {
  return {
    camera: { x: 10 * CELL_SIZE_PX, y: 12 * CELL_SIZE_PX },
    grid: gridViewOf(sim),
    entities: [],
    pendingSteps: [],
    plannedSteps: [],
    goal: null,
    cursor: null,
    banner: null,
    hud,
    ...overrides,
  };
}

function pixel(x: number, y: number): number {
  return blitter.framebuffer()[y * FB_WIDTH + x];
}

/** The 8×8 framebuffer block at (x, y). */
function block(x: number, y: number): number[] {
  const out: number[] = [];
  for (let row = 0; row < 8; row++) for (let col = 0; col < 8; col++) out.push(pixel(x + col, y + row));
  return out;
}

/** Cell `index` of a 16-wide sheet. */
function cell(image: Rgb332Image, index: number): number[] {
  const out: number[] = [];
  const left = (index % 16) * 8;
  const top = Math.floor(index / 16) * 8;
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) out.push(image.pixels[(top + row) * image.width + left + col]);
  }
  return out;
}

describe("frame composition", () => {
  it("draws the camera's tile at the viewport centre, from the grid through TILE_LOOK", () => {
    renderer.render(scene());
    // The camera tile's centre lands on the viewport centre (120, 120): its top-left is (116, 116).
    expect(block(116, 116)).toEqual(cell(images.tiles, CRYSTAL));
    expect(block(124, 116)).toEqual(cell(images.tiles, WATER));
    expect(block(116, 108)).toEqual(cell(images.tiles, FLOOR));
  });

  it("moves the world by the camera's whole-pixel offset", () => {
    // 3.4 px right and 5.6 px down rounds to 3 and 6: everything shifts up-left by that much.
    renderer.render(scene({ camera: { x: 10 * 8 + 3.4, y: 12 * 8 + 5.6 } }));
    expect(block(113, 110)).toEqual(cell(images.tiles, CRYSTAL));
    expect(block(121, 110)).toEqual(cell(images.tiles, WATER));
  });

  it("leaves tiles outside the grid and unknown tiles dark, and never draws a look beyond the sheet", () => {
    sim.setTile(9, 12, TILE_UNKNOWN);
    renderer.render(scene({ camera: { x: 0, y: 0 } }));
    // Camera at tile (0, 0): world tile (-1, -1) is at screen (108, 108), outside the grid.
    expect(block(108, 108).every((value) => value === P.UNKNOWN_DARK)).toBe(true);
    expect(block(116, 116)).toEqual(cell(images.tiles, FLOOR));
    renderer.render(scene());
    expect(block(108, 116).every((value) => value === P.UNKNOWN_DARK)).toBe(true);
    expect(droppedLooks).toEqual([ODD_LOOK_ID]);
    expect(block(132, 116).every((value) => value === P.UNKNOWN_DARK)).toBe(true);
  });

  it("keeps tiles inside the viewport: the HUD panel starts at x = 240 whatever the camera", () => {
    renderer.render(scene({ camera: { x: 40 * 8 + 5, y: 12 * 8 } }));
    for (let y = 0; y < 240; y++) expect(pixel(PANEL.x, y)).toBe(P.PANEL_EDGE);
    expect(pixel(PANEL.x + 1, 100)).toBe(P.PANEL_BACKGROUND);
    expect(pixel(VIEWPORT.w - 1, 100)).not.toBe(P.PANEL_BACKGROUND);
  });

  it("draws entities transparently at their rounded pixel positions, later ones on top", () => {
    const cellIndex = spriteCellFor(0, 7);
    renderer.render(scene({ entities: [{ xPx: 10 * 8 + 2.2, yPx: 12 * 8, cell: cellIndex }] }));
    const sprite = cell(images.sprites, cellIndex);
    const drawn = block(118, 116);
    for (let index = 0; index < 64; index++) {
      const col = index % 8;
      const row = Math.floor(index / 8);
      const tile =
        col < 6 ? cell(images.tiles, CRYSTAL)[row * 8 + col + 2] : cell(images.tiles, WATER)[row * 8 + col - 6];
      expect(drawn[index]).toBe(sprite[index] !== 0 ? sprite[index] : tile);
    }

    const a = spriteCellFor(1, 1);
    const b = spriteCellFor(2, 2);
    renderer.render(
      scene({
        entities: [
          { xPx: 80, yPx: 96, cell: a },
          { xPx: 80, yPx: 96, cell: b },
        ],
      }),
    );
    const top = cell(images.sprites, b);
    const bottom = cell(images.sprites, a);
    block(116, 116).forEach((value, index) => {
      if (top[index] !== 0) expect(value).toBe(top[index]);
      else if (bottom[index] !== 0) expect(value).toBe(bottom[index]);
    });
  });

  it("marks in-flight steps bright, planned steps dim, and the goal with an outline", () => {
    renderer.render(
      scene({
        pendingSteps: [{ x: 11, y: 13 }],
        plannedSteps: [{ x: 12, y: 14 }],
        goal: { x: 13, y: 15 },
      }),
    );
    const mask = (index: number) => cell(markerSheet(), index);
    const pending = block(124, 124);
    mask(MARKER_STEP).forEach((ink, index) => {
      if (ink) expect(pending[index]).toBe(P.ROUTE_PENDING);
      else expect(pending[index]).toBe(cell(images.tiles, FLOOR)[index]);
    });
    expect(block(132, 132).filter((value) => value === P.ROUTE_PLANNED).length).toBeGreaterThan(0);
    expect(block(132, 132).filter((value) => value === P.ROUTE_PENDING).length).toBe(0);
    const goal = block(140, 140);
    mask(MARKER_OUTLINE).forEach((ink, index) => {
      if (ink) expect(goal[index]).toBe(P.ROUTE_GOAL);
    });
  });

  it("draws the HP bar in the side panel filled to hp / hpMax", () => {
    renderer.render(scene());
    const bar = HUD_LAYOUT.hpBar;
    const row = bar.y + 2;
    const filled = Math.floor((bar.w * hud.hp) / hud.hpMax);
    for (let x = bar.x; x < bar.x + bar.w; x++) expect(pixel(x, row)).toBe(x < bar.x + filled ? P.HP_FILL : P.HP_EMPTY);
    expect(pixel(bar.x - 1, row)).toBe(P.HP_FRAME);

    renderer.render(scene({ hud: { ...hud, hp: 60 } }));
    for (let x = bar.x; x < bar.x + bar.w; x++) expect(pixel(x, row)).toBe(P.HP_FILL);
    renderer.render(scene({ hud: { ...hud, hp: 0 } }));
    for (let x = bar.x; x < bar.x + bar.w; x++) expect(pixel(x, row)).toBe(P.HP_EMPTY);
  });

  it("draws the level at the right of the name row and the experience bar under the HP bar (issue 39)", () => {
    renderer.render(scene({ hud: { ...hud, level: 3, levelShare: 0.25 } }));
    const bar = HUD_LAYOUT.xpBar;
    const filled = Math.round(bar.w * 0.25);
    for (let x = bar.x; x < bar.x + bar.w; x++)
      expect(pixel(x, bar.y)).toBe(x < bar.x + filled ? P.XP_FILL : P.XP_EMPTY);
    // "L3" ends at the panel's right edge, in its own colour.
    const right = HUD_LAYOUT.inner.x + HUD_LAYOUT.inner.w;
    ["L", "3"].forEach((char, index) => {
      const glyph = cell(images.font, glyphCell(char.charCodeAt(0)));
      const drawn = block(right - 12 + 6 * index, 3);
      for (let row = 0; row < 8; row++) {
        for (let col = 0; col < 6; col++) {
          if (glyph[row * 8 + col] !== 0) expect(drawn[row * 8 + col]).toBe(P.LEVEL_TEXT);
        }
      }
    });
    // Without a level (before the server said, or a server without levels) the panel is as it was.
    renderer.render(scene());
    expect(pixel(bar.x, bar.y)).not.toBe(P.XP_FILL);
  });

  it("writes the player's name in the panel in the font's glyphs, 6 px apart", () => {
    renderer.render(scene());
    const left = HUD_LAYOUT.inner.x;
    ["A", "d", "a"].forEach((char, index) => {
      const glyph = cell(images.font, glyphCell(char.charCodeAt(0)));
      const drawn = block(left + 6 * index, 3);
      // Columns 0..5 of each cell are the glyph's own (the next glyph starts at column 6).
      for (let row = 0; row < 8; row++) {
        for (let col = 0; col < 6; col++) {
          const ink = glyph[row * 8 + col] !== 0;
          expect(drawn[row * 8 + col]).toBe(ink ? P.TEXT_GOLD : P.PANEL_BACKGROUND);
        }
      }
    });
  });

  it("converts the framebuffer to RGBA through the standard RGB332 expansion", () => {
    renderer.render(scene());
    const rgba = blitter.rgba();
    const at = (116 * FB_WIDTH + 116) * 4;
    const byte = pixel(116, 116);
    expect(rgba[at]).toBe(Math.floor((((byte >> 5) & 7) * 255) / 7));
    expect(rgba[at + 1]).toBe(Math.floor((((byte >> 2) & 7) * 255) / 7));
    expect(rgba[at + 2]).toBe(Math.floor(((byte & 3) * 255) / 3));
    expect(rgba[at + 3]).toBe(255);
  });

  it("shows a banner across the viewport, above the player", () => {
    renderer.render(scene({ banner: "Reconnecting..." }));
    expect(pixel(120, 52)).toBe(P.BANNER_EDGE);
    const inside = block(120 - 40, 56).concat(block(120, 56));
    expect(inside.some((value) => value === P.TEXT_WHITE)).toBe(true);
    expect(inside.some((value) => value === P.BANNER_BACKGROUND)).toBe(true);
  });
});

describe("tile looks", () => {
  it("maps unknown and border ids to nothing even if the server lists them", () => {
    const core = blitter.core;
    const look = (id: number) => core.u16[(core.layout.TILE_LOOK >> 1) + id];
    installTileLooks(blitter, atlas, [
      { id: 1, look: 1 },
      { id: 0xffff, look: 5 },
      { id: 0xfffe, look: 5 },
      { id: 20, look: 0 },
    ]);
    expect(look(1)).toBe(1);
    expect(look(0xffff)).toBe(NO_TILE);
    expect(look(0xfffe)).toBe(NO_TILE);
    expect(look(20)).toBe(NO_TILE);
    expect(look(2)).toBe(NO_TILE);
    const looks = Array.from({ length: 16 }, (_, index) => ({ id: index + 1, look: index + 1 }));
    installTileLooks(blitter, atlas, [...looks, { id: ODD_LOOK_ID, look: 40 }]);
  });
});

describe("entity sprites", () => {
  it("shows players in five colours by id and other types by their own cell", () => {
    expect([0, 1, 2, 3, 4, 5].map((id) => spriteCellFor(0, id))).toEqual([0, 4, 5, 6, 7, 0]);
    expect([1, 2, 3].map((type) => spriteCellFor(type, 9))).toEqual([1, 2, 3]);
    expect(spriteCellFor(200, 9)).toBe(1);
  });

  it("shows each NPC kind by the sprite its kind names; an unknown name or unlisted kind as the creature", () => {
    const kinds = [
      ...CAVE_KINDS,
      { typeId: 40, name: "mole", sprite: "mole", behaviour: "wander" as const, speed: 10 },
      // An inherited property name is not a sprite either.
      { typeId: 41, name: "odd", sprite: "toString", behaviour: "wander" as const, speed: 10 },
    ];
    const cells = spriteCellsOfKinds(kinds);
    expect([16, 17, 18, 19, 20].map((type) => spriteCellFor(type, 9, cells))).toEqual([
      SPRITE_RAT,
      SPRITE_BEETLE,
      SPRITE_SPIDER,
      SPRITE_SKELETON,
      SPRITE_GUARD,
    ]);
    expect(spriteCellFor(40, 9, cells)).toBe(SPRITE_CREATURE);
    expect(spriteCellFor(41, 9, cells)).toBe(SPRITE_CREATURE);
    expect(spriteCellFor(99, 9, cells)).toBe(SPRITE_CREATURE);
    // Built-in types keep their cells whatever the kinds say.
    expect(spriteCellFor(2, 9, cells)).toBe(2);
  });

  it("draws a rat as the rat cell of the committed sheet", () => {
    const cells = spriteCellsOfKinds(CAVE_KINDS);
    renderer.render(scene({ entities: [{ xPx: 11 * 8, yPx: 12 * 8, cell: spriteCellFor(16, 30, cells) }] }));
    const expected = cell(images.sprites, SPRITE_RAT);
    const floor = cell(images.tiles, WATER);
    expect(block(124, 116)).toEqual(expected.map((value, index) => (value === 0 ? floor[index] : value)));
  });
});

describe("pointer mapping", () => {
  it("undoes whole-number and fractional canvas scaling", () => {
    const box = { left: 10, top: 20, width: 960, height: 720 };
    expect(framebufferPixelAt(10, 20, box)).toEqual({ x: 0, y: 0 });
    expect(framebufferPixelAt(10 + 959.9, 20 + 719.9, box)).toEqual({ x: 319, y: 239 });
    expect(framebufferPixelAt(10 + 3 * 116 + 2, 20 + 3 * 50, box)).toEqual({ x: 116, y: 50 });
    expect(framebufferPixelAt(9, 20, box)).toBeNull();
    expect(framebufferPixelAt(10 + 960, 20, box)).toBeNull();
    expect(framebufferPixelAt(10, 20, { ...box, width: 0 })).toBeNull();
  });

  it("maps the viewport centre to the camera's tile and the panel to nothing", () => {
    const placement = placeViewport({ x: 80, y: 96 });
    expect(worldTileAt({ x: 120, y: 120 }, placement)).toEqual({ x: 10, y: 12 });
    expect(worldTileAt({ x: 116, y: 116 }, placement)).toEqual({ x: 10, y: 12 });
    expect(worldTileAt({ x: 115, y: 116 }, placement)).toEqual({ x: 9, y: 12 });
    expect(worldTileAt({ x: 0, y: 0 }, placement)).toEqual({ x: 10 - 15, y: 12 - 15 });
    expect(worldTileAt({ x: 240, y: 100 }, placement)).toBeNull();
  });

  it("finds, for every pixel of a drawn tile, that tile, at any camera position", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -5000, max: 5000, noNaN: true }),
        fc.double({ min: -5000, max: 5000, noNaN: true }),
        fc.integer({ min: 0, max: 239 }),
        fc.integer({ min: 0, max: 239 }),
        (cameraX, cameraY, px, py) => {
          const placement = placeViewport({ x: cameraX, y: cameraY });
          const tile = worldTileAt({ x: px, y: py }, placement)!;
          const origin = screenOfTile(tile.x, tile.y, placement);
          expect(px - origin.x).toBeGreaterThanOrEqual(0);
          expect(px - origin.x).toBeLessThan(8);
          expect(py - origin.y).toBeGreaterThanOrEqual(0);
          expect(py - origin.y).toBeLessThan(8);
        },
      ),
      { seed: FC_SEED, numRuns: 500 },
    );
  });

  it("agrees with the frame: the pixel a tile is drawn at maps back to it", () => {
    const camera = { x: 10 * 8 - 3.6, y: 12 * 8 + 7.2 };
    const placement = renderer.render(scene({ camera }));
    const origin = screenOfTile(10, 12, placement);
    expect(block(origin.x, origin.y)).toEqual(cell(images.tiles, CRYSTAL));
    expect(worldTileAt(origin, placement)).toEqual({ x: 10, y: 12 });
  });
});

describe("text layout", () => {
  it("fits 13 characters across the panel and cuts or wraps longer text", () => {
    expect(HUD_LAYOUT.columns).toBe(12);
    expect(columnsIn(80)).toBe(13);
    expect(fitText("Bartholomew the Bold", 12)).toBe("Bartholomew.");
    expect(fitText("Ada", 12)).toBe("Ada");
    expect(wrapText("Connected via websocket", 12)).toEqual(["Connected", "via", "websocket"]);
    expect(wrapText("a b c d", 3)).toEqual(["a b", "c d"]);
    expect(wrapText("Supercalifragilistic", 8)).toEqual(["Supercal", "ifragili", "stic"]);
    expect(wrapText("", 8)).toEqual([""]);
    expect(glyphCell(0x41)).toBe(0x41 - 32);
    expect(glyphCell(0x2014)).toBe(0x3f - 32);
  });
});
