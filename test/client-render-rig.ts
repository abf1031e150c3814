// The client's renderer on the real wasm blitter, for the frame tests: the
// project's own sheets (tiles, sprites, font) uploaded as the atlas, tile 1 drawn
// as floor, and a 64 × 64 grid of that floor to stand on. No server, no DOM.
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { decodeTga } from "../ts/client/assets/tga.js";
import type { Rgb332Image } from "../ts/client/assets/image.js";
import { FONT_FILE, SPRITES_FILE, TILES_FILE } from "../ts/client/assets/sheets.js";
import { installTileLooks, uploadAtlas } from "../ts/client/render/atlas.js";
import { FrameRenderer, type FrameScene, gridViewOf } from "../ts/client/render/frame.js";
import type { HudModel } from "../ts/client/render/hud.js";
import { WasmBlitter } from "../ts/wasm/blit.js";
import { loadCore } from "../ts/wasm/node.js";
import { WasmSim } from "../ts/wasm/sim.js";

const ASSET_DIR = new URL("../ts/client/assets/", import.meta.url);
const sheet = (name: string): Rgb332Image => decodeTga(new Uint8Array(readFileSync(new URL(name, ASSET_DIR))));
/** The sheets as the client ships them. */
export const SHEETS = { tiles: sheet(TILES_FILE), sprites: sheet(SPRITES_FILE), font: sheet(FONT_FILE) };
/** The tile id drawn as floor (its atlas look is the sheet's cell 1). */
export const RIG_FLOOR = 1;

export interface RenderRig {
  blitter: WasmBlitter;
  sim: WasmSim;
  renderer: FrameRenderer;
}

/** A fresh core with the sheets uploaded and a renderer over them (beforeAll). */
export async function makeRenderRig(): Promise<RenderRig> {
  const core = await loadCore();
  const blitter = new WasmBlitter(core);
  const sim = new WasmSim(core);
  const atlas = uploadAtlas(blitter, SHEETS);
  installTileLooks(blitter, atlas, [{ id: RIG_FLOOR, look: RIG_FLOOR }]);
  return { blitter, sim, renderer: new FrameRenderer(blitter, atlas) };
}

/** Resets the grid to 64 × 64 tiles of floor (beforeEach). */
export function floorGrid(sim: WasmSim): void {
  expect(sim.initGrid(64, 64, 0, 0)).toBe(true);
  for (let y = 0; y < 64; y++) for (let x = 0; x < 64; x++) sim.setTile(x, y, RIG_FLOOR);
}

/** The side panel the frame tests draw when the panel is not what they check. */
export const RIG_HUD: HudModel = {
  name: "Ada",
  hp: 1,
  hpMax: 1,
  position: null,
  status: { text: "", colour: 0 },
  nearby: [],
};

/** Renders `entities` over the rig's floor with the camera on tile (10, 12), whose top-left lands at framebuffer (116, 116). */
export function renderAtRigCamera(
  rig: Pick<RenderRig, "renderer" | "sim">,
  entities: FrameScene["entities"],
  extra: Partial<FrameScene> = {},
): void {
  rig.renderer.render({
    camera: { x: 10 * 8, y: 12 * 8 },
    grid: gridViewOf(rig.sim),
    entities,
    pendingSteps: [],
    plannedSteps: [],
    goal: null,
    cursor: null,
    banner: null,
    hud: RIG_HUD,
    ...extra,
  });
}

/** Framebuffer position of tile (x, y)'s top-left under renderAtRigCamera. */
export function rigScreenOf(x: number, y: number): { x: number; y: number } {
  return { x: 116 + (x - 10) * 8, y: 116 + (y - 12) * 8 };
}
