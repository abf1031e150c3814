// Combat in the frame, on the real wasm blitter (issue 13): the HP bar over a
// hurt entity (none over the unhurt, a sign, or a corpse), a corpse as a grey
// silhouette with no hostile frame, the hit flash, damage numbers, the red
// pointer outline over a foe, and the panel's HP numbers and log tabs. Fed
// entities we build here: no server is needed.
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FB_WIDTH } from "../ts/constants.js";
import { SPRITE_RAT } from "../ts/client/assets/sheets.js";
import { type DrawnEntity, entitySprites } from "../ts/client/render/entity-layer.js";
import { spriteCellsOfKinds } from "../ts/client/render/entity-sprites.js";
import { type FrameRenderer, type FrameScene } from "../ts/client/render/frame.js";
import { HUD_LAYOUT, type HudModel, hpNumbers } from "../ts/client/render/hud.js";
import * as P from "../ts/client/render/palette.js";
import { ENTITY_FLAG_HOSTILE } from "../ts/protocol/entity.js";
import type { WasmBlitter } from "../ts/wasm/blit.js";
import type { WasmSim } from "../ts/wasm/sim.js";
import { floorGrid, makeRenderRig, SHEETS, renderAtRigCamera, rigScreenOf } from "./client-render-rig.js";
import { CAVE_KINDS, RAT, SPIDER } from "./client-npc-support.js";

const images = SHEETS;
const OWN = 7;
const kindCells = spriteCellsOfKinds(CAVE_KINDS);

let blitter: WasmBlitter;
let sim: WasmSim;
let renderer: FrameRenderer;

beforeAll(async () => {
  ({ blitter, sim, renderer } = await makeRenderRig());
});

beforeEach(() => floorGrid(sim));

const HUD: HudModel = {
  name: "Ada",
  hp: 30,
  hpMax: 60,
  position: null,
  status: { text: "", colour: 0 },
  nearby: [],
};

/** An entity at rest on tile (x, y) with `hp` of 10. */
function at(
  id: number,
  typeId: number,
  x: number,
  y: number,
  hp: number,
  extra: Partial<DrawnEntity> = {},
): DrawnEntity {
  return { id, typeId, flags: 0, tileX: x, tileY: y, xPx: x * 8, yPx: y * 8, hp, hpMax: 10, ...extra };
}

/** Renders with the camera on tile (10, 12), whose top-left lands at framebuffer (116, 116). */
function render(entities: FrameScene["entities"], extra: Partial<FrameScene> = {}): void {
  renderAtRigCamera({ renderer, sim }, entities, { hud: HUD, ...extra });
}

const screen = rigScreenOf;

function pixel(x: number, y: number): number {
  return blitter.framebuffer()[y * FB_WIDTH + x];
}

function block(x: number, y: number, w = 8, h = 8): number[] {
  const out: number[] = [];
  for (let row = 0; row < h; row++) for (let col = 0; col < w; col++) out.push(pixel(x + col, y + row));
  return out;
}

/** The ink mask of sprite cell `cell` (1 where the art has a pixel). */
function inkOf(cell: number): boolean[] {
  const out: boolean[] = [];
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++)
      out.push(images.sprites.pixels[row * images.sprites.width + (cell % 16) * 8 + col] !== 0);
  }
  return out;
}

describe("entities in a fight", () => {
  it("a hurt entity has an HP bar over it, filled to hp / hpMax; the unhurt, signs and corpses have none", () => {
    const sprites = entitySprites(
      [at(30, RAT, 11, 12, 5), at(31, RAT, 13, 12, 10), at(32, 3, 15, 12, 0, { hpMax: 0 }), at(33, RAT, 17, 12, 0)],
      OWN,
      kindCells,
    );
    render(sprites);
    const hurt = screen(11, 12);
    // Two rows, one pixel above the sprite: half of 8 px filled.
    for (const row of [hurt.y - 3, hurt.y - 2]) {
      expect(block(hurt.x, row, 8, 1)).toEqual([
        ...new Array<number>(4).fill(P.ENTITY_HP_FILL),
        ...new Array<number>(4).fill(P.ENTITY_HP_EMPTY),
      ]);
    }
    for (const x of [13, 15, 17]) {
      const tile = screen(x, 12);
      const above = block(tile.x, tile.y - 3, 8, 2);
      expect(
        above.filter((value) => value === P.ENTITY_HP_FILL || value === P.ENTITY_HP_EMPTY || value === P.ENTITY_HP_LOW),
      ).toEqual([]);
    }
    // A third of hp or less: the bar turns red.
    render(entitySprites([at(30, RAT, 11, 12, 3)], OWN, kindCells));
    expect(pixel(hurt.x, hurt.y - 2)).toBe(P.ENTITY_HP_LOW);
  });

  it("a corpse is a grey silhouette without the hostile frame; a struck sprite flashes", () => {
    const corpse = at(30, SPIDER, 11, 12, 0, { flags: ENTITY_FLAG_HOSTILE });
    const struck = at(31, RAT, 13, 12, 6, { flash: true });
    const sprites = entitySprites([corpse, struck], OWN, kindCells);
    expect(sprites.map((sprite) => [sprite.look, sprite.hostile])).toEqual([
      ["dead", false],
      ["flash", false],
    ]);
    render(sprites);
    const dead = screen(11, 12);
    const spiderInk = inkOf(sprites[0].cell);
    block(dead.x, dead.y).forEach((value, index) => {
      if (spiderInk[index]) expect(value).toBe(P.CORPSE_GREY);
      else expect(value).not.toBe(P.HOSTILE_MARK);
    });
    const flashed = screen(13, 12);
    const ratInk = inkOf(SPRITE_RAT);
    block(flashed.x, flashed.y).forEach((value, index) => {
      if (ratInk[index]) expect(value).toBe(P.HIT_FLASH);
    });
    // The corpse grey is no colour of the art: a corpse is never mistaken for a living sprite.
    expect(images.sprites.pixels.includes(P.CORPSE_GREY)).toBe(false);
    expect(images.tiles.pixels.includes(P.CORPSE_GREY)).toBe(false);
  });

  it("damage numbers are drawn in their colour over the world; the pointer over a foe is outlined red", () => {
    const tile = screen(11, 12);
    render([], {
      floaters: [{ xPx: 11 * 8 + 4, yPx: 12 * 8, text: "12", colour: P.COMBAT_DEALT }],
      cursor: { x: 11, y: 12 },
      cursorAttacks: true,
    });
    const around = block(tile.x - 4, tile.y - 9, 16, 9);
    expect(around.filter((value) => value === P.COMBAT_DEALT).length).toBeGreaterThan(6);
    expect(block(tile.x, tile.y).filter((value) => value === P.ATTACK_OUTLINE).length).toBeGreaterThan(0);
    render([], { cursor: { x: 11, y: 12 } });
    expect(block(tile.x, tile.y).filter((value) => value === P.ATTACK_OUTLINE).length).toBe(0);
    expect(block(tile.x, tile.y).filter((value) => value === P.CURSOR_OUTLINE).length).toBeGreaterThan(0);
  });
});

describe("the panel in a fight", () => {
  it("shows the HP as numbers beside the label, right-aligned, and the bar under them", () => {
    expect(hpNumbers(30, 60)).toBe("30/60");
    expect(hpNumbers(0, 0)).toBe("-");
    render([]);
    const right = HUD_LAYOUT.inner.x + HUD_LAYOUT.inner.w;
    const row = block(right - 5 * 6, 12, 5 * 6, 8);
    expect(row.filter((value) => value === P.HP_TEXT).length).toBeGreaterThan(10);
    expect(pixel(HUD_LAYOUT.hpBar.x + HUD_LAYOUT.hpBar.w / 2 - 1, HUD_LAYOUT.hpBar.y + 1)).toBe(P.HP_FILL);
    expect(pixel(HUD_LAYOUT.hpBar.x + HUD_LAYOUT.hpBar.w / 2 + 1, HUD_LAYOUT.hpBar.y + 1)).toBe(P.HP_EMPTY);
  });
});
