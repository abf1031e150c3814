// Draws the project's own pixel art and writes it as TGA sheets into
// ts/client/assets/: tiles.tga (RLE), sprites.tga (uncompressed), font.tga (RLE), and tiles.png — the
// tile sheet again for Tiled, which cannot read these TGAs (the maps' tilesets name it).
// Everything is procedural or hand-authored below; noise comes from a seeded
// generator, so running the script twice gives byte-identical files.
//
//   npx tsx scripts/make-art.ts                 # rewrite the committed sheets
//   npx tsx scripts/make-art.ts --preview DIR   # also write enlarged PNG previews and a 3x sample scene
//
// Colours are RGB332 bytes (see docs/art.md); 0 is transparent, so no opaque
// colour below is 0.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import { encode as encodePng } from "fast-png";
import { createImage, rgb24FromRgb332, rgb332, type Rgb332Image } from "../ts/client/assets/image.js";
import { encodeTga } from "../ts/client/assets/tga.js";
import {
  CELL_SIZE_PX,
  FONT_FILE,
  FONT_FIRST_CHAR,
  FONT_LAST_CHAR,
  SHEET_COLUMNS,
  SPRITES_FILE,
  SPRITE_BEETLE,
  SPRITE_CELL_COUNT,
  SPRITE_COIN,
  SPRITE_CRYSTAL,
  SPRITE_DAGGER,
  SPRITE_ITEM,
  SPRITE_KEY,
  SPRITE_LEATHER,
  SPRITE_MAIL,
  SPRITE_POTION,
  SPRITE_SWORD,
  SPRITE_WORN_ARMOR,
  SPRITE_WORN_DAGGER,
  SPRITE_WORN_TORCH,
  SPRITE_TORCH,
  SPRITE_WORN_LEATHER,
  SPRITE_WORN_MAIL,
  SPRITE_WORN_SWORD,
  SPRITE_WORN_WEAPON,
  SPRITE_GUARD,
  SPRITE_RAT,
  SPRITE_SKELETON,
  SPRITE_SPIDER,
  TILES_FILE,
  TILES_FOR_TILED_FILE,
  TILE_CELL_COUNT,
  sheetSizePx,
} from "../ts/client/assets/sheets.js";
import { mulberry32 } from "../ts/random.js";

const ASSET_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "ts", "client", "assets");
const ID_TEXT = "Forgotten Caves art (scripts/make-art.ts)";

// ---- palette -------------------------------------------------------------
// Named colours, each exactly an RGB332 byte: rgb332(red 0..7, green 0..7, blue 0..3).
const C = {
  ink: rgb332(0, 0, 1), // darkest non-transparent: outlines, deep cracks
  floorDark: rgb332(1, 1, 1),
  floor: rgb332(2, 2, 1),
  floorLight: rgb332(3, 3, 1),
  pebble: rgb332(4, 4, 2),
  pebbleLight: rgb332(5, 5, 2),
  mossDark: rgb332(0, 2, 0),
  moss: rgb332(1, 3, 0),
  mossLight: rgb332(2, 4, 1),
  slab: rgb332(3, 3, 1),
  slabLight: rgb332(4, 4, 2),
  slabDark: rgb332(2, 2, 1),
  joint: rgb332(1, 1, 0),
  crystalDark: rgb332(2, 1, 3),
  crystal: rgb332(3, 5, 3),
  crystalLight: rgb332(5, 7, 3),
  crystalPink: rgb332(6, 2, 3),
  stoneLight: rgb332(6, 6, 3),
  stone: rgb332(4, 4, 2),
  stoneDark: rgb332(2, 2, 1),
  waterDeep: rgb332(0, 0, 1),
  water: rgb332(0, 1, 2),
  waterLight: rgb332(0, 2, 3),
  foam: rgb332(3, 5, 3),
  woodDark: rgb332(2, 1, 0),
  wood: rgb332(4, 2, 0),
  woodLight: rgb332(5, 3, 1),
  paper: rgb332(6, 6, 2),
  cork: rgb332(4, 3, 0),
  capRed: rgb332(6, 1, 0),
  capOrange: rgb332(7, 4, 0),
  stem: rgb332(6, 6, 2),
  white: rgb332(7, 7, 3),
  flameYellow: rgb332(7, 7, 1),
  flameOrange: rgb332(7, 4, 0),
  flameRed: rgb332(6, 1, 0),
  glow: rgb332(6, 4, 1),
  skin: rgb332(7, 5, 2),
  hair: rgb332(3, 1, 0),
  eye: rgb332(0, 0, 1),
  boot: rgb332(2, 1, 0),
  gold: rgb332(7, 6, 0),
  goldDark: rgb332(5, 3, 0),
  slimeDark: rgb332(0, 3, 0),
  slime: rgb332(1, 5, 0),
  slimeLight: rgb332(4, 7, 1),
} as const;

/** Tunic colours of the player (cell 0) and its variants (cells 4..7): [main, shade]. */
const TUNICS: readonly (readonly [number, number])[] = [
  [rgb332(1, 3, 3), rgb332(0, 1, 2)], // blue
  [rgb332(6, 1, 0), rgb332(3, 0, 0)], // red
  [rgb332(1, 5, 0), rgb332(0, 2, 0)], // green
  [rgb332(5, 1, 3), rgb332(2, 0, 2)], // purple
  [rgb332(7, 6, 0), rgb332(4, 3, 0)], // gold
];

// ---- drawing helpers -----------------------------------------------------

/** Draws into one 8×8 cell of a sheet; coordinates wrap, so patterns tile seamlessly. */
class Cell {
  constructor(
    private readonly sheet: Rgb332Image,
    private readonly left: number,
    private readonly top: number,
  ) {}

  set(x: number, y: number, colour: number): void {
    const cx = ((x % CELL_SIZE_PX) + CELL_SIZE_PX) % CELL_SIZE_PX;
    const cy = ((y % CELL_SIZE_PX) + CELL_SIZE_PX) % CELL_SIZE_PX;
    this.sheet.pixels[(this.top + cy) * this.sheet.width + this.left + cx] = colour;
  }

  get(x: number, y: number): number {
    const cx = ((x % CELL_SIZE_PX) + CELL_SIZE_PX) % CELL_SIZE_PX;
    const cy = ((y % CELL_SIZE_PX) + CELL_SIZE_PX) % CELL_SIZE_PX;
    return this.sheet.pixels[(this.top + cy) * this.sheet.width + this.left + cx];
  }

  fill(colour: number): void {
    for (let y = 0; y < CELL_SIZE_PX; y++) for (let x = 0; x < CELL_SIZE_PX; x++) this.set(x, y, colour);
  }

  /** Paints an 8-row picture; each character is looked up in the legend, "." leaves the pixel as is. */
  picture(rows: readonly string[], legend: Readonly<Record<string, number>>): void {
    if (rows.length !== CELL_SIZE_PX) throw new Error(`picture needs ${CELL_SIZE_PX} rows, got ${rows.length}`);
    rows.forEach((row, y) => {
      if (row.length !== CELL_SIZE_PX) throw new Error(`picture row "${row}" is not ${CELL_SIZE_PX} wide`);
      for (let x = 0; x < CELL_SIZE_PX; x++) {
        const key = row[x];
        if (key === ".") continue;
        const colour = legend[key];
        if (colour === undefined) throw new Error(`picture uses "${key}" without a legend entry`);
        this.set(x, y, colour);
      }
    });
  }
}

function newSheet(cellCount: number): Rgb332Image {
  const { width, height } = sheetSizePx(cellCount);
  return createImage(width, height);
}

function cellOf(sheet: Rgb332Image, index: number): Cell {
  return new Cell(sheet, (index % SHEET_COLUMNS) * CELL_SIZE_PX, Math.floor(index / SHEET_COLUMNS) * CELL_SIZE_PX);
}

// ---- tiles ---------------------------------------------------------------

/** Dark, low-contrast speckled cave floor: the background of most walkable tiles. */
function drawFloor(cell: Cell, seed: number): void {
  const next = mulberry32(seed);
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 8; x++) {
      const roll = next();
      cell.set(x, y, roll < 0.16 ? C.floorDark : roll > 0.93 ? C.floorLight : C.floor);
    }
  }
}

function drawGravel(cell: Cell): void {
  drawFloor(cell, 2);
  // Pebbles: a lit top-left pixel, a body pixel and a shadow below-right.
  const pebbles: readonly [number, number][] = [
    [1, 1],
    [5, 0],
    [3, 3],
    [6, 4],
    [0, 5],
    [3, 6],
    [7, 7],
  ];
  pebbles.forEach(([x, y], index) => {
    cell.set(x, y, index % 2 === 0 ? C.pebbleLight : C.pebble);
    cell.set(x + 1, y, C.pebble);
    cell.set(x + 1, y + 1, C.floorDark);
  });
}

function drawMoss(cell: Cell): void {
  drawFloor(cell, 3);
  cell.picture(["M.....m.", "mm...mMm", "......m.", "........", "...mM...", "..mmmm..", "m.......", "Mm.....m"], {
    m: C.moss,
    M: C.mossLight,
  });
  // Moss darkens where it meets bare stone, so the patches read as raised tufts.
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 8; x++) {
      const isMoss = cell.get(x, y) === C.moss || cell.get(x, y) === C.mossLight;
      const below = cell.get(x, y + 1);
      if (isMoss && below !== C.moss && below !== C.mossLight) cell.set(x, y + 1, C.mossDark);
    }
  }
}

function drawFlagstone(cell: Cell): void {
  // Two courses of flat dressed slabs with offset joints; only a corner catches light, so they stay floor-like.
  cell.picture(["Lssssssj", "sssssssj", "ssssssdj", "jjjjjjjj", "sssjLsss", "sssjssss", "ssdjssss", "jjjjjjjj"], {
    L: C.slabLight,
    s: C.slab,
    d: C.slabDark,
    j: C.joint,
  });
  const next = mulberry32(4);
  for (let speck = 0; speck < 4; speck++) {
    const x = Math.floor(next() * 8);
    const y = Math.floor(next() * 8);
    if (cell.get(x, y) === C.slab) cell.set(x, y, C.slabDark);
  }
}

interface RockColours {
  top: number;
  light: number;
  main: number;
  shadow: number;
  crack: number;
}

/**
 * Shades a region map into stones: each letter is one stone, and a pixel's colour follows from
 * its neighbours (lit top and left edges, a dark seam along the bottom and right), so walls read
 * as raised, lumpy rock beside the flat floor. The map wraps, so tiles join without seams.
 */
function drawStones(cell: Cell, regions: readonly string[], colours: RockColours, seed: number): void {
  const region = (x: number, y: number): string => regions[(y + 8) % 8][(x + 8) % 8];
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 8; x++) {
      const own = region(x, y);
      let colour = colours.main;
      if (region(x, y + 1) !== own) colour = colours.crack;
      else if (region(x, y - 1) !== own) colour = colours.top;
      else if (region(x + 1, y) !== own) colour = colours.shadow;
      else if (region(x - 1, y) !== own) colour = colours.light;
      cell.set(x, y, colour);
    }
  }
  const next = mulberry32(seed);
  for (let speck = 0; speck < 3; speck++) {
    const x = Math.floor(next() * 8);
    const y = Math.floor(next() * 8);
    if (cell.get(x, y) === colours.main) cell.set(x, y, colours.light);
  }
}

/** Lumpy boulders of uneven size. */
const BOULDERS = ["AAAAABBB", "AAAAABBB", "AAAAABBB", "AAAAABBB", "CCDDDDDD", "CCDDDDDD", "CCCDDDDD", "CCCDDDDD"];
/** Flat layered slabs, for the dark rock: strata instead of boulders. */
const STRATA = ["AAAAAAAA", "AAAAAAAA", "BBBBBCCC", "BBBBBCCC", "BBBBBCCC", "DDEEEEEE", "DDEEEEEE", "DDEEEEEE"];

const ROCK: RockColours = {
  top: rgb332(6, 5, 1),
  light: rgb332(5, 4, 1),
  main: rgb332(4, 3, 1),
  shadow: rgb332(3, 2, 1),
  crack: C.ink,
};
const SLATE: RockColours = {
  top: rgb332(3, 3, 2),
  light: rgb332(2, 2, 2),
  main: rgb332(1, 1, 2),
  shadow: rgb332(1, 1, 1),
  crack: C.ink,
};

function drawCrystalWall(cell: Cell): void {
  drawStones(cell, STRATA, SLATE, 7);
  cell.picture(["........", ".L....P.", ".cL..pP.", ".ccL.pp.", "..ccL.p.", "..dcc...", "...dd...", "........"], {
    L: C.crystalLight,
    c: C.crystal,
    d: C.crystalDark,
    p: C.crystalPink,
    P: C.white,
  });
}

function drawPillar(cell: Cell): void {
  drawFloor(cell, 8);
  // A round column: lit left of centre, shaded right, with a wider capital and base.
  cell.picture([".LLLLLL.", "klLLlmdk", ".klLmdk.", ".klLmdk.", ".klLmdk.", ".klLmdk.", "klLLlmdk", "fkkkkkkf"], {
    L: C.stoneLight,
    l: C.stone,
    m: C.stone,
    d: C.stoneDark,
    k: C.ink,
    f: C.floorDark,
  });
}

function drawWater(cell: Cell, deep: boolean): void {
  const base = deep ? C.waterDeep : C.water;
  const wave = deep ? C.water : C.waterLight;
  const crest = deep ? C.waterLight : C.foam;
  cell.fill(base);
  const rows = deep
    ? ["........", "..ww....", "........", "........", "........", "......ww", "........", "........"]
    : ["........", ".wwc....", "........", "....w...", "......wc", "........", "..w.....", "........"];
  cell.picture(rows, { w: wave, c: crest });
}

function drawRubble(cell: Cell): void {
  drawFloor(cell, 11);
  cell.picture(["........", ".tl.....", ".lms....", "..s..tl.", ".....ms.", "tl....s.", "ms..tl..", ".s..ms.."], {
    t: ROCK.top,
    l: ROCK.light,
    m: ROCK.main,
    s: ROCK.shadow,
  });
}

function drawMushrooms(cell: Cell): void {
  drawFloor(cell, 12);
  cell.picture(["........", ".rwr....", "rrrrr...", "..s..oo.", "..s.oooo", "..f..s..", ".....s..", ".....f.."], {
    r: C.capRed,
    w: C.white,
    o: C.capOrange,
    s: C.stem,
    f: C.floorDark,
  });
}

function drawTorchWall(cell: Cell): void {
  drawStones(cell, BOULDERS, ROCK, 13);
  cell.picture(["...y....", "..yYo...", "..oYo...", "..rob...", "...h....", "..khk...", "...h....", "........"], {
    y: C.flameYellow,
    Y: C.white,
    o: C.flameOrange,
    r: C.flameRed,
    b: C.glow,
    h: C.wood,
    k: C.ink,
  });
}

function drawSign(cell: Cell): void {
  drawFloor(cell, 14);
  cell.picture(["........", "kkkkkkk.", "kwWWWwk.", "kwWWwwk.", "kkkhkkk.", "...h....", "...h....", "..fhf..."], {
    k: C.woodDark,
    w: C.woodLight,
    W: C.wood,
    h: C.wood,
    f: C.floorDark,
  });
}

function drawNoticeBoard(cell: Cell): void {
  drawFloor(cell, 15);
  cell.picture(["kkkkkkkk", "kcppcPck", "kcppcPck", "kccccccK", "kcPPcppk", "kkkkkkkk", ".h....h.", ".h....h."], {
    k: C.woodDark,
    K: C.woodDark,
    c: C.cork,
    p: C.paper,
    P: C.white,
    h: C.wood,
  });
}

function drawBridge(cell: Cell): void {
  cell.picture(
    ["kLLLLLLk", "kwwwwwwk", "kddddddk", "kLLLLLLk", "kwwwwwwk", "kwwnwwwk", "kddddddk", "kLLLLLLk"].map((row, y) =>
      y === 0 || y === 3 || y === 7 ? row : row,
    ),
    { k: C.woodDark, L: C.woodLight, w: C.wood, d: C.woodDark, n: C.woodDark },
  );
}

/** A closed (or locked) door: planks in a stone frame with an iron band and ring; it blocks sight. */
function drawDoor(cell: Cell): void {
  cell.picture(["SSSSSSSS", "SkLwLwkS", "SkwLwLkS", "SiiiiiiS", "SkLwLgkS", "SkwLwLkS", "SkLwLwkS", "SkkkkkkS"], {
    S: ROCK.shadow,
    k: C.woodDark,
    L: C.woodLight,
    w: C.wood,
    i: C.ink,
    g: C.gold,
  });
}

/** The same door swung open against its frame: the floor shows through, the leaf is a strip on the left. */
function drawOpenDoor(cell: Cell): void {
  drawFloor(cell, 18);
  cell.picture(["SSSSSSSS", "SkL....S", "SkL....S", "Si.....S", "SkL....S", "SkL....S", "SkL....S", "Sk.....S"], {
    S: ROCK.shadow,
    k: C.woodDark,
    L: C.woodLight,
    i: C.ink,
  });
}

/** Stairs down (issue 15): stone steps in a dark frame, each tread dimmer than the one above, sinking into black. */
function drawStairsDown(cell: Cell): void {
  cell.picture(["kLLLLLLk", "kssssssk", "kSSSSSSk", "kddddddk", "kDDDDDDk", "kjjjjjjk", "kiiiiiik", "kiiiiiik"], {
    k: C.ink,
    L: C.stoneLight,
    s: C.stone,
    S: C.stone,
    d: C.stoneDark,
    D: C.stoneDark,
    j: C.joint,
    i: C.ink,
  });
  // The edge of each lower tread catches a little light, so the steps read as steps, not a ramp.
  for (const x of [2, 4, 6]) cell.set(x, 2, C.stoneLight);
  for (const x of [1, 3, 5]) cell.set(x, 4, C.stone);
}

/** Stairs up: three lit treads with shadowed risers between, no pit — the way out of a level. */
function drawStairsUp(cell: Cell): void {
  cell.picture(["dLLLLLLd", "dssssssd", "djjjjjjd", "dLLLLLLd", "dssssssd", "djjjjjjd", "dLLLLLLd", "dssssssd"], {
    d: C.stoneDark,
    L: C.stoneLight,
    s: C.stone,
    j: C.joint,
  });
}

function makeTiles(): Rgb332Image {
  const sheet = newSheet(TILE_CELL_COUNT);
  const draw: Record<number, (cell: Cell) => void> = {
    1: (cell) => drawFloor(cell, 1),
    2: drawGravel,
    3: drawMoss,
    4: drawFlagstone,
    5: (cell) => drawStones(cell, BOULDERS, ROCK, 5),
    6: (cell) => drawStones(cell, STRATA, SLATE, 6),
    7: drawCrystalWall,
    8: drawPillar,
    9: (cell) => drawWater(cell, false),
    10: (cell) => drawWater(cell, true),
    11: drawRubble,
    12: drawMushrooms,
    13: drawTorchWall,
    14: drawSign,
    15: drawNoticeBoard,
    16: drawBridge,
    17: drawDoor,
    18: drawOpenDoor,
    19: drawStairsDown,
    20: drawStairsUp,
  };
  for (let id = 1; id < TILE_CELL_COUNT; id++) draw[id](cellOf(sheet, id));
  return sheet;
}

// ---- sprites -------------------------------------------------------------

function drawPlayer(cell: Cell, tunic: readonly [number, number]): void {
  // A small adventurer holding a short sword upright in the right hand.
  cell.picture(["..hhhh..", ".hhhhhh.", ".hesseh.", "..ssss.w", ".TttttTw", "s.tbbt.s", "..tTTt..", "..o..o.."], {
    h: C.hair,
    s: C.skin,
    e: C.eye,
    t: tunic[0],
    T: tunic[1],
    b: C.boot,
    o: C.boot,
    w: C.stoneLight,
  });
}

function drawCreature(cell: Cell): void {
  cell.picture(["........", "...kk...", "..kLgk..", ".kLgggk.", ".kgegek.", "kgggggGk", "kgGgggGk", ".kkkkkk."], {
    k: C.slimeDark,
    g: C.slime,
    L: C.slimeLight,
    G: C.slimeDark,
    e: C.eye,
  });
}

function drawChest(cell: Cell): void {
  cell.picture(["........", ".kkkkkk.", "kwwwwwwk", "kWWWWWWk", "kgggYggk", "kwwwgwwk", "kWWWWWWk", ".kkkkkk."], {
    k: C.ink,
    w: C.woodLight,
    W: C.wood,
    g: C.goldDark,
    Y: C.gold,
  });
}

function drawSignPost(cell: Cell): void {
  cell.picture(["........", "kkkkkkk.", "kwWWWwk.", "kwWwWWk.", "kkkhkkk.", "...h....", "...h....", "..khk..."], {
    k: C.woodDark,
    w: C.woodLight,
    W: C.wood,
    h: C.wood,
  });
}

// The NPC kinds' creatures (KIND_SPRITE_CELLS). Each has its own outline, so
// they read apart at 8 px even before colour: low and long (rat), round and
// shelled (beetle), legs all round (spider), a thin light figure (skeleton), a
// helmeted figure with a spear (guard).

function drawRat(cell: Cell): void {
  // Side view, facing left: pink ear, red bead eye, nose and tail.
  cell.picture(["........", "........", "..pp....", ".kggggk.", "kegggGGk", "pgggGGGk", ".kkkkkkt", "..p..ptt"], {
    k: C.ink,
    g: C.stone,
    G: C.stoneDark,
    e: C.capRed,
    p: C.skin,
    t: C.skin,
  });
}

function drawBeetle(cell: Cell): void {
  // Top view: a dark violet shell with glowing spots, the light it is named for.
  cell.picture([".k....k.", "..k..k..", "..kddk..", ".kdLLdk.", "kdLddLdk", ".kddddk.", "kkdLLdkk", "..kkkk.."], {
    k: C.ink,
    d: C.crystalDark,
    L: C.slimeLight,
  });
}

function drawSpider(cell: Cell): void {
  // Top view: eight legs around a brown body, two red eyes.
  cell.picture(["k......k", ".k.kk.k.", "..kbbk..", "kkbrrbkk", "..kbbk..", ".kbBBbk.", "k.kBBk.k", "k..kk..k"], {
    k: C.ink,
    b: C.hair,
    B: C.woodDark,
    r: C.flameRed,
  });
}

function drawSkeleton(cell: Cell): void {
  // Bone white with dark eye holes and ribs.
  cell.picture(["..wwww..", ".wkwwkw.", ".wwwwww.", "..wkkw..", ".w.ww.w.", "w.wkkw.w", "..w..w..", ".ww..ww."], {
    w: C.white,
    k: C.ink,
  });
}

function drawGuard(cell: Cell): void {
  // A helmeted guard in steel with a red plume, a gold belt and a spear held upright.
  cell.picture(["..rsss.l", ".sSSSSsw", ".Sfeef.w", "..ffff.w", ".SsssSfw", "f.sggs.w", "..sSSs.w", "..b..b.."], {
    r: C.capRed,
    s: C.stone,
    S: C.stoneDark,
    f: C.skin,
    e: C.eye,
    g: C.gold,
    b: C.boot,
    l: C.stoneLight,
    w: C.woodLight,
  });
}

// Items (ITEM_SPRITE_CELLS): small things on a transparent background, each
// with its own outline (the art test checks no two share a shape): a gold key,
// a short and a long blade drawn diagonally, a brown vest and a grey chain
// shirt, a red flask, a gold coin with a glint, a cyan crystal, and a sack for
// anything else.

function drawKey(cell: Cell): void {
  cell.picture(["........", ".YYY....", "Y...Y...", "Y...YYYY", "y...y.y.", ".yyy..yy", "........", "........"], {
    Y: C.gold,
    y: C.goldDark,
  });
}

function drawDagger(cell: Cell): void {
  cell.picture(["........", "......w.", ".....wl.", "....wl..", "..gwl...", "...g....", "..b.g...", "bb......"], {
    w: C.white,
    l: C.stone,
    g: C.gold,
    b: C.woodDark,
  });
}

function drawSword(cell: Cell): void {
  cell.picture([".......w", "......wl", ".....wl.", "....wl..", ".g.wl...", "..gl....", ".bgg....", "b......."], {
    w: C.white,
    l: C.stone,
    g: C.gold,
    b: C.woodDark,
  });
}

function drawLeather(cell: Cell): void {
  cell.picture(["........", ".kk..kk.", "kWwkkwWk", "kWwwwwWk", ".kwwwwk.", ".kWwwWk.", ".kWWWWk.", "..kkkk.."], {
    k: C.woodDark,
    w: C.woodLight,
    W: C.wood,
  });
}

function drawMail(cell: Cell): void {
  cell.picture(["........", ".kk..kk.", "kslkklsk", "kslslssk", ".klslsk.", ".kslslk.", ".ksssskk", "..kkkk.."], {
    k: C.ink,
    s: C.stone,
    l: C.stoneLight,
  });
}

function drawPotion(cell: Cell): void {
  cell.picture(["...cc...", "...gg...", "..g..g..", ".grrrrg.", ".gRrrrg.", ".grrrrg.", "..gggg..", "........"], {
    c: C.cork,
    g: C.stoneLight,
    r: C.capRed,
    R: C.capOrange,
  });
}

function drawCoin(cell: Cell): void {
  cell.picture(["........", "..yyyy..", ".yYYYWy.", ".yYyYYy.", ".yYyYYy.", ".yYYYYy.", "..yyyy..", "........"], {
    y: C.goldDark,
    Y: C.gold,
    W: C.white,
  });
}

function drawCrystal(cell: Cell): void {
  cell.picture(["....L...", "...LcL..", "..LccdL.", "..Lccd..", ".LccddL.", ".Lccdd..", "..kkkk..", "........"], {
    L: C.crystalLight,
    c: C.crystal,
    d: C.crystalDark,
    k: C.ink,
  });
}

/** A torch: a wooden stick, its head wrapped and burning. */
function drawTorch(cell: Cell): void {
  cell.picture(["....y...", "...yYo..", "...orr..", "....kh..", "....h...", "...h....", "...h....", "..h....."], {
    y: C.flameYellow,
    Y: C.white,
    o: C.flameOrange,
    r: C.flameRed,
    k: C.woodDark,
    h: C.wood,
  });
}

function drawSack(cell: Cell): void {
  cell.picture(["........", "...kk...", "..kWWk..", "...kk...", "..WwwW..", ".WwwwwW.", ".WwwwwW.", "..WWWW.."], {
    k: C.woodDark,
    w: C.woodLight,
    W: C.wood,
  });
}

// Worn overlays (WORN_SPRITE_CELLS): drawn over a player at the same place.
// A weapon is held in the right hand (column 7, above the hand at row 5, over
// the player's own little sword); armor covers the tunic (rows 4..6) and
// leaves face, hands, belt and boots showing.

function drawWornWeapon(cell: Cell, rows: readonly string[]): void {
  cell.picture(rows, {
    w: C.white,
    l: C.stone,
    g: C.gold,
    d: C.wood,
    L: C.woodLight,
    y: C.flameYellow,
    o: C.flameOrange,
  });
}

function drawWornArmor(cell: Cell, main: number, shade: number): void {
  cell.picture(["........", "........", "........", "........", ".SmmmmS.", "..m..m..", "..mSSm..", "........"], {
    m: main,
    S: shade,
  });
}

function makeSprites(): Rgb332Image {
  const sheet = newSheet(SPRITE_CELL_COUNT);
  drawPlayer(cellOf(sheet, 0), TUNICS[0]);
  drawCreature(cellOf(sheet, 1));
  drawChest(cellOf(sheet, 2));
  drawSignPost(cellOf(sheet, 3));
  for (let variant = 1; variant < TUNICS.length; variant++) drawPlayer(cellOf(sheet, 3 + variant), TUNICS[variant]);
  drawRat(cellOf(sheet, SPRITE_RAT));
  drawBeetle(cellOf(sheet, SPRITE_BEETLE));
  drawSpider(cellOf(sheet, SPRITE_SPIDER));
  drawSkeleton(cellOf(sheet, SPRITE_SKELETON));
  drawGuard(cellOf(sheet, SPRITE_GUARD));
  drawKey(cellOf(sheet, SPRITE_KEY));
  drawDagger(cellOf(sheet, SPRITE_DAGGER));
  drawSword(cellOf(sheet, SPRITE_SWORD));
  drawLeather(cellOf(sheet, SPRITE_LEATHER));
  drawMail(cellOf(sheet, SPRITE_MAIL));
  drawPotion(cellOf(sheet, SPRITE_POTION));
  drawCoin(cellOf(sheet, SPRITE_COIN));
  drawCrystal(cellOf(sheet, SPRITE_CRYSTAL));
  drawSack(cellOf(sheet, SPRITE_ITEM));
  drawTorch(cellOf(sheet, SPRITE_TORCH));
  const hand = ["........", "........", "........", "........", "........", "........", "........", "........"];
  const held = (column: readonly string[]): string[] => hand.map((row, y) => row.slice(0, 6) + column[y]);
  // Dagger: a short blade and a gold guard; sword: a long blade and a wide guard; any other weapon: a club.
  drawWornWeapon(cellOf(sheet, SPRITE_WORN_DAGGER), held(["..", "..", ".w", ".l", ".g", "..", "..", ".."]));
  drawWornWeapon(cellOf(sheet, SPRITE_WORN_SWORD), held([".w", ".l", ".l", ".l", "gg", "..", "..", ".."]));
  drawWornWeapon(cellOf(sheet, SPRITE_WORN_WEAPON), held(["..", "dL", ".L", ".L", ".d", "..", "..", ".."]));
  // Torch: a flame over a stick in the hand.
  drawWornWeapon(cellOf(sheet, SPRITE_WORN_TORCH), held([".y", ".o", ".d", ".d", ".d", "..", "..", ".."]));
  drawWornArmor(cellOf(sheet, SPRITE_WORN_LEATHER), C.woodLight, C.wood);
  drawWornArmor(cellOf(sheet, SPRITE_WORN_MAIL), C.stoneLight, C.stone);
  drawWornArmor(cellOf(sheet, SPRITE_WORN_ARMOR), C.paper, C.slab);
  return sheet;
}

// ---- font ----------------------------------------------------------------
// One glyph per printable ASCII character: 8 rows of 5 columns ("#" ink, "."
// clear), drawn into columns 1..5 of the cell. Cap height is rows 0..6,
// descenders use row 7.
const GLYPHS: Readonly<Record<string, string>> = {
  " ": "..... ..... ..... ..... ..... ..... ..... .....",
  "!": "..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#.. .....",
  '"': ".#.#. .#.#. ..... ..... ..... ..... ..... .....",
  "#": ".#.#. .#.#. ##### .#.#. ##### .#.#. .#.#. .....",
  $: "..#.. .#### #.#.. .###. ..#.# ####. ..#.. .....",
  "%": "##... ##..# ...#. ..#.. .#... #..## ...## .....",
  "&": ".##.. #..#. #.#.. .#... #.#.# #..#. .##.# .....",
  "'": "..#.. ..#.. .#... ..... ..... ..... ..... .....",
  "(": "...#. ..#.. .#... .#... .#... ..#.. ...#. .....",
  ")": ".#... ..#.. ...#. ...#. ...#. ..#.. .#... .....",
  "*": "..... ..#.. #.#.# .###. #.#.# ..#.. ..... .....",
  "+": "..... ..#.. ..#.. ##### ..#.. ..#.. ..... .....",
  ",": "..... ..... ..... ..... ..... ..#.. ..#.. .#...",
  "-": "..... ..... ..... ##### ..... ..... ..... .....",
  ".": "..... ..... ..... ..... ..... ..... ..#.. .....",
  "/": "....# ...#. ...#. ..#.. .#... .#... #.... .....",
  "0": ".###. #...# #..## #.#.# ##..# #...# .###. .....",
  "1": "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###. .....",
  "2": ".###. #...# ....# ...#. ..#.. .#... ##### .....",
  "3": "##### ...#. ..#.. ...#. ....# #...# .###. .....",
  "4": "...#. ..##. .#.#. #..#. ##### ...#. ...#. .....",
  "5": "##### #.... ####. ....# ....# #...# .###. .....",
  "6": "..##. .#... #.... ####. #...# #...# .###. .....",
  "7": "##### ....# ...#. ..#.. .#... .#... .#... .....",
  "8": ".###. #...# #...# .###. #...# #...# .###. .....",
  "9": ".###. #...# #...# .#### ....# ...#. .##.. .....",
  ":": "..... ..... ..#.. ..... ..... ..#.. ..... .....",
  ";": "..... ..... ..#.. ..... ..... ..#.. ..#.. .#...",
  "<": "...#. ..#.. .#... #.... .#... ..#.. ...#. .....",
  "=": "..... ..... ##### ..... ##### ..... ..... .....",
  ">": ".#... ..#.. ...#. ....# ...#. ..#.. .#... .....",
  "?": ".###. #...# ....# ...#. ..#.. ..... ..#.. .....",
  "@": ".###. #...# #.### #.#.# #.### #.... .###. .....",
  A: ".###. #...# #...# ##### #...# #...# #...# .....",
  B: "####. #...# #...# ####. #...# #...# ####. .....",
  C: ".###. #...# #.... #.... #.... #...# .###. .....",
  D: "####. #...# #...# #...# #...# #...# ####. .....",
  E: "##### #.... #.... ####. #.... #.... ##### .....",
  F: "##### #.... #.... ####. #.... #.... #.... .....",
  G: ".###. #...# #.... #.### #...# #...# .#### .....",
  H: "#...# #...# #...# ##### #...# #...# #...# .....",
  I: ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###. .....",
  J: "..### ...#. ...#. ...#. ...#. #..#. .##.. .....",
  K: "#...# #..#. #.#.. ##... #.#.. #..#. #...# .....",
  L: "#.... #.... #.... #.... #.... #.... ##### .....",
  M: "#...# ##.## #.#.# #.#.# #...# #...# #...# .....",
  N: "#...# #...# ##..# #.#.# #..## #...# #...# .....",
  O: ".###. #...# #...# #...# #...# #...# .###. .....",
  P: "####. #...# #...# ####. #.... #.... #.... .....",
  Q: ".###. #...# #...# #...# #.#.# #..#. .##.# .....",
  R: "####. #...# #...# ####. #.#.. #..#. #...# .....",
  S: ".#### #.... #.... .###. ....# ....# ####. .....",
  T: "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. .....",
  U: "#...# #...# #...# #...# #...# #...# .###. .....",
  V: "#...# #...# #...# #...# #...# .#.#. ..#.. .....",
  W: "#...# #...# #...# #.#.# #.#.# #.#.# .#.#. .....",
  X: "#...# #...# .#.#. ..#.. .#.#. #...# #...# .....",
  Y: "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#.. .....",
  Z: "##### ....# ...#. ..#.. .#... #.... ##### .....",
  "[": ".###. .#... .#... .#... .#... .#... .###. .....",
  "\\": "#.... .#... .#... ..#.. ...#. ...#. ....# .....",
  "]": ".###. ...#. ...#. ...#. ...#. ...#. .###. .....",
  "^": "..#.. .#.#. #...# ..... ..... ..... ..... .....",
  _: "..... ..... ..... ..... ..... ..... ..... #####",
  "`": ".#... ..#.. ..... ..... ..... ..... ..... .....",
  a: "..... ..... .###. ....# .#### #...# .#### .....",
  b: "#.... #.... ####. #...# #...# #...# ####. .....",
  c: "..... ..... .###. #.... #.... #...# .###. .....",
  d: "....# ....# .#### #...# #...# #...# .#### .....",
  e: "..... ..... .###. #...# ##### #.... .###. .....",
  f: "..##. .#..# .#... ###.. .#... .#... .#... .....",
  g: "..... ..... .#### #...# #...# .#### ....# .###.",
  h: "#.... #.... #.##. ##..# #...# #...# #...# .....",
  i: "..#.. ..... .##.. ..#.. ..#.. ..#.. .###. .....",
  j: "...#. ..... ..##. ...#. ...#. ...#. #..#. .##..",
  k: "#.... #.... #..#. #.#.. ##... #.#.. #..#. .....",
  l: ".##.. ..#.. ..#.. ..#.. ..#.. ..#.. .###. .....",
  m: "..... ..... ##.#. #.#.# #.#.# #.#.# #.#.# .....",
  n: "..... ..... #.##. ##..# #...# #...# #...# .....",
  o: "..... ..... .###. #...# #...# #...# .###. .....",
  p: "..... ..... ####. #...# #...# ####. #.... #....",
  q: "..... ..... .#### #...# #...# .#### ....# ....#",
  r: "..... ..... #.##. ##..# #.... #.... #.... .....",
  s: "..... ..... .#### #.... .###. ....# ####. .....",
  t: ".#... .#... ###.. .#... .#... .#..# ..##. .....",
  u: "..... ..... #...# #...# #...# #..## .##.# .....",
  v: "..... ..... #...# #...# #...# .#.#. ..#.. .....",
  w: "..... ..... #...# #...# #.#.# #.#.# .#.#. .....",
  x: "..... ..... #...# .#.#. ..#.. .#.#. #...# .....",
  y: "..... ..... #...# #...# #...# .#### ....# .###.",
  z: "..... ..... ##### ...#. ..#.. .#... ##### .....",
  "{": "...#. ..#.. ..#.. .#... ..#.. ..#.. ...#. .....",
  "|": "..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. .....",
  "}": ".#... ..#.. ..#.. ...#. ..#.. ..#.. .#... .....",
  "~": "..... ..... .#... #.#.# ...#. ..... ..... .....",
};

const GLYPH_INK = C.white;

function makeFont(): Rgb332Image {
  const glyphCount = FONT_LAST_CHAR - FONT_FIRST_CHAR + 1;
  const sheet = newSheet(glyphCount);
  for (let code = FONT_FIRST_CHAR; code <= FONT_LAST_CHAR; code++) {
    const character = String.fromCharCode(code);
    const glyph = GLYPHS[character];
    if (glyph === undefined) throw new Error(`no glyph for ${JSON.stringify(character)}`);
    const rows = glyph.split(" ");
    if (rows.length !== 8 || rows.some((row) => row.length !== 5)) {
      throw new Error(`glyph ${JSON.stringify(character)} must be 8 rows of 5 columns`);
    }
    cellOf(sheet, code - FONT_FIRST_CHAR).picture(
      rows.map((row) => `.${row}..`),
      { "#": GLYPH_INK },
    );
  }
  return sheet;
}

// ---- preview (for humans only; not committed) ----------------------------

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** A scaled RGB PNG; transparent pixels show as a checkerboard so holes are visible. */
function toPng(image: Rgb332Image, scale: number): Uint8Array {
  const width = image.width * scale;
  const height = image.height * scale;
  const raw = new Uint8Array(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    const rowStart = y * (1 + width * 3);
    for (let x = 0; x < width; x++) {
      const colour = image.pixels[Math.floor(y / scale) * image.width + Math.floor(x / scale)];
      const checker = ((x >> 2) + (y >> 2)) % 2 === 0 ? 0x303030 : 0x505050;
      const rgb = colour === 0 ? checker : rgb24FromRgb332(colour);
      raw.set([rgb >> 16, (rgb >> 8) & 0xff, rgb & 0xff], rowStart + 1 + x * 3);
    }
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8);
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(raw)),
    pngChunk("IEND", new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function blitCell(target: Rgb332Image, sheet: Rgb332Image, index: number, left: number, top: number): void {
  const sheetLeft = (index % SHEET_COLUMNS) * CELL_SIZE_PX;
  const sheetTop = Math.floor(index / SHEET_COLUMNS) * CELL_SIZE_PX;
  for (let y = 0; y < CELL_SIZE_PX; y++) {
    for (let x = 0; x < CELL_SIZE_PX; x++) {
      const colour = sheet.pixels[(sheetTop + y) * sheet.width + sheetLeft + x];
      if (colour !== 0) target.pixels[(top + y) * target.width + left + x] = colour;
    }
  }
}

/** A small made-up room using every tile, with sprites and a line of text, to judge the art in context. */
function sampleScene(tiles: Rgb332Image, sprites: Rgb332Image, font: Rgb332Image): Rgb332Image {
  const map = [
    "5555555h55i55555",
    "5111231111d11165",
    "51411111111c1175",
    "5144111b12211165",
    "5111818111111675",
    "511111119a9a9165",
    "5e1f1111g9a9a165",
    "5111j111111k1165",
    "6666666666666666",
  ];
  const ids: Record<string, number> = { a: 10, b: 11, c: 12, d: 13, e: 14, f: 15, g: 16, h: 17, i: 18, j: 19, k: 20 };
  const scene = createImage(map[0].length * 8, map.length * 8 + 16);
  map.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) blitCell(scene, tiles, ids[row[x]] ?? Number(row[x]), x * 8, y * 8);
  });
  const actors: [number, number, number][] = [
    [0, 3, 2],
    [1, 6, 3],
    [2, 12, 2],
    [3, 10, 7],
    [4, 4, 6],
    [5, 6, 6],
    [6, 8, 2],
    [7, 13, 4],
    [SPRITE_RAT, 2, 1],
    [SPRITE_BEETLE, 8, 1],
    [SPRITE_SPIDER, 11, 4],
    [SPRITE_SKELETON, 12, 7],
    [SPRITE_GUARD, 2, 7],
  ];
  for (const [sprite, x, y] of actors) blitCell(scene, sprites, sprite, x * 8, y * 8);
  // Items on the floor, and two players wearing what they found.
  const items = [
    SPRITE_KEY,
    SPRITE_DAGGER,
    SPRITE_SWORD,
    SPRITE_LEATHER,
    SPRITE_MAIL,
    SPRITE_POTION,
    SPRITE_COIN,
    SPRITE_TORCH,
  ];
  items.forEach((sprite, index) => blitCell(scene, sprites, sprite, (5 + index) * 8, 4 * 8));
  blitCell(scene, sprites, SPRITE_CRYSTAL, 12 * 8, 3 * 8);
  blitCell(scene, sprites, SPRITE_ITEM, 13 * 8, 3 * 8);
  for (const [worn, x, y] of [
    [[SPRITE_WORN_SWORD, SPRITE_WORN_MAIL], 5, 7],
    [[SPRITE_WORN_DAGGER, SPRITE_WORN_LEATHER], 7, 7],
    [[SPRITE_WORN_WEAPON, SPRITE_WORN_ARMOR], 9, 7],
  ] as const) {
    blitCell(scene, sprites, 0, x * 8, y * 8);
    for (const cell of worn) blitCell(scene, sprites, cell, x * 8, y * 8);
  }
  const text = "Cave 1: Hi! {gjpqy}";
  for (let index = 0; index < text.length; index++) {
    blitCell(scene, font, text.charCodeAt(index) - FONT_FIRST_CHAR, 2 + index * 6 - 1, map.length * 8 + 4);
  }
  return scene;
}

// ---- main ----------------------------------------------------------------

export interface Sheet {
  readonly name: string;
  readonly image: Rgb332Image;
  /** tiles and font use RLE, sprites do not, so both decoder paths see real use. */
  readonly rle: boolean;
  readonly bytes: Uint8Array;
}

/** Draws and encodes every sheet; the test compares these bytes with the committed files. */
export function makeSheets(): Sheet[] {
  const sheets: [string, Rgb332Image, boolean][] = [
    [TILES_FILE, makeTiles(), true],
    [SPRITES_FILE, makeSprites(), false],
    [FONT_FILE, makeFont(), true],
  ];
  return sheets.map(([name, image, rle]) => ({ name, image, rle, bytes: encodeTga(image, { rle, id: ID_TEXT }) }));
}

/** The tile sheet for Tiled, beside the TGA the game reads: Qt's image readers, which Tiled uses, read no TGA of this kind. */
export const TILES_PNG_FILE = TILES_FOR_TILED_FILE;

/**
 * The tile sheet as an RGBA PNG for Tiled (issue 42: the bundled map and generated levels open in Tiled
 * with their art), **one cell earlier** than the game's sheet: the game's cell 0 is empty and tile id i is
 * its cell i, while Tiled numbers a plain image tileset's tiles from the top-left — so with firstgid 1 the
 * map's GID i is this sheet's cell i − 1, the game's cell i (caves-tmj.ts cavesTileset). RGB332 colour 0
 * is transparent, as in the game; every other pixel opaque, in its RGB332 colour.
 */
export function tilesPngForTiled(tiles: Rgb332Image): Uint8Array {
  const columns = tiles.width / CELL_SIZE_PX;
  const data = new Uint8Array(tiles.width * tiles.height * 4);
  for (let y = 0; y < tiles.height; y++) {
    for (let x = 0; x < tiles.width; x++) {
      // This pixel of cell k shows the game's cell k + 1.
      const cell = Math.floor(y / CELL_SIZE_PX) * columns + Math.floor(x / CELL_SIZE_PX) + 1;
      const fromY = Math.floor(cell / columns) * CELL_SIZE_PX + (y % CELL_SIZE_PX);
      const fromX = (cell % columns) * CELL_SIZE_PX + (x % CELL_SIZE_PX);
      const colour = fromY < tiles.height ? tiles.pixels[fromY * tiles.width + fromX] : 0;
      if (colour === 0) continue;
      const rgb = rgb24FromRgb332(colour);
      data.set([rgb >> 16, (rgb >> 8) & 0xff, rgb & 0xff, 255], (y * tiles.width + x) * 4);
    }
  }
  return encodePng({ width: tiles.width, height: tiles.height, data, channels: 4, depth: 8 });
}

function main(): void {
  const args = process.argv.slice(2);
  const previewFlag = args.indexOf("--preview");
  const previewDir = previewFlag >= 0 ? args[previewFlag + 1] : undefined;
  if (previewFlag >= 0 && !previewDir) throw new Error("usage: make-art.ts [--preview DIR]");

  const sheets = makeSheets();
  for (const { name, image, rle, bytes } of sheets) {
    writeFileSync(join(ASSET_DIR, name), bytes);
    console.log(`${name}: ${image.width}x${image.height}, ${rle ? "RLE" : "raw"}, ${bytes.length} bytes`);
  }
  const png = tilesPngForTiled(sheets.find((sheet) => sheet.name === TILES_FILE)!.image);
  writeFileSync(join(ASSET_DIR, TILES_PNG_FILE), png);
  console.log(`${TILES_PNG_FILE}: the tile sheet for Tiled, ${png.length} bytes`);
  if (previewDir) {
    mkdirSync(previewDir, { recursive: true });
    for (const { name, image } of sheets) {
      writeFileSync(join(previewDir, name.replace(".tga", ".png")), toPng(image, name === FONT_FILE ? 4 : 8));
    }
    const [tiles, sprites, font] = sheets.map((sheet) => sheet.image);
    writeFileSync(join(previewDir, "scene.png"), toPng(sampleScene(tiles, sprites, font), 3));
    console.log(`previews in ${previewDir}`);
  }
}

// Run only as a script, so the test can import makeSheets without writing files.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) main();
