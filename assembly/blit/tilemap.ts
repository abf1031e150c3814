// Tile layer drawing (roadmap 09: the 31×31 tile pass with a sub-tile pixel
// offset, clipped to the viewport): one call draws a whole grid window of u16
// tile ids through TILE_LOOK into the framebuffer, opaque; draw_tilemap_over
// draws the same window again through TILE_OVER_LOOK, transparent (index 0
// keeps what is under it), after the entities: roofs and tree tops over them.
import { TILE_LOOK, TILE_OVER_LOOK } from "../layout";
import { fbBase, fbWidth } from "./target";
import { blitClipped, clipBottom, clipLeft, clipRight, clipTop, setClip } from "./clip";
import { tileAddress, useSheet } from "./sheet";
import { MODE_OPAQUE, MODE_TRANSPARENT, nonZeroMask } from "./rows";

/** Atlas tile index meaning "draw nothing" (TILE_LOOK entry or sprite tile). */
export const NO_TILE: i32 = 0xffff;

/** floor(a / b) for b > 0. */
function floorDiv(a: i64, b: i64): i64 {
  const quotient = a / b;
  return quotient * b > a ? quotient - 1 : quotient;
}

/**
 * Draws rows×cols tiles read from `tiles` (u16 tile ids, `tiles_stride` ids per
 * row). Tile (c, r) covers the tile_w×tile_h pixels at (dst_x + c*tile_w,
 * dst_y + r*tile_h); its picture is atlas tile TILE_LOOK[id] of the sheet at
 * `atlas` (atlas_cols tiles per row, rows atlas_cols*tile_w bytes apart).
 * Look-ups of 0xFFFF leave the framebuffer untouched. Clipped to
 * (clip_x, clip_y, clip_w, clip_h) ∩ framebuffer; only visible tiles are read.
 */
export function draw_tilemap(
  tiles: usize,
  tiles_stride: i32,
  cols: i32,
  rows: i32,
  dst_x: i32,
  dst_y: i32,
  atlas: usize,
  atlas_cols: i32,
  tile_w: i32,
  tile_h: i32,
  clip_x: i32,
  clip_y: i32,
  clip_w: i32,
  clip_h: i32,
): void {
  drawTiles(
    TILE_LOOK,
    false,
    tiles,
    tiles_stride,
    cols,
    rows,
    dst_x,
    dst_y,
    atlas,
    atlas_cols,
    tile_w,
    tile_h,
    clip_x,
    clip_y,
    clip_w,
    clip_h,
  );
}

/**
 * draw_tilemap's window again, each tile's picture atlas tile TILE_OVER_LOOK[id], drawn transparent:
 * pixel index 0 leaves the framebuffer as it is (the over looks of map-atlas.ts are 0 where nothing
 * is over). The over pass after the entities (docs/wasm-abi.md § Tile layer).
 */
export function draw_tilemap_over(
  tiles: usize,
  tiles_stride: i32,
  cols: i32,
  rows: i32,
  dst_x: i32,
  dst_y: i32,
  atlas: usize,
  atlas_cols: i32,
  tile_w: i32,
  tile_h: i32,
  clip_x: i32,
  clip_y: i32,
  clip_w: i32,
  clip_h: i32,
): void {
  drawTiles(
    TILE_OVER_LOOK,
    true,
    tiles,
    tiles_stride,
    cols,
    rows,
    dst_x,
    dst_y,
    atlas,
    atlas_cols,
    tile_w,
    tile_h,
    clip_x,
    clip_y,
    clip_w,
    clip_h,
  );
}

function drawTiles(
  looks: usize,
  transparent: bool,
  tiles: usize,
  tiles_stride: i32,
  cols: i32,
  rows: i32,
  dst_x: i32,
  dst_y: i32,
  atlas: usize,
  atlas_cols: i32,
  tile_w: i32,
  tile_h: i32,
  clip_x: i32,
  clip_y: i32,
  clip_w: i32,
  clip_h: i32,
): void {
  if (cols <= 0 || rows <= 0 || tile_w <= 0 || tile_h <= 0 || atlas_cols <= 0) return;
  if (!setClip(clip_x, clip_y, clip_w, clip_h)) return;
  // The visible tile window: tiles whose pixels intersect the clip.
  let firstCol = floorDiv(<i64>clipLeft - <i64>dst_x, tile_w);
  let endCol = floorDiv(<i64>clipRight - 1 - <i64>dst_x, tile_w) + 1;
  let firstRow = floorDiv(<i64>clipTop - <i64>dst_y, tile_h);
  let endRow = floorDiv(<i64>clipBottom - 1 - <i64>dst_y, tile_h) + 1;
  if (firstCol < 0) firstCol = 0;
  if (firstRow < 0) firstRow = 0;
  if (endCol > <i64>cols) endCol = cols;
  if (endRow > <i64>rows) endRow = rows;
  if (firstCol >= endCol || firstRow >= endRow) return;

  const atlasStride = atlas_cols * tile_w;
  useSheet(atlas, atlas_cols, tile_w, tile_h);
  // 8-px-wide tiles wholly inside the clip (all but the viewport's edge tiles) skip clipping.
  const narrow = tile_w == 8;
  const step = <usize>atlasStride;
  for (let row = <i32>firstRow; row < <i32>endRow; row++) {
    // In the visible window every tile position is near the clip, so i32 wrap-around cannot occur here.
    const y = dst_y + row * tile_h;
    const rowInside = y >= clipTop && y <= clipBottom - tile_h;
    let idAt = tiles + ((<usize>(row * tiles_stride + <i32>firstCol)) << 1);
    for (let col = <i32>firstCol; col < <i32>endCol; col++, idAt += 2) {
      const look = <i32>load<u16>(looks + ((<usize>load<u16>(idAt)) << 1));
      if (look == NO_TILE) continue;
      let src = tileAddress(look);
      const x = dst_x + col * tile_w;
      if (narrow && rowInside && x >= clipLeft && x <= clipRight - 8) {
        let to = fbBase + <usize>(y * fbWidth + x);
        if (transparent) {
          for (let rowsLeft = tile_h; rowsLeft > 0; rowsLeft--, src += step, to += fbWidth) {
            const pixels = load<u64>(src);
            const mask = nonZeroMask(pixels);
            if (mask != 0) store<u64>(to, (load<u64>(to) & ~mask) | pixels);
          }
        } else {
          for (let rowsLeft = tile_h; rowsLeft > 0; rowsLeft--, src += step, to += fbWidth)
            store<u64>(to, load<u64>(src));
        }
      } else {
        blitClipped(src, atlasStride, tile_w, tile_h, x, y, transparent ? MODE_TRANSPARENT : MODE_OPAQUE, 0);
      }
    }
  }
}
