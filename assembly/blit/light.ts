// The lighting pass (issue 15, docs/wasm-abi.md § Light): darkens a rectangle of
// the framebuffer by a light level per tile. LIGHT_MAP holds one level per tile
// of the view (rows of `mapWidth`), LIGHT_TABLES one 256-byte darkening table per
// level; each pixel becomes TABLE[level][pixel]. One call per frame, no per-pixel
// work on the host: the host writes the levels (ambient light, light sources) and,
// once, the tables.
import { FB_HEIGHT, FB_WIDTH, FRAMEBUFFER, LIGHT_LEVELS, LIGHT_MAP, LIGHT_MAP_MAX, LIGHT_TABLES } from "../layout";

const TILE_SHIFT: i32 = 3;

/**
 * Darkens [x, x + w) × [y, y + h) (clipped to the framebuffer). The pixel at (px, py) lies in tile
 * ((px − originX) >> 3, (py − originY) >> 3) of the light map — tiles are 8 px, originX/Y is where
 * light-map tile (0, 0) starts on screen (it may be negative: the first tile partly off-screen).
 * Tiles outside [0, mapWidth) × [0, mapHeight) take the level of the nearest edge tile; a map
 * larger than LIGHT_MAP_MAX does nothing. Levels are taken modulo LIGHT_LEVELS.
 */
export function light_apply(
  x: i32,
  y: i32,
  w: i32,
  h: i32,
  originX: i32,
  originY: i32,
  mapWidth: i32,
  mapHeight: i32,
): void {
  if (mapWidth <= 0 || mapHeight <= 0 || <i64>mapWidth * <i64>mapHeight > <i64>LIGHT_MAP_MAX) return;
  let left = <i64>x;
  let top = <i64>y;
  let right = left + <i64>w;
  let bottom = top + <i64>h;
  if (left < 0) left = 0;
  if (top < 0) top = 0;
  if (right > <i64>FB_WIDTH) right = FB_WIDTH;
  if (bottom > <i64>FB_HEIGHT) bottom = FB_HEIGHT;
  if (left >= right || top >= bottom) return;
  const levelMask = LIGHT_LEVELS - 1;
  for (let py = <i32>top; py < <i32>bottom; py++) {
    let ty = (py - originY) >> TILE_SHIFT;
    if (ty < 0) ty = 0;
    if (ty >= mapHeight) ty = mapHeight - 1;
    const mapRow = LIGHT_MAP + <usize>(ty * mapWidth);
    const row = FRAMEBUFFER + <usize>(py * FB_WIDTH);
    let px = <i32>left;
    const end = <i32>right;
    while (px < end) {
      let tx = (px - originX) >> TILE_SHIFT;
      // The run of pixels sharing this tile: to the tile's right edge, or the rectangle's.
      let runEnd = ((tx + 1) << TILE_SHIFT) + originX;
      if (tx < 0) {
        tx = 0;
        runEnd = originX + (1 << TILE_SHIFT);
      } else if (tx >= mapWidth) {
        tx = mapWidth - 1;
        runEnd = end;
      }
      if (runEnd > end || runEnd <= px) runEnd = end;
      const table = LIGHT_TABLES + ((<usize>((<i32>load<u8>(mapRow + <usize>tx)) & levelMask)) << 8);
      for (; px < runEnd; px++) {
        const at = row + <usize>px;
        store<u8>(at, load<u8>(table + <usize>load<u8>(at)));
      }
    }
  }
}
