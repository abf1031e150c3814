// The browser's dialog, hover and interaction logic that needs no DOM, on the
// real wasm module: labels drawn into the framebuffer, a tile update shown in
// the next frame, the walk-then-use intent driving a real GameClient against a
// scripted server, and the dialog layout rules (boxes, image scale, input limit).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Rgb332Image } from "../ts/client/assets/image.js";
import { CELL_SIZE_PX, FONT_FILE, SPRITES_FILE, TILES_FILE } from "../ts/client/assets/sheets.js";
import { decodeTga } from "../ts/client/assets/tga.js";
import { placeViewport } from "../ts/client/render/camera.js";
import type { EntityInfo } from "../ts/client/core/entity-table.js";
import { type Atlas, installTileLooks, uploadAtlas } from "../ts/client/render/atlas.js";
import { FrameRenderer, type FrameScene, gridViewOf } from "../ts/client/render/frame.js";
import { VIEWPORT } from "../ts/client/render/layout.js";
import * as P from "../ts/client/render/palette.js";
import { screenOfTile } from "../ts/client/render/picking.js";
import {
  boxStyle,
  defaultButton,
  dialogTitle,
  fitInput,
  imageScale,
  placeInClip,
  shownPart,
} from "../ts/client/ui/dialog-layout.js";
import { entityAtTile, hoverText, labelOver } from "../ts/client/ui/hover.js";
import { InteractIntent, interactablesNear } from "../ts/client/ui/interact-intent.js";
import { FB_WIDTH } from "../ts/constants.js";
import { chunkId, type DialogElement, type EntityEntry } from "../ts/protocol/index.js";
import { WasmBlitter } from "../ts/wasm/blit.js";
import { loadCore } from "../ts/wasm/node.js";
import { entityUpdate, FLOOR, player, sign, stateDatagram } from "./client-core-support.js";
import { scriptedClient, type ScriptedClient } from "./client-chat-support.js";

const ASSET_DIR = new URL("../ts/client/assets/", import.meta.url);
const sheet = (name: string): Rgb332Image => decodeTga(new Uint8Array(readFileSync(new URL(name, ASSET_DIR))));
const images = { tiles: sheet(TILES_FILE), sprites: sheet(SPRITES_FILE), font: sheet(FONT_FILE) };
const MUSHROOMS = 12;

function info(entry: EntityEntry): EntityInfo {
  return { ...entry };
}

/** A client at (40, 40) whose core also holds a renderer, so frames draw straight from its grid. */
async function drawingClient(entities: EntityEntry[] = []) {
  const core = await loadCore();
  const s = await scriptedClient(entities, { x: 40, y: 40 }, { core });
  const blitter = new WasmBlitter(core);
  const atlas: Atlas = uploadAtlas(blitter, images);
  installTileLooks(
    blitter,
    atlas,
    Array.from({ length: 16 }, (_, index) => ({ id: index + 1, look: index + 1 })),
  );
  const renderer = new FrameRenderer(blitter, atlas);
  const scene = (overrides: Partial<FrameScene> = {}): FrameScene => ({
    camera: { x: 40 * CELL_SIZE_PX, y: 40 * CELL_SIZE_PX },
    grid: gridViewOf(s.client.sim),
    entities: [],
    pendingSteps: [],
    plannedSteps: [],
    goal: null,
    cursor: null,
    banner: null,
    hud: { name: "Ada", hp: 1, hpMax: 1, position: null, status: { text: "", colour: 0 }, nearby: [] },
    ...overrides,
  });
  const block = (x: number, y: number): number[] => {
    const out: number[] = [];
    const framebuffer = blitter.framebuffer();
    for (let row = 0; row < 8; row++)
      for (let col = 0; col < 8; col++) out.push(framebuffer[(y + row) * FB_WIDTH + x + col]);
    return out;
  };
  return { s, blitter, renderer, scene, block };
}

function cell(image: Rgb332Image, index: number): number[] {
  const out: number[] = [];
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      out.push(image.pixels[(Math.floor(index / 16) * 8 + row) * image.width + (index % 16) * 8 + col]);
    }
  }
  return out;
}

describe("tile updates on screen", () => {
  it("draws a tile changed by a TileUpdate in the next frame, straight from the grid", async () => {
    const { s, renderer, scene, block } = await drawingClient();
    const placement = placeViewport(scene().camera);
    const at = screenOfTile(42, 40, placement);
    renderer.render(scene());
    expect(block(at.x, at.y)).toEqual(cell(images.tiles, FLOOR));
    s.deliver({
      type: "tile_update",
      clientType: 0,
      chunkId: chunkId(1, 1),
      fromVersion: 1,
      toVersion: 2,
      changes: [{ tileIndex: (40 - 32) * 32 + (42 - 32), tileId: MUSHROOMS }],
    });
    renderer.render(scene());
    const drawn = block(at.x, at.y);
    const mushrooms = cell(images.tiles, MUSHROOMS);
    // Transparent pixels of the tile show the darkness behind it.
    expect(drawn).toEqual(mushrooms.map((colour) => (colour === 0 ? P.UNKNOWN_DARK : colour)));
  });
});

describe("labels over entities", () => {
  it("draws a name on a dark box centred over the entity, under the HUD", async () => {
    const { blitter, renderer, scene } = await drawingClient();
    const camera = scene().camera;
    const placement = placeViewport(camera);
    const label = { xPx: 42 * 8, yPx: 40 * 8, text: "Bo", colour: P.LABEL_NAME };
    renderer.render(scene({ labels: [label] }));
    const entity = screenOfTile(42, 40, placement);
    const width = 2 * 6 + 3;
    const x = entity.x + 4 - Math.floor(width / 2);
    const y = entity.y - 10;
    const framebuffer = blitter.framebuffer();
    const at = (px: number, py: number) => framebuffer[py * FB_WIDTH + px];
    expect(at(x, y)).toBe(P.LABEL_BACKGROUND);
    expect(at(x + width - 1, y + 8)).toBe(P.LABEL_BACKGROUND);
    let ink = 0;
    for (let py = y; py < y + 9; py++) for (let px = x; px < x + width; px++) if (at(px, py) === P.LABEL_NAME) ink++;
    expect(ink).toBeGreaterThan(10);
    // Nothing outside the box changed colour to the label's.
    expect(at(x - 1, y)).not.toBe(P.LABEL_BACKGROUND);
  });

  it("keeps a label at the viewport's edge inside the viewport", async () => {
    const { blitter, renderer, scene } = await drawingClient();
    const placement = placeViewport(scene().camera);
    // An entity in the top-left corner tile of the view, a long name.
    const corner = { x: placement.firstTileX + 1, y: placement.firstTileY + 1 };
    const text = "a rather long name";
    renderer.render(scene({ labels: [{ xPx: corner.x * 8, yPx: corner.y * 8, text, colour: P.LABEL_NAME }] }));
    const framebuffer = blitter.framebuffer();
    expect(framebuffer[VIEWPORT.y * FB_WIDTH + VIEWPORT.x]).toBe(P.LABEL_BACKGROUND);
    const width = text.length * 6 + 3;
    expect(framebuffer[VIEWPORT.y * FB_WIDTH + VIEWPORT.x + width - 1]).toBe(P.LABEL_BACKGROUND);
  });

  it("the scene hook adds to the scene the game loop composed, and can be removed", async () => {
    const { blitter, renderer, scene } = await drawingClient();
    const placement = placeViewport(scene().camera);
    const entity = screenOfTile(42, 40, placement);
    renderer.sceneHook = (composed) => ({ ...composed, labels: [{ xPx: 42 * 8, yPx: 40 * 8, text: "x", colour: 7 }] });
    renderer.render(scene());
    const boxX = entity.x + 4 - Math.floor(9 / 2);
    expect(blitter.framebuffer()[(entity.y - 10) * FB_WIDTH + boxX]).toBe(P.LABEL_BACKGROUND);
    renderer.sceneHook = null;
    renderer.render(scene());
    expect(blitter.framebuffer()[(entity.y - 10) * FB_WIDTH + boxX]).not.toBe(P.LABEL_BACKGROUND);
  });
});

describe("hover", () => {
  const entities = new Map<number, EntityInfo>([
    [7, info(player(7, 40, 40))],
    [9, info(player(9, 40, 40))],
    [20, info(sign(20, 44, 40))],
    [30, info({ ...player(30, 41, 41), typeId: 1 })],
  ]);

  it("finds another entity before the own player on a shared tile, and names it or says what it is", () => {
    expect(entityAtTile(entities, { x: 40, y: 40 }, 7)?.id).toBe(9);
    expect(entityAtTile(entities, { x: 40, y: 40 }, 9)?.id).toBe(7);
    expect(entityAtTile(entities, { x: 1, y: 1 }, 7)).toBeNull();
    expect(entityAtTile(entities, null, 7)).toBeNull();
    const names = new Map([[9, "Zoë"]]);
    expect(hoverText(entities.get(9)!, names)).toBe("Zoe");
    expect(hoverText(entities.get(7)!, names)).toBe("player");
    expect(hoverText(entities.get(30)!, names)).toBe("creature");
    expect(hoverText(entities.get(20)!, names)).toBe("sign");
  });

  it("places a label where the entity's sprite is drawn (gliding), else at its tile", () => {
    const bo = entities.get(9)!;
    const sprites = [
      { xPx: 100, yPx: 100, cell: 0 },
      { xPx: 40 * 8 + 3, yPx: 40 * 8, cell: 0 },
    ];
    expect(labelOver(bo, "Bo", 1, sprites)).toMatchObject({ xPx: 323, yPx: 320 });
    expect(labelOver(bo, "Bo", 1, [])).toMatchObject({ xPx: 320, yPx: 320 });
  });

  it("lists the interactables within one tile, nearest first", () => {
    const near = new Map([...entities, [21, info(sign(21, 45, 41))]]);
    expect(interactablesNear(near, { x: 44, y: 41 }).map((entity) => entity.id)).toEqual([20, 21]);
    expect(interactablesNear(near, { x: 42, y: 40 })).toEqual([]);
    expect(interactablesNear(near, null)).toEqual([]);
  });
});

/** Tells the scripted client the server has it at (x, y) as of a tick past every pending step. */
function confirmAt(s: ScriptedClient, tick: number, x: number, y: number, others: EntityEntry[]): void {
  const update = entityUpdate(tick, [player(7, x, y), ...others]);
  s.link.deliver(stateDatagram(tick, 1, 1, update.checksum), ...update.datagrams);
  s.advance(1);
}

describe("using an interactable: walk beside it, then ask", () => {
  const board = sign(20, 46, 40);

  it("walks to the free tile beside it nearest the player, and uses it once the server has the player there", async () => {
    const s = await scriptedClient([board]);
    const intent = new InteractIntent();
    expect(intent.click(20, s.client, 0)).toBe("walking");
    expect(s.client.goal).toEqual({ x: 45, y: 40 });
    s.advance(1);
    expect(s.client.pending.length).toBeGreaterThan(0);
    expect(intent.frame(s.client, 10)).toBe("walking");
    confirmAt(s, 1000, 45, 40, [board]);
    s.advance(1); // the planner releases the goal on arrival
    expect(s.client.goal).toBeNull();
    expect(intent.frame(s.client, 20)).toBe("used");
    expect(s.sent("entity_query").filter((query) => query.entityId === 20)).toHaveLength(1);
    expect(intent.frame(s.client, 30)).toBeNull();
  });

  it("uses it at once when already beside it; E finds it; nothing in reach says so", async () => {
    const s = await scriptedClient([sign(20, 41, 41)]);
    const intent = new InteractIntent();
    expect(intent.click(20, s.client, 0)).toBe("used");
    expect(intent.useNearest(s.client, 0)).toBe("used");
    expect(s.sent("entity_query").filter((query) => query.entityId === 20)).toHaveLength(2);
    const far = await scriptedClient([board]);
    expect(new InteractIntent().useNearest(far.client, 0)).toBe("too-far");
  });

  it("uses a walkable thing beside the player from where it stands: the click's own route onto its tile is dropped", async () => {
    // A creature a script talks for is interactable and does not block a step: the page's click handling
    // aims a route at its tile (here on the floor beside the player) before the intent sees the click.
    const s = await scriptedClient([sign(20, 41, 41)]);
    expect(s.client.setGoal(41, 41)).toBe("planned");
    const intent = new InteractIntent();
    expect(intent.click(20, s.client, 0)).toBe("used");
    expect(s.client.goal).toBeNull();
    s.advance(1);
    expect(s.client.pending).toHaveLength(0);
    expect(s.sent("entity_query").filter((query) => query.entityId === 20)).toHaveLength(1);
  });

  it("is abandoned when the player picks another goal, and gives up on a sign it cannot reach", async () => {
    const s = await scriptedClient([board]);
    const intent = new InteractIntent();
    intent.click(20, s.client, 0);
    s.client.setGoal(30, 30);
    expect(intent.frame(s.client, 10)).toBe("abandoned");
    expect(intent.entityId).toBeNull();
    // A sign out in tiles the client does not know (blocked to A*) cannot be reached; an unknown id is gone.
    const lost = await scriptedClient([sign(21, 200, 200)]);
    expect(new InteractIntent().click(21, lost.client, 0)).toBe("unreachable");
    expect(lost.client.goal).toBeNull();
    expect(new InteractIntent().click(99, lost.client, 0)).toBe("gone");
  });

  it("times out rather than waiting forever", async () => {
    const s = await scriptedClient([board]);
    const intent = new InteractIntent();
    intent.click(20, s.client, 0);
    expect(intent.frame(s.client, 30_001)).toBe("timed-out");
  });
});

describe("dialog layout", () => {
  const elements: DialogElement[] = [
    { kind: "image", x: 8, y: 8, width: 8, height: 8, atlasIndex: 15 },
    { kind: "text", x: 22, y: 8, width: 100, height: 10, text: "  " },
    { kind: "text", x: 22, y: 8, width: 100, height: 10, text: "notice board" },
    { kind: "button", x: 40, y: 60, width: 48, height: 12, returnCode: 1, label: "Post" },
    { kind: "button", x: 120, y: 60, width: 48, height: 12, returnCode: 2, label: "Cancel" },
  ];

  it("places boxes in framebuffer pixels that scale with the canvas", () => {
    expect(boxStyle({ x: 16, y: 80, width: 208, height: 80 })).toEqual({
      left: "calc(var(--fb-px) * 16)",
      top: "calc(var(--fb-px) * 80)",
      width: "calc(var(--fb-px) * 208)",
      height: "calc(var(--fb-px) * 80)",
    });
  });

  it("scales an image by the largest whole factor that fits, at least 1", () => {
    expect(imageScale({ x: 0, y: 0, width: 8, height: 8 })).toBe(1);
    expect(imageScale({ x: 0, y: 0, width: 40, height: 17 })).toBe(2);
    expect(imageScale({ x: 0, y: 0, width: 4, height: 4 })).toBe(1);
  });

  it("keeps a text input within its byte limit, on one line, cutting whole characters", () => {
    expect(fitInput("hello", 5)).toBe("hello");
    expect(fitInput("hello!", 5)).toBe("hello");
    expect(fitInput("ééé", 5)).toBe("éé");
    expect(fitInput("a😀", 4)).toBe("a");
    expect(fitInput("two\tlines\nhere", 200)).toBe("two lines here");
  });

  it("keeps a dialog inside the part of the framebuffer the page shows, shrinking it only when it must", () => {
    const whole = { x: 0, y: 0, width: 320, height: 240 };
    // A conversation as the server lays it out: 224 wide, centred on the 320 × 240 screen.
    const talk = { x: 48, y: 40, width: 224, height: 160 };
    expect(placeInClip(talk, whole)).toEqual({ x: 48, y: 40, shrink: 1 });
    // A 390-px portrait phone at 2×: the view cropped to its middle 195 columns (22 … 217).
    const phone = { x: 22, y: 0, width: 195, height: 240 };
    expect(placeInClip(talk, phone)).toEqual({ x: 22, y: 40, shrink: 195 / 224 });
    // One that fits is moved in from the edge it crosses, never shrunk.
    expect(placeInClip({ x: 150, y: 100, width: 120, height: 40 }, phone)).toEqual({ x: 97, y: 100, shrink: 1 });
    expect(placeInClip({ x: 0, y: 230, width: 60, height: 40 }, phone)).toEqual({ x: 22, y: 200, shrink: 1 });
  });

  it("finds the part of the framebuffer a clip shows, in framebuffer pixels", () => {
    // The canvas 640 CSS px wide (2×) starting 44 px left of a 390 × 480 clip.
    const canvas = { left: -44, top: 0, width: 640, height: 480 };
    expect(shownPart(canvas, { left: 0, top: 0, width: 390, height: 480 }, 320, 240)).toEqual({
      x: 22,
      y: 0,
      width: 195,
      height: 240,
    });
    // A clip larger than the canvas shows all of it; a canvas not laid out shows nothing.
    expect(
      shownPart(
        { left: 20, top: 10, width: 960, height: 720 },
        { left: 0, top: 0, width: 1000, height: 760 },
        320,
        240,
      ),
    ).toEqual({ x: 0, y: 0, width: 320, height: 240 });
    expect(
      shownPart({ left: 0, top: 0, width: 0, height: 0 }, { left: 0, top: 0, width: 0, height: 0 }, 320, 240),
    ).toBeNull();
  });

  it("finds Enter's button and a title", () => {
    expect(defaultButton(elements)).toMatchObject({ label: "Post" });
    expect(defaultButton(elements.slice(0, 3))).toBeNull();
    expect(dialogTitle(elements)).toBe("notice board");
    expect(dialogTitle(elements.slice(0, 2))).toBe("Dialog");
  });
});
