// Tile animations in the client (issue 16, docs/art.md § Animations): the real
// renderer on the real wasm blitter, over forest.tmx's own atlas and world tile
// data as the server builds them, shows each animated id's frame of the
// wall-clock time it is given (Tiled's semantics: durations in ms, looping from
// time 0), and nothing else on screen changes with the clock. The timeline
// picking itself is checked on a hand-made timeline, bad frames are not played.
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fetchWorld, type MapArtInfo } from "../ts/client/core/session-api.js";
import { gridViewOf } from "../ts/client/render/frame.js";
import { installMapArt } from "../ts/client/render/map-art.js";
import { screenOfTile } from "../ts/client/render/picking.js";
import { TileAnimations, tileFramesProblem } from "../ts/client/render/tile-animation.js";
import { Logger } from "../ts/server/ops/log.js";
import { mapArtDescription } from "../ts/server/http/map-art-route.js";
import { startServer } from "../ts/server/server.js";
import { readWorldMap } from "../ts/server/world/world-map.js";
import { makeRenderRig, RIG_HUD, type RenderRig } from "./client-render-rig.js";
import { MAPS_REAL } from "./support/maps-real.js";

let rig: RenderRig;
beforeAll(async () => {
  rig = await makeRenderRig();
});

describe("picking a frame by the clock", () => {
  const animations = new TileAnimations(
    new Map([
      [
        7,
        [
          { look: 3, durationMs: 250 },
          { look: 4, durationMs: 100 },
          { look: 5, durationMs: 650 },
        ],
      ],
    ]),
  );

  it("follows the durations and loops", () => {
    const at = (ms: number): number => animations.lookAt(0, ms);
    expect([0, 249, 250, 349, 350, 999, 1000, 1250, 2_000_000_000_100].map(at)).toEqual([3, 3, 4, 4, 5, 5, 3, 4, 3]);
  });

  it("refuses frames that do not fit the atlas", () => {
    expect(tileFramesProblem([{ look: 1, durationMs: 10 }], 4)).toBe("1 frames");
    expect(
      tileFramesProblem(
        [
          { look: 1, durationMs: 10 },
          { look: 4, durationMs: 10 },
        ],
        4,
      ),
    ).toMatch(/not an atlas/);
    expect(
      tileFramesProblem(
        [
          { look: 1, durationMs: 0 },
          { look: 2, durationMs: 10 },
        ],
        4,
      ),
    ).toMatch(/duration/);
    expect(
      tileFramesProblem(
        [
          { look: 1, durationMs: 5 },
          { look: 2, durationMs: 10 },
        ],
        4,
      ),
    ).toBeNull();
  });
});

describe("forest.tmx's squirrel through the real renderer", () => {
  it("comes over GET /api/world as the server built it", async () => {
    const map = resolve(MAPS_REAL, "mapeditor-tiled/forest/forest.tmx");
    const server = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: map,
      logger: new Logger("silent"),
    });
    try {
      const world = await fetchWorld(`http://127.0.0.1:${server.httpPort}`);
      const sent = world.tiles.filter((tile) => tile.frames !== undefined);
      const built = server.game.world.tileInfo.filter((tile) => tile.frames !== undefined);
      expect(sent.length).toBe(3);
      expect(sent.map(({ id, look, frames }) => ({ id, look, frames }))).toEqual(
        built.map(({ id, look, frames }) => ({ id, look, frames })),
      );
    } finally {
      await server.close();
    }
  });

  it("draws each animated id's frame of the time given, and only those cells change", () => {
    const world = readWorldMap(resolve(MAPS_REAL, "mapeditor-tiled/forest/forest.tmx"));
    const art = world.art!;
    const info = mapArtDescription(art) as unknown as MapArtInfo;
    const sheet = installMapArt(rig.blitter, info, art.pixels, world.tileInfo);
    expect(sheet.animations?.size).toBe(3);
    rig.renderer.setMapTiles(sheet);
    expect(rig.sim.initGrid(world.width, world.height, 0, 0)).toBe(true);
    for (let y = 0; y < world.height; y++) {
      for (let x = 0; x < world.width; x++) rig.sim.setTile(x, y, world.tiles[y * world.width + x]);
    }
    const tile = art.tileWidthPx;
    // The camera is in 8 px world units at every tile size (placeViewport scales it).
    const camera = { x: 20 * 8, y: 8 * 8 };
    const render = (tileClockMs: number) => {
      const placement = rig.renderer.render({
        camera,
        grid: gridViewOf(rig.sim),
        entities: [],
        pendingSteps: [],
        plannedSteps: [],
        goal: null,
        cursor: null,
        banner: null,
        hud: RIG_HUD,
        tileClockMs,
      });
      return { placement, fb: rig.blitter.framebuffer().slice() };
    };
    const animated = world.tileInfo.filter((entry) => entry.frames !== undefined);
    const cells = animated.flatMap((entry) => {
      const cell = world.tiles.indexOf(entry.id);
      return [{ entry, x: cell % world.width, y: Math.floor(cell / world.width) }];
    });
    const width = rig.renderer.screen.width;
    const atlasPixel = (look: number, x: number, y: number): number =>
      art.pixels[(Math.floor(look / art.columns) * tile + y) * art.columns * tile + (look % art.columns) * tile + x];
    const framesAt = [0, 149, 150, 299, 300, 451];
    const expectedFrame = [0, 0, 1, 1, 0, 1];
    const shots = framesAt.map((ms) => render(ms));
    shots.forEach(({ placement, fb }, shot) => {
      for (const { entry, x, y } of cells) {
        const look = entry.frames![expectedFrame[shot]].look;
        const screen = screenOfTile(x, y, placement);
        for (let py = 0; py < tile; py++) {
          for (let px = 0; px < tile; px++) {
            expect(fb[(screen.y + py) * width + screen.x + px]).toBe(atlasPixel(look, px, py));
          }
        }
      }
    });
    // Between a frame-0 and a frame-1 shot the pixels that differ all lie in the animated cells, and some do.
    const { placement, fb: first } = shots[0];
    const second = shots[2].fb;
    const inAnimatedCell = (sx: number, sy: number): boolean =>
      cells.some(({ x, y }) => {
        const screen = screenOfTile(x, y, placement);
        return sx >= screen.x && sx < screen.x + tile && sy >= screen.y && sy < screen.y + tile;
      });
    let differing = 0;
    for (let i = 0; i < first.length; i++) {
      if (first[i] === second[i]) continue;
      differing++;
      expect(inAnimatedCell(i % width, Math.floor(i / width))).toBe(true);
    }
    expect(differing).toBeGreaterThan(20);
    rig.renderer.setMapTiles(null);
  });
});
