// The frame's lighting and weather as a player sees them (issue 15), on the real
// renderer and wasm blitter: at night a torch tile lights a pool around it and a wall
// stops it, a glowing creature lights its own tiles, a player wielding a torch lights
// the tiles around it (and one wielding a dagger does not), and rain and fog show over the
// world but not over the HUD panel; labels, damage numbers and the banner stay bright over the
// lit world while everything around them is lit exactly as without them, the night darkens the
// weather, and a lightning flash shows the scene at full light. The light is applied as the frame
// is converted (fb_to_rgba_lit), so what is checked is the RGBA output.
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { installTileLooks, uploadAtlas } from "../ts/client/render/atlas.js";
import { entityLights, installTileLights } from "../ts/client/render/light.js";
import { ItemLooks } from "../ts/client/render/item-sprites.js";
import type { ItemDef } from "../ts/client/core/item-catalogue.js";
import { ENTITY_TYPE_PLAYER } from "../ts/entity-types.js";
import { FB_WIDTH, TILE_FLAG_OPAQUE } from "../ts/constants.js";
import {
  floorGrid,
  makeRenderRig,
  RIG_FLOOR,
  renderAtRigCamera,
  rigScreenOf,
  SHEETS,
  type RenderRig,
} from "./client-render-rig.js";

const TORCH = 13;
const WALL = 5;
let rig: RenderRig;

beforeAll(async () => {
  rig = await makeRenderRig();
  const atlas = uploadAtlas(rig.blitter, SHEETS);
  installTileLooks(rig.blitter, atlas, [
    { id: RIG_FLOOR, look: RIG_FLOOR },
    { id: TORCH, look: TORCH },
    { id: WALL, look: WALL },
  ]);
});

beforeEach(() => {
  floorGrid(rig.sim);
  const flags = new Uint8Array(65536);
  flags[TORCH] = flags[WALL] = TILE_FLAG_OPAQUE;
  rig.sim.setFlags(flags);
  installTileLights(rig.blitter, [{ id: TORCH, light: 5 }]);
});

/** Mean brightness (R + G + B of the canvas's RGBA output: the light is applied as the frame converts) of tile (x, y). */
function tileBrightness(x: number, y: number): number {
  const rgba = rig.blitter.rgba();
  const { x: left, y: top } = rigScreenOf(x, y);
  let sum = 0;
  for (let py = top; py < top + 8; py++) {
    for (let px = left; px < left + 8; px++) {
      const at = (py * FB_WIDTH + px) * 4;
      sum += rgba[at] + rgba[at + 1] + rgba[at + 2];
    }
  }
  return sum / 64;
}

describe("light sources in the frame (issue 15)", () => {
  it("at midnight a torch lights a pool around it; far tiles stay dark; a wall stops the light", () => {
    rig.sim.setTile(10, 12, TORCH);
    for (let y = 0; y < 64; y++) rig.sim.setTile(13, y, WALL); // a wall column three tiles right of the torch
    renderAtRigCamera(rig, [], { light: 0 });
    const near = tileBrightness(9, 12);
    const far = tileBrightness(10, 22);
    const behind = tileBrightness(14, 12);
    const open = tileBrightness(7, 12); // three tiles out on the open side
    expect(near).toBeGreaterThan(far * 1.5);
    expect(open).toBeGreaterThan(behind);
    expect(behind).toBe(far);
    // At noon the pool is gone: every floor tile is drawn alike.
    renderAtRigCamera(rig, [], { light: 15 });
    expect(tileBrightness(9, 12)).toBe(tileBrightness(10, 22));
  });

  it("a glowing creature lights its tiles; a dead one does not", () => {
    const kinds = new Map([[17, { light: 2 }]]);
    const alive = entityLights([{ typeId: 17, tileX: 20, tileY: 12, hp: 3, hpMax: 5 }], kinds);
    expect(alive).toEqual([{ x: 20, y: 12, radius: 2 }]);
    expect(entityLights([{ typeId: 17, tileX: 20, tileY: 12, hp: 0, hpMax: 5 }], kinds)).toEqual([]);
    expect(entityLights([{ typeId: 18, tileX: 20, tileY: 12 }], kinds)).toEqual([]);
    renderAtRigCamera(rig, [], { light: 0, lights: alive });
    expect(tileBrightness(20, 13)).toBeGreaterThan(tileBrightness(20, 20));
  });
});

describe("a carried torch (issue 15)", () => {
  const weapon = { kind: "weapon", stack: 1, armor: 0, heal: 0 } as const;
  const catalogue: ItemDef[] = [
    { ...weapon, id: 2, name: "dagger", sprite: "dagger", damage: 9 },
    { ...weapon, id: 9, name: "torch", sprite: "torch", damage: 7, light: 4 },
  ];
  const looks = new ItemLooks(catalogue);
  /** A player at (x, y) wielding item `itemId`, as the frame loop builds it from the EntityEntry's TLVs. */
  const player = (x: number, y: number, itemId: number) => ({
    typeId: ENTITY_TYPE_PLAYER,
    tileX: x,
    tileY: y,
    hp: 50,
    hpMax: 50,
    light: looks.heldLight([{ kind: "weapon", value: itemId }]),
  });

  it("at midnight a player wielding a torch lights a pool around it; a dagger lights nothing", () => {
    expect(looks.heldLight([])).toBe(0);
    expect(looks.heldLight([{ kind: "armor", value: 9 }])).toBe(0);
    const kinds = new Map<number, { light?: number }>();
    const withTorch = entityLights([player(20, 12, 9)], kinds);
    expect(withTorch).toEqual([{ x: 20, y: 12, radius: 4 }]);
    expect(entityLights([player(20, 12, 2)], kinds)).toEqual([]);

    renderAtRigCamera(rig, [], { light: 0, lights: [] });
    const darkHere = tileBrightness(20, 12);
    const darkNear = tileBrightness(23, 12);
    renderAtRigCamera(rig, [], { light: 0, lights: withTorch });
    const litHere = tileBrightness(20, 12);
    const litNear = tileBrightness(23, 12); // three tiles out: inside the pool of 4, dimmer than its middle
    const outside = tileBrightness(20, 18); // six tiles out: beyond it
    expect(litHere).toBeGreaterThan(darkHere * 2);
    expect(litNear).toBeGreaterThan(darkNear);
    expect(litHere).toBeGreaterThan(litNear);
    expect(outside).toBe(darkHere);
    // A wall between the torch and a tile keeps it dark, as for a torch tile.
    for (let y = 0; y < 64; y++) rig.sim.setTile(21, y, WALL);
    renderAtRigCamera(rig, [], { light: 0, lights: withTorch });
    expect(tileBrightness(23, 12)).toBe(darkNear);
    expect(tileBrightness(19, 12)).toBeGreaterThan(darkNear);
  });
});

describe("weather in the frame (issue 15)", () => {
  const panelBytes = () => {
    const fb = rig.blitter.framebuffer();
    const rows: number[] = [];
    for (let y = 0; y < 240; y++) rows.push(...fb.subarray(y * FB_WIDTH + 240, (y + 1) * FB_WIDTH));
    return rows;
  };

  it("rain and fog change the view and leave the HUD panel as it was", () => {
    renderAtRigCamera(rig, []);
    const panel = panelBytes();
    const clearView = rig.blitter.framebuffer().slice();
    for (const code of [1, 2, 3]) {
      renderAtRigCamera(rig, [], { weather: { code, frame: 77 } });
      expect(panelBytes()).toEqual(panel);
      expect(Buffer.compare(rig.blitter.framebuffer(), clearView)).not.toBe(0);
    }
    renderAtRigCamera(rig, [], { weather: { code: 0, frame: 77 } });
    expect(Buffer.compare(rig.blitter.framebuffer(), clearView)).toBe(0);
  });
});

describe("overlays and weather over the lit world (issue 15: the light folded into the conversion)", () => {
  const rgbaCopy = () => rig.blitter.rgba().slice();
  /** The RGBA colour of one RGB332 byte at full light. */
  const fullLight = (colour: number) => rig.blitter.lut()[colour];
  const pixelAt = (rgba: Uint8ClampedArray, x: number, y: number) =>
    (rgba[(y * FB_WIDTH + x) * 4] |
      (rgba[(y * FB_WIDTH + x) * 4 + 1] << 8) |
      (rgba[(y * FB_WIDTH + x) * 4 + 2] << 16) |
      (rgba[(y * FB_WIDTH + x) * 4 + 3] << 24)) >>>
    0;

  it("a label, a damage number and the banner stay bright at midnight; every pixel around them is lit as without them", () => {
    rig.sim.setTile(10, 12, TORCH);
    const lights = { light: 0 } as const;
    renderAtRigCamera(rig, [], lights);
    const bare = rgbaCopy();
    const labels = [{ xPx: 12 * 8, yPx: 12 * 8, text: "Glow beetle", colour: 0xff }];
    const floaters = [{ xPx: 9 * 8 + 4, yPx: 14 * 8, text: "12", colour: 0xe0 }];
    const banner = "Link lost: reconnecting";
    renderAtRigCamera(rig, [], { ...lights, labels, floaters, banner });
    const dressed = rgbaCopy();
    const dressedFb = rig.blitter.framebuffer().slice();
    renderAtRigCamera(rig, [], lights);
    const bareFb = rig.blitter.framebuffer().slice();
    // A pixel the overlays changed on the canvas shows the overlay's colour at full light (the label
    // box, the banner, the number's ink); every other pixel is as without overlays — also the world
    // pixels of the cells under them, darkened in the framebuffer (baked) and converted unlit.
    let changed = 0;
    let baked = 0;
    for (let y = 0; y < 240; y++) {
      for (let x = 0; x < 240; x++) {
        const at = y * FB_WIDTH + x;
        if (pixelAt(dressed, x, y) === pixelAt(bare, x, y)) {
          if (dressedFb[at] !== bareFb[at]) baked++;
          continue;
        }
        changed++;
        if (pixelAt(dressed, x, y) !== fullLight(dressedFb[at]))
          expect.fail(`pixel (${x}, ${y}) is neither lit world nor a bright overlay`);
      }
    }
    expect(changed).toBeGreaterThan(500);
    expect(baked).toBeGreaterThan(100);
    // The overlays really are over a dark world: the lit picture differs from noon's.
    renderAtRigCamera(rig, [], { light: 15 });
    expect(tileBrightness(10, 22)).toBeGreaterThan(2 * brightnessOf(bare, 10, 22));
  });

  it("the night darkens rain; a lightning flash shows the midnight scene as at noon", () => {
    renderAtRigCamera(rig, [], { light: 15, weather: { code: 1, frame: 77 } });
    const rainyNoon = tileBrightness(10, 22);
    renderAtRigCamera(rig, [], { light: 0, weather: { code: 1, frame: 77 } });
    expect(tileBrightness(10, 22)).toBeLessThan(rainyNoon * 0.6);
    // Find a storm frame with a flash (weather_draw says so), and one without.
    let flashFrame = -1;
    for (let frame = 0; frame < 24 * 8 * 8 && flashFrame < 0; frame++) {
      const scratch = rig.blitter.framebuffer().slice();
      if (rig.blitter.weatherDraw(0, 0, 240, 240, 3, frame) === 1) flashFrame = frame;
      rig.blitter.framebuffer().set(scratch);
    }
    expect(flashFrame).toBeGreaterThanOrEqual(0);
    renderAtRigCamera(rig, [], { light: 15, weather: { code: 3, frame: flashFrame } });
    const noonFlash = rgbaCopy();
    renderAtRigCamera(rig, [], { light: 0, weather: { code: 3, frame: flashFrame } });
    expect(Buffer.compare(Buffer.from(rgbaCopy()), Buffer.from(noonFlash))).toBe(0);
    renderAtRigCamera(rig, [], { light: 0, weather: { code: 3, frame: flashFrame + 2 } });
    expect(tileBrightness(10, 22)).toBeLessThan(brightnessOf(noonFlash, 10, 22) * 0.6);
  });
});

/** Mean R + G + B of tile (x, y) in an RGBA copy. */
function brightnessOf(rgba: Uint8ClampedArray, x: number, y: number): number {
  const { x: left, y: top } = rigScreenOf(x, y);
  let sum = 0;
  for (let py = top; py < top + 8; py++) {
    for (let px = left; px < left + 8; px++) {
      const at = (py * FB_WIDTH + px) * 4;
      sum += rgba[at] + rgba[at + 1] + rgba[at + 2];
    }
  }
  return sum / 64;
}
