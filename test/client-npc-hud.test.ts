// The side panel's creature list: NPCs in view apart from the players, grouped
// by name with a count, hostile ones first, marked and in red — checked as a
// pure list and as the glyphs the real wasm blitter draws into the panel.
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { FB_WIDTH } from "../ts/constants.js";
import { decodeTga } from "../ts/client/assets/tga.js";
import type { Rgb332Image } from "../ts/client/assets/image.js";
import { FONT_FILE, FONT_FIRST_CHAR, FONT_LAST_CHAR, SPRITES_FILE, TILES_FILE } from "../ts/client/assets/sheets.js";
import { kindsByTypeId } from "../ts/client/core/kinds.js";
import { uploadAtlas } from "../ts/client/render/atlas.js";
import { FrameRenderer, type FrameScene } from "../ts/client/render/frame.js";
import { creatureLine, HUD_LAYOUT, type HudModel } from "../ts/client/render/hud.js";
import * as P from "../ts/client/render/palette.js";
import { glyphCell } from "../ts/client/render/text.js";
import { creatureLines } from "../ts/client/ui/creature-list.js";
import { creaturesText, nearbyText } from "../ts/client/ui/hud-bar.js";
import { WasmBlitter } from "../ts/wasm/blit.js";
import { loadCore } from "../ts/wasm/node.js";
import { player } from "./client-core-support.js";
import { BEETLE, CAVE_KINDS, entity, GUARD, RAT, SKELETON, SPIDER } from "./client-npc-support.js";

const ASSET_DIR = new URL("../ts/client/assets/", import.meta.url);
const sheet = (name: string): Rgb332Image => decodeTga(new Uint8Array(readFileSync(new URL(name, ASSET_DIR))));
const images = { tiles: sheet(TILES_FILE), sprites: sheet(SPRITES_FILE), font: sheet(FONT_FILE) };
const kinds = kindsByTypeId(CAVE_KINDS);
const noNames = new Map<number, string>();

describe("creature list", () => {
  it("groups NPCs by name with a count, hostile first, then nearest; players and things are not in it", () => {
    const entities = [
      entity(30, RAT, 44, 40),
      entity(31, RAT, 41, 40),
      entity(32, SKELETON, 50, 50, true),
      entity(33, SPIDER, 42, 40, true),
      entity(34, BEETLE, 40, 42),
      entity(35, GUARD, 40, 45),
      entity(36, 1, 60, 60), // the built-in wandering creature
      player(9, 41, 41),
      { ...player(10, 41, 40), typeId: 3 }, // a sign
    ];
    expect(creatureLines(entities, noNames, kinds, { x: 40, y: 40 })).toEqual([
      { name: "cave spider", count: 1, hostile: true },
      { name: "skeleton", count: 1, hostile: true },
      { name: "cave rat", count: 2, hostile: false },
      { name: "glow beetle", count: 1, hostile: false },
      { name: "hall guard", count: 1, hostile: false },
      { name: "creature", count: 1, hostile: false },
    ]);
  });

  it("uses looked-up names first, and a provoked guard moves up as a hostile of its own", () => {
    const entities = [entity(35, GUARD, 40, 45), entity(36, GUARD, 40, 46, true), entity(40, 99, 41, 40)];
    const names = new Map([[40, "Mole"]]);
    expect(creatureLines(entities, names, kinds, { x: 40, y: 40 })).toEqual([
      { name: "hall guard", count: 1, hostile: true },
      { name: "Mole", count: 1, hostile: false },
      { name: "hall guard", count: 1, hostile: false },
    ]);
  });

  it("fits a line in the panel by shortening the name, never the count or the mark", () => {
    expect(creatureLine({ name: "cave rat", count: 1, hostile: false })).toBe("cave rat");
    expect(creatureLine({ name: "cave rat", count: 2, hostile: false })).toBe("cave rat x2");
    expect(creatureLine({ name: "skeleton", count: 1, hostile: true })).toBe("!skeleton");
    expect(creatureLine({ name: "cave spider", count: 12, hostile: true })).toBe("!cave s. x12");
    expect(creatureLine({ name: "cave spider", count: 12, hostile: true }).length).toBe(HUD_LAYOUT.columns);
  });
});

describe("the HUD bar's lines (a phone's HUD, ui/hud-bar.ts)", () => {
  it("names two creature groups, hostile first as the list orders them, and counts the rest", () => {
    const creatures = [
      { name: "cave spider", count: 2, hostile: true },
      { name: "cave rat", count: 3, hostile: false },
      { name: "glow beetle", count: 1, hostile: false },
    ];
    expect(creaturesText({ creatures })).toBe("!cave spider x2, cave rat x3, +1 more");
    expect(creaturesText({ creatures: creatures.slice(1, 2) })).toBe("cave rat x3");
    expect(creaturesText({})).toBe("");
  });

  it("names up to two players near, counts more, and says nothing alone", () => {
    expect(nearbyText({ nearby: ["Ada", "Bob"] })).toBe("Near: Ada, Bob");
    expect(nearbyText({ nearby: ["Ada", "Bob", "Cy"] })).toBe("Near: 3");
    expect(nearbyText({ nearby: [] })).toBe("");
  });
});

describe("the panel", () => {
  let blitter: WasmBlitter;
  let renderer: FrameRenderer;
  beforeAll(async () => {
    blitter = new WasmBlitter(await loadCore());
    renderer = new FrameRenderer(blitter, uploadAtlas(blitter, images));
  });

  const hud = (overrides: Partial<HudModel>): HudModel => ({
    name: "Ada",
    hp: 1,
    hpMax: 1,
    position: { x: 40, y: 40 },
    status: { text: "online", colour: P.TEXT_GOOD },
    nearby: ["Bob"],
    ...overrides,
  });

  function render(model: HudModel): void {
    const scene: FrameScene = {
      camera: { x: 0, y: 0 },
      grid: null,
      entities: [],
      pendingSteps: [],
      plannedSteps: [],
      goal: null,
      cursor: null,
      banner: null,
      hud: model,
    };
    renderer.render(scene);
  }

  /** Ink mask (6 columns × 8 rows) of each printable glyph in the font sheet. */
  const glyphMasks = new Map<string, string>();
  for (let code = FONT_FIRST_CHAR; code <= FONT_LAST_CHAR; code++) {
    const index = glyphCell(code);
    let mask = "";
    for (let row = 0; row < 8; row++) {
      for (let col = 0; col < 6; col++) {
        const at = (Math.floor(index / 16) * 8 + row) * images.font.width + (index % 16) * 8 + col;
        mask += images.font.pixels[at] !== 0 ? "#" : ".";
      }
    }
    glyphMasks.set(mask, String.fromCharCode(code));
  }

  /** Reads the panel's text lines drawn in `colour`, top to bottom, from the framebuffer's pixels. */
  function panelLines(colour: number): string[] {
    const fb = blitter.framebuffer();
    const lines: string[] = [];
    let lastY = -10;
    for (let y = 0; y + 8 <= 240; y++) {
      let text = "";
      for (let column = 0; column < HUD_LAYOUT.columns; column++) {
        let mask = "";
        for (let row = 0; row < 8; row++) {
          for (let col = 0; col < 6; col++) {
            mask += fb[(y + row) * FB_WIDTH + HUD_LAYOUT.inner.x + column * 6 + col] === colour ? "#" : ".";
          }
        }
        text += glyphMasks.get(mask) ?? "\u0000";
      }
      const trimmed = text.trimEnd();
      if (trimmed.length > 0 && !trimmed.includes("\u0000") && y - lastY > 1) {
        lines.push(trimmed);
        lastY = y;
      }
    }
    return lines;
  }

  it("lists creatures under the players, hostile lines in red behind a '!', and '+N more' past three", () => {
    const creatures = [
      { name: "cave spider", count: 2, hostile: true },
      { name: "cave rat", count: 3, hostile: false },
      { name: "glow beetle", count: 1, hostile: false },
      { name: "hall guard", count: 1, hostile: false },
    ];
    render(hud({ creatures }));
    expect(panelLines(P.TEXT_BAD)).toEqual(["!cave sp. x2"]);
    expect(panelLines(P.TEXT_WHITE)).toEqual(["40,40", "Bob", "cave rat x3", "glow beetle"]);
    expect(panelLines(P.TEXT_DIM)).toEqual(["HP", "Near: 1", "Creatures", "+1 more"]);
  });

  it("has no creature section when none are in view, as before NPCs", () => {
    render(hud({ creatures: [] }));
    const without = blitter.framebuffer().slice();
    render(hud({}));
    expect(blitter.framebuffer()).toEqual(without);
    expect(panelLines(P.TEXT_DIM)).toEqual(["HP", "Near: 1"]);
  });

  it("draws nothing below HUD_LAYOUT.depthPx even at its fullest: the log docks there (issue 42)", () => {
    const many = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);
    const full = hud({
      level: 12,
      levelShare: 0.5,
      clock: "21:40 night",
      nearby: many("Player", 9),
      creatures: many("beast", 6).map((name) => ({ name, count: 2, hostile: true })),
    });
    render(full);
    const fb = blitter.framebuffer();
    const panelX = HUD_LAYOUT.inner.x - 3;
    const inked = (y: number) => {
      for (let x = panelX + 1; x < FB_WIDTH; x++) if (fb[y * FB_WIDTH + x] !== P.PANEL_BACKGROUND) return true;
      return false;
    };
    // Every row from the depth down is bare, and the depth is no deeper than the last glyph cell's
    // bottom row (a line without descenders leaves that row blank).
    const last = Math.max(...Array.from({ length: 240 }, (_, y) => y).filter(inked));
    expect(last).toBeLessThan(HUD_LAYOUT.depthPx);
    expect(last).toBeGreaterThanOrEqual(HUD_LAYOUT.depthPx - 2);
    expect(HUD_LAYOUT.depthPx).toBeLessThan(0.75 * 240);
  });
});
