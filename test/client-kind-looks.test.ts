// Creatures drawn with the host's own art (issue 38, docs/art.md § Creatures in the map's art), the
// client's half: a kind whose /api/world entry has a `look` is drawn with those tiles of the map atlas —
// whole tiles at the map's tile size around its cell (a tall one reaches into the cell above),
// transparent where the tiles are, over the map — on the real renderer and the real wasm blitter; an
// animated look follows the wall clock as the map's animated tiles do; and with the built-in tiles (no
// atlas) the kind keeps its 8 px sprite.
import { beforeAll, describe, expect, it } from "vitest";
import { parseKinds } from "../ts/client/core/kinds.js";
import type { MapArtInfo } from "../ts/client/core/session-api.js";
import { gridViewOf, type SpriteInstance } from "../ts/client/render/frame.js";
import { KindLooks } from "../ts/client/render/kind-looks.js";
import { installMapArt } from "../ts/client/render/map-art.js";
import { screenOfTile } from "../ts/client/render/picking.js";
import { floorGrid, makeRenderRig, RIG_HUD, type RenderRig } from "./client-render-rig.js";

let rig: RenderRig;
beforeAll(async () => {
  rig = await makeRenderRig();
});

const TILE = 16;
const FLOOR_LOOK = 1;
const FLOOR_COLOUR = 0x49;
const CREATURE_LOOK = 2;
const CREATURE_COLOUR = 0xe0;
const HEAD_LOOK = 3;
const HEAD_COLOUR = 0x1c;
/** A creature one cell wide and two high: its head in the cell above its own. */
const TALL = { dx: 0, dy: -1, width: 1, looks: [HEAD_LOOK, CREATURE_LOOK] };

/** A 16 px atlas: tile 1 solid floor, tile 2 a creature whose left half is transparent (0), tile 3 its head. */
function installArt() {
  const columns = 4;
  const pixels = new Uint8Array(columns * TILE * TILE);
  for (let y = 0; y < TILE; y++) {
    pixels.fill(FLOOR_COLOUR, y * columns * TILE + FLOOR_LOOK * TILE, y * columns * TILE + (FLOOR_LOOK + 1) * TILE);
    const creature = y * columns * TILE + CREATURE_LOOK * TILE;
    pixels.fill(CREATURE_COLOUR, creature + TILE / 2, creature + TILE);
    pixels.fill(HEAD_COLOUR, y * columns * TILE + HEAD_LOOK * TILE, y * columns * TILE + (HEAD_LOOK + 1) * TILE);
  }
  const art: MapArtInfo = { url: "/art", tileSizePx: TILE, columns, tileCount: columns, bytes: pixels.length };
  return installMapArt(rig.blitter, art, pixels, [{ id: 1, look: FLOOR_LOOK }]);
}

function render(entities: SpriteInstance[]) {
  return rig.renderer.render({
    camera: { x: 10 * 8, y: 12 * 8 },
    grid: gridViewOf(rig.sim),
    entities,
    pendingSteps: [],
    plannedSteps: [],
    goal: null,
    cursor: null,
    banner: null,
    hud: RIG_HUD,
  });
}

describe("a creature kind in the map's own art", () => {
  it("is drawn as its atlas tiles, whole map tiles around its cell, transparent where the tiles are", () => {
    floorGrid(rig.sim);
    for (let y = 0; y < 32; y++) for (let x = 0; x < 32; x++) rig.sim.setTile(x, y, 1);
    rig.renderer.setMapTiles(installArt());
    const placement = render([{ xPx: 11 * 8, yPx: 12 * 8, cell: 9, mapLook: TALL }]);
    const fb = rig.blitter.framebuffer();
    const width = rig.renderer.screen.width;
    const at = screenOfTile(11, 12, placement);
    for (let y = 0; y < TILE; y++) {
      for (let x = 0; x < TILE; x++) {
        // The creature's right half over the floor; its transparent left half shows the floor.
        expect(fb[(at.y + y) * width + at.x + x]).toBe(x < TILE / 2 ? FLOOR_COLOUR : CREATURE_COLOUR);
      }
    }
    // Its head fills the cell above; the cells beside are floor only.
    for (let y = 0; y < TILE; y++) expect(fb[(at.y - TILE + y) * width + at.x + 5]).toBe(HEAD_COLOUR);
    expect(fb[(at.y + 4) * width + at.x + TILE + 4]).toBe(FLOOR_COLOUR);
    expect(fb[(at.y - TILE + 4) * width + at.x - 4]).toBe(FLOOR_COLOUR);
  });

  it("keeps its sprite while the map draws with the built-in tiles", () => {
    floorGrid(rig.sim);
    rig.renderer.setMapTiles(null);
    const withLook = render([{ xPx: 11 * 8, yPx: 12 * 8, cell: 9, mapLook: TALL }]);
    const drawn = Uint8Array.from(rig.blitter.framebuffer());
    render([{ xPx: 11 * 8, yPx: 12 * 8, cell: 9 }]);
    expect(withLook.tileSizePx).toBe(8);
    expect(Uint8Array.from(rig.blitter.framebuffer())).toEqual(drawn);
  });
});

describe("KindLooks", () => {
  const still = { dx: 0, dy: 0, width: 1, height: 1, frames: [{ looks: [3], durationMs: 0 }] };
  const kinds = parseKinds([
    { typeId: 20, name: "crab", sprite: "rat", behaviour: "wander", speed: 20, look: still },
    {
      typeId: 21,
      name: "squirrel",
      sprite: "rat",
      behaviour: "wander",
      speed: 20,
      look: {
        dx: 0,
        dy: -1,
        width: 2,
        height: 2,
        frames: [
          { looks: [4, 0, 5, 6], durationMs: 150 },
          { looks: [7, 0, 5, 6], durationMs: 100 },
        ],
      },
    },
    { typeId: 22, name: "rat", sprite: "rat", behaviour: "wander", speed: 20 },
    {
      typeId: 23,
      name: "ghost",
      sprite: "rat",
      behaviour: "wander",
      speed: 20,
      look: { ...still, frames: [{ looks: [99], durationMs: 0 }] },
    },
  ]);

  it("gives each kind with a look its atlas tiles, an animated one the frame of the moment, the others none", () => {
    if (typeof kinds === "string") throw new Error(kinds);
    const looks = new KindLooks(kinds, 8);
    expect(looks.size).toBe(2);
    expect(looks.at(20, 0)).toEqual({ dx: 0, dy: 0, width: 1, looks: [3] });
    expect([0, 149, 150, 249, 250, 400].map((ms) => looks.at(21, 1_000_000 * 250 + ms)!.looks[0])).toEqual([
      4, 4, 7, 7, 4, 7,
    ]);
    expect(looks.at(21, 0)).toMatchObject({ dx: 0, dy: -1, width: 2 });
    // No look, or one beyond the atlas: drawn with the sprite.
    expect(looks.at(22, 0)).toBeNull();
    expect(looks.at(23, 0)).toBeNull();
  });

  it("refuses a malformed look in /api/world, naming the field", () => {
    const bad = (look: unknown) =>
      parseKinds([{ typeId: 20, name: "crab", sprite: "rat", behaviour: "wander", speed: 20, look }]);
    expect(bad({ ...still, width: 5 })).toMatch(/^kinds\[0\]\.look width and height must be/);
    expect(bad({ ...still, frames: [{ looks: [1, 2], durationMs: 0 }] })).toMatch(
      /^kinds\[0\]\.look frames must each have 1 looks/,
    );
    expect(
      bad({
        ...still,
        frames: [
          { looks: [1], durationMs: 0 },
          { looks: [2], durationMs: 10 },
        ],
      }),
    ).toMatch(/^kinds\[0\]\.look frames must each have a duration/);
    expect(bad("tile 2")).toMatch(/^kinds\[0\]\.look must be an object/);
  });
});
