// Batched sprite drawing (roadmap: entity sprites by type_id, index 0
// transparent; glyph-style tinting): one call draws the first `count` entries
// of the SPRITES region in order.
//
// SPRITES entry, 8 bytes, little-endian:
//   +0 i16 x, +2 i16 y      framebuffer position of the sprite's top-left pixel
//   +4 u16 tile             atlas tile index (0xFFFF: skip the entry)
//   +6 u8  mode             0 opaque, 1 index 0 transparent, 2 tinted; others skip
//   +7 u8  tint             colour for mode 2
import { SPRITES, SPRITES_MAX } from "../layout";
import { blitClipped, blitInside8, insideClip, setClip } from "./clip";
import { tileAddress, useSheet } from "./sheet";
import { NO_TILE } from "./tilemap";

/** Byte size of one SPRITES entry. */
const SPRITE_BYTES: usize = 8;

/**
 * Draws SPRITES[0..count) in order (later entries over earlier ones), each a
 * tile_w×tile_h tile of the sheet at `atlas` (atlas_cols tiles per row),
 * clipped to (clip_x, clip_y, clip_w, clip_h) ∩ framebuffer. count is clamped
 * to [0, SPRITES_MAX].
 */
export function draw_sprites(
  count: i32,
  atlas: usize,
  atlas_cols: i32,
  tile_w: i32,
  tile_h: i32,
  clip_x: i32,
  clip_y: i32,
  clip_w: i32,
  clip_h: i32,
): void {
  if (count <= 0 || tile_w <= 0 || tile_h <= 0 || atlas_cols <= 0) return;
  if (!setClip(clip_x, clip_y, clip_w, clip_h)) return;
  if (count > SPRITES_MAX) count = SPRITES_MAX;
  const atlasStride = atlas_cols * tile_w;
  useSheet(atlas, atlas_cols, tile_w, tile_h);
  let entry = SPRITES;
  for (let i = 0; i < count; i++, entry += SPRITE_BYTES) {
    const tile = <i32>load<u16>(entry, 4);
    if (tile == NO_TILE) continue;
    const src = tileAddress(tile);
    const x = <i32>load<i16>(entry);
    const y = <i32>load<i16>(entry, 2);
    const mode = <i32>load<u8>(entry, 6);
    const tint = <i32>load<u8>(entry, 7);
    if (tile_w == 8 && insideClip(x, y, 8, tile_h)) blitInside8(src, atlasStride, tile_h, x, y, mode, tint);
    else blitClipped(src, atlasStride, tile_w, tile_h, x, y, mode, tint);
  }
}
