// Geometry of the committed image sheets (made by scripts/make-art.ts, see
// docs/art.md). Every sheet is a grid of 8×8 cells, 16 per row; a cell's index
// is its reading-order position, so cell i sits at column i % 16, row i / 16.

/** Cell edge in pixels, for tiles, sprites and glyphs alike. */
export const CELL_SIZE_PX = 8;
/** Cells per sheet row. */
export const SHEET_COLUMNS = 16;

/** File names inside ts/client/assets/. */
export const TILES_FILE = "tiles.tga";
/**
 * The tile sheet again as a PNG for Tiled, one cell earlier (scripts/make-art.ts tilesPngForTiled): the
 * tileset image of the bundled map and generated levels. The game never reads it.
 */
export const TILES_FOR_TILED_FILE = "tiles-tiled.png";
export const SPRITES_FILE = "sprites.tga";
export const FONT_FILE = "font.tga";

/** tiles.tga: cell i is map tile id i; cell 0 is transparent and unused. */
export const TILE_CELL_COUNT = 21;

/**
 * sprites.tga: cells 0..3 are the built-in type_ids, PLAYER_VARIANT_FIRST.. recoloured players, the
 * cells from SPRITE_RAT on the creatures that NPC kinds name by sprite (KIND_SPRITE_CELLS), from
 * SPRITE_KEY on the items (ITEM_SPRITE_CELLS), and from SPRITE_WORN_DAGGER on the worn overlays.
 */
export const SPRITE_PLAYER = 0;
export const SPRITE_CREATURE = 1;
export const SPRITE_CHEST = 2;
export const SPRITE_SIGN_POST = 3;
export const PLAYER_VARIANT_FIRST = 4;
export const PLAYER_VARIANT_COUNT = 4;
export const SPRITE_RAT = 8;
export const SPRITE_BEETLE = 9;
export const SPRITE_SPIDER = 10;
export const SPRITE_SKELETON = 11;
export const SPRITE_GUARD = 12;
/** Items (issue 14): on the ground, in the inventory; the catalogue names them by sprite (ITEM_SPRITE_CELLS). */
export const SPRITE_KEY = 13;
export const SPRITE_DAGGER = 14;
export const SPRITE_SWORD = 15;
export const SPRITE_LEATHER = 16;
export const SPRITE_MAIL = 17;
export const SPRITE_POTION = 18;
export const SPRITE_COIN = 19;
export const SPRITE_CRYSTAL = 20;
/** The generic item (a sack) every unknown item sprite name falls back to. */
export const SPRITE_ITEM = 21;
/**
 * Worn overlays (issue 14): drawn over a player's sprite at the same place, showing the equipped
 * weapon in its hand or the armor over its tunic (WORN_SPRITE_CELLS; a generic one per kind).
 */
export const SPRITE_WORN_DAGGER = 22;
export const SPRITE_WORN_SWORD = 23;
export const SPRITE_WORN_WEAPON = 24;
export const SPRITE_WORN_LEATHER = 25;
export const SPRITE_WORN_MAIL = 26;
export const SPRITE_WORN_ARMOR = 27;
/** The torch (issue 15): the item, and held in the hand (its light is the catalogue's, not the art's). */
export const SPRITE_TORCH = 28;
export const SPRITE_WORN_TORCH = 29;
export const SPRITE_CELL_COUNT = 30;

/**
 * The sprite names an NPC kind may give (GET /api/world `kinds[].sprite`, the contract between a
 * host's kinds file and this sheet) and their cells. "creature" names the generic one every
 * unknown name falls back to.
 */
export const KIND_SPRITE_CELLS: Readonly<Record<string, number>> = {
  creature: SPRITE_CREATURE,
  rat: SPRITE_RAT,
  beetle: SPRITE_BEETLE,
  spider: SPRITE_SPIDER,
  skeleton: SPRITE_SKELETON,
  guard: SPRITE_GUARD,
};

/**
 * The sprite names an item may give (GET /api/world `items[].sprite`, the contract between a host's
 * item catalogue and this sheet) and their cells; "item" names the generic one.
 */
export const ITEM_SPRITE_CELLS: Readonly<Record<string, number>> = {
  item: SPRITE_ITEM,
  key: SPRITE_KEY,
  dagger: SPRITE_DAGGER,
  sword: SPRITE_SWORD,
  leather: SPRITE_LEATHER,
  mail: SPRITE_MAIL,
  potion: SPRITE_POTION,
  coin: SPRITE_COIN,
  crystal: SPRITE_CRYSTAL,
  torch: SPRITE_TORCH,
};

/** Worn overlays by item sprite name; a weapon or armor whose name is not here wears the generic one. */
export const WORN_SPRITE_CELLS: Readonly<Record<string, number>> = {
  dagger: SPRITE_WORN_DAGGER,
  sword: SPRITE_WORN_SWORD,
  leather: SPRITE_WORN_LEATHER,
  mail: SPRITE_WORN_MAIL,
  torch: SPRITE_WORN_TORCH,
};

/** font.tga: the glyph of byte c is cell c - FONT_FIRST_CHAR, for FONT_FIRST_CHAR..FONT_LAST_CHAR. */
export const FONT_FIRST_CHAR = 32;
export const FONT_LAST_CHAR = 126;
/** Glyph ink stays in columns 1..5 and rows 0..7 (cap height rows 0..6, descenders on row 7). */
export const FONT_INK_LEFT_PX = 1;
export const FONT_INK_WIDTH_PX = 5;
/** Suggested advance for running text: 6 leaves one clear column between glyphs. */
export const FONT_ADVANCE_PX = 6;

/** Sheet size in pixels for a given number of cells. */
export function sheetSizePx(cellCount: number): { width: number; height: number } {
  return { width: SHEET_COLUMNS * CELL_SIZE_PX, height: Math.ceil(cellCount / SHEET_COLUMNS) * CELL_SIZE_PX };
}
