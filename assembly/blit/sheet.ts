// Addressing tiles in an image sheet: tile i sits at column i % cols, row
// i / cols of a sheet whose rows are cols * tile_w bytes apart. Sheets are
// usually 2^k tiles wide; then the two integer divisions per tile (the largest
// per-tile cost of a tile layer) become a shift and a mask.

/** A sheet's geometry, set once per kernel call by useSheet. */
let sheetBase: usize = 0;
let sheetCols: i32 = 1;
let sheetColShift: i32 = -1;
let sheetTileW: i32 = 0;
let sheetTileRowBytes: i32 = 0;

/** Makes the sheet at `base` (cols tiles per row, tiles tile_w × tile_h) the one tileAddress reads. */
export function useSheet(base: usize, cols: i32, tileW: i32, tileH: i32): void {
  sheetBase = base;
  sheetCols = cols;
  sheetColShift = (cols & (cols - 1)) == 0 ? ctz(cols) : -1;
  sheetTileW = tileW;
  sheetTileRowBytes = cols * tileW * tileH;
}

/** Address of the top-left pixel of tile `index` of the current sheet. */
export function tileAddress(index: i32): usize {
  let row: i32;
  let col: i32;
  if (sheetColShift >= 0) {
    row = index >> sheetColShift;
    col = index & (sheetCols - 1);
  } else {
    row = index / sheetCols;
    col = index % sheetCols;
  }
  return sheetBase + <usize>(row * sheetTileRowBytes) + <usize>(col * sheetTileW);
}
