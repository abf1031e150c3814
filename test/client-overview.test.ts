// The overview's DOM-free parts: the minimap's tile colours (the commonest
// colour of each tile's art) and its memory of explored chunks (coloured once
// per version, bounded, painted into a window around the player), and the
// who's-online answer's checking.
import { describe, expect, it } from "vitest";
import { CHUNK_SIZE, CHUNK_TILE_COUNT } from "../ts/constants.js";
import { chunkId } from "../ts/protocol/chunk-id.js";
import { createImage, rgb24FromRgb332 } from "../ts/client/assets/image.js";
import { CELL_SIZE_PX, SHEET_COLUMNS } from "../ts/client/assets/sheets.js";
import { ExploredChunks, MINIMAP_CHUNKS_MAX, tileColours } from "../ts/client/ui/minimap.js";
import { QuestGivers, QUEST_GIVERS_MAX } from "../ts/client/core/quest-givers.js";
import { MARK_HAND_IN, MARK_OFFER } from "../ts/client/core/quests.js";
import { onlineLabel, parseOnline, sortNicks } from "../ts/client/ui/who-online.js";

/** A tile sheet whose cell `look` is `main` but for `rest` pixels of `other`. */
function sheetWith(look: number, main: number, other: number, rest: number) {
  const sheet = createImage(SHEET_COLUMNS * CELL_SIZE_PX, 4 * CELL_SIZE_PX);
  const left = (look % SHEET_COLUMNS) * CELL_SIZE_PX;
  const top = Math.floor(look / SHEET_COLUMNS) * CELL_SIZE_PX;
  for (let index = 0; index < CELL_SIZE_PX * CELL_SIZE_PX; index++) {
    const x = left + (index % CELL_SIZE_PX);
    const y = top + Math.floor(index / CELL_SIZE_PX);
    sheet.pixels[y * sheet.width + x] = index < rest ? other : main;
  }
  return sheet;
}

function chunk(cx: number, cy: number, version: number, tile: number) {
  return { id: chunkId(cx, cy), version, tiles: new Uint16Array(CHUNK_TILE_COUNT).fill(tile) };
}

describe("tileColours", () => {
  it("gives each tile the commonest colour of its look's art, and 0 to a tile without art", () => {
    const sheet = sheetWith(5, 0x1f, 0xe0, 20);
    const colours = tileColours(
      [
        { id: 3, look: 5 },
        { id: 4, look: 0 },
        { id: 9, look: 10_000 },
      ],
      sheet,
    );
    expect(colours[3]).toBe(0x1f);
    expect(colours[4]).toBe(0);
    expect(colours[9]).toBe(0);
  });
});

describe("ExploredChunks", () => {
  const colours = new Uint8Array(0x10000);
  colours[7] = 0x1c; // green
  colours[8] = 0x03; // blue

  it("remembers chunks the cache forgets and recolours a chunk only when its version changes", () => {
    const explored = new ExploredChunks(colours);
    expect(explored.observe([chunk(1, 1, 1, 7), chunk(2, 1, 1, 7)])).toBe(true);
    expect(explored.observe([chunk(1, 1, 1, 7)])).toBe(false);
    expect(explored.size).toBe(2);
    // A new version (a door opened, say) is taken again.
    expect(explored.observe([chunk(1, 1, 2, 8)])).toBe(true);
    const size = 3 * CHUNK_SIZE;
    const rgba = new Uint8ClampedArray(size * size * 4);
    explored.paint(rgba, 0, 0, size);
    const at = (x: number, y: number) =>
      (rgba[(y * size + x) * 4] << 16) | (rgba[(y * size + x) * 4 + 1] << 8) | rgba[(y * size + x) * 4 + 2];
    expect(at(CHUNK_SIZE + 3, CHUNK_SIZE + 3)).toBe(rgb24FromRgb332(0x03));
    expect(at(2 * CHUNK_SIZE + 3, CHUNK_SIZE + 3)).toBe(rgb24FromRgb332(0x1c));
    expect(at(3, 3)).toBe(0); // unexplored: black
    expect(rgba[3]).toBe(255);
  });

  it("keeps at most MINIMAP_CHUNKS_MAX chunks, forgetting the one seen longest ago", () => {
    const explored = new ExploredChunks(colours);
    for (let index = 0; index < MINIMAP_CHUNKS_MAX + 3; index++)
      explored.observe([chunk(index % 100, Math.floor(index / 100), 1, 7)]);
    expect(explored.size).toBe(MINIMAP_CHUNKS_MAX);
  });
});

describe("QuestGivers (the minimap's quest marks)", () => {
  const TOM = 40;
  const RAT = 7;
  it("remembers a giver seen once and shows the mark its kind has now, out of view too", () => {
    const givers = new QuestGivers();
    let tomMark = MARK_OFFER;
    const markOf = (typeId: number) => (typeId === TOM ? tomMark : 0);
    expect(
      givers.observe(
        [
          { id: 1, typeId: TOM, x: 10, y: 12 },
          { id: 2, typeId: RAT, x: 3, y: 3 },
        ],
        markOf,
      ),
    ).toBe(true);
    expect(givers.marks(markOf)).toEqual([{ entityId: 1, x: 10, y: 12, mark: MARK_OFFER }]);
    // The quest taken: no mark, but Tom is still remembered while out of view…
    tomMark = 0;
    expect(givers.observe([], markOf)).toBe(false);
    expect(givers.marks(markOf)).toEqual([]);
    // … and shows "hand it in" once the goal is met, though not seen since.
    tomMark = MARK_HAND_IN;
    expect(givers.marks(markOf)).toEqual([{ entityId: 1, x: 10, y: 12, mark: MARK_HAND_IN }]);
    // Seen again elsewhere: moved, not doubled.
    expect(givers.observe([{ id: 1, typeId: TOM, x: 11, y: 12 }], markOf)).toBe(true);
    expect(givers.marks(markOf)).toEqual([{ entityId: 1, x: 11, y: 12, mark: MARK_HAND_IN }]);
    givers.reset();
    expect(givers.marks(markOf)).toEqual([]);
  });

  it(`remembers at most ${QUEST_GIVERS_MAX} givers, forgetting the one seen longest ago`, () => {
    const givers = new QuestGivers();
    const markOf = () => MARK_OFFER;
    const many = Array.from({ length: QUEST_GIVERS_MAX + 3 }, (_, i) => ({ id: i + 1, typeId: TOM, x: i, y: 0 }));
    givers.observe(many, markOf);
    const ids = givers.marks(markOf).map((mark) => mark.entityId);
    expect(ids).toHaveLength(QUEST_GIVERS_MAX);
    expect(ids[0]).toBe(4);
  });
});

describe("parseOnline", () => {
  it("accepts the route's answer and refuses anything else", () => {
    expect(parseOnline({ count: 2, nicks: ["Amy", "Zed"], truncated: false })).toEqual({
      count: 2,
      nicks: ["Amy", "Zed"],
      truncated: false,
    });
    expect(parseOnline({ count: -1, nicks: [] })).toBeNull();
    expect(parseOnline({ count: 1, nicks: [3] })).toBeNull();
    expect(parseOnline("2 online")).toBeNull();
    expect(parseOnline(null)).toBeNull();
    expect(onlineLabel(3)).toBe("3 online");
  });
});

describe("sortNicks", () => {
  it("lists bot2 before bot10 and ignores case (20 bots read bot1, bot10, bot11, … bot2 before)", () => {
    expect(sortNicks(["bot10", "bot2", "Ada", "bot1", "ada b", "Zed"])).toEqual([
      "Ada",
      "ada b",
      "bot1",
      "bot2",
      "bot10",
      "Zed",
    ]);
  });
});
