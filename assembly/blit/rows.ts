// Row primitives shared by every blit kernel: one horizontal run of pixels
// from an indexed RGB332 image to the framebuffer, in one of the three blit
// modes. Eight pixels go at a time as one u64 (SWAR), so an 8-px tile, sprite
// or glyph row is one load, a few ALU ops and one store — no per-pixel branch.

/** Blit modes (docs/wasm-abi.md): copy all, skip index 0, paint non-zero as the tint. */
export const MODE_OPAQUE: i32 = 0;
export const MODE_TRANSPARENT: i32 = 1;
export const MODE_TINTED: i32 = 2;

const LOW_SEVEN_BITS: u64 = 0x7f7f7f7f7f7f7f7f;
const LANE_ONES: u64 = 0x0101010101010101;

/** 0xFF in every byte lane of `pixels` that is non-zero, 0x00 in every zero lane. */
export function nonZeroMask(pixels: u64): u64 {
  // (lane & 0x7f) + 0x7f reaches bit 7 iff the low seven bits are non-zero and never carries into the next lane.
  const high = ((pixels & LOW_SEVEN_BITS) + LOW_SEVEN_BITS) | pixels;
  return ((high >> 7) & LANE_ONES) * 0xff;
}

/** A colour byte repeated in all eight lanes of a u64. */
export function broadcastByte(color: i32): u64 {
  return <u64>(color & 0xff) * LANE_ONES;
}

/** Copies `count` bytes; the source must not overlap the destination. */
export function copyOpaqueRow(dst: usize, src: usize, count: i32): void {
  // memory.copy is a runtime call in engines; below a few words plain stores win.
  if (count >= 64) {
    memory.copy(dst, src, <usize>count);
    return;
  }
  while (count >= 8) {
    store<u64>(dst, load<u64>(src));
    dst += 8;
    src += 8;
    count -= 8;
  }
  while (count > 0) {
    store<u8>(dst, load<u8>(src));
    dst++;
    src++;
    count--;
  }
}

/** Copies the non-zero bytes of a run; zero source bytes leave the destination as it was. */
export function copyTransparentRow(dst: usize, src: usize, count: i32): void {
  while (count >= 8) {
    const pixels = load<u64>(src);
    const mask = nonZeroMask(pixels);
    if (mask != 0) store<u64>(dst, (load<u64>(dst) & ~mask) | pixels);
    dst += 8;
    src += 8;
    count -= 8;
  }
  while (count > 0) {
    const pixel = load<u8>(src);
    if (pixel != 0) store<u8>(dst, pixel);
    dst++;
    src++;
    count--;
  }
}

/** Writes `tintWord`'s byte wherever the source run is non-zero (bitmap glyphs). */
export function copyTintedRow(dst: usize, src: usize, count: i32, tintWord: u64): void {
  while (count >= 8) {
    const mask = nonZeroMask(load<u64>(src));
    if (mask != 0) store<u64>(dst, (load<u64>(dst) & ~mask) | (tintWord & mask));
    dst += 8;
    src += 8;
    count -= 8;
  }
  const tint = <u8>tintWord;
  while (count > 0) {
    if (load<u8>(src) != 0) store<u8>(dst, tint);
    dst++;
    src++;
    count--;
  }
}

/** Fills `count` bytes with the colour in every lane of `colorWord`. */
export function fillRow(dst: usize, count: i32, colorWord: u64): void {
  if (count >= 64) {
    memory.fill(dst, <u8>colorWord, <usize>count);
    return;
  }
  while (count >= 8) {
    store<u64>(dst, colorWord);
    dst += 8;
    count -= 8;
  }
  while (count > 0) {
    store<u8>(dst, <u8>colorWord);
    dst++;
    count--;
  }
}
