// Map art into the client's RGB332 framebuffer format with ordered (4×4 Bayer)
// dithering: each channel is placed between its two nearest RGB332 levels (the
// ones the client's lut_init expands to: r, g = k·255/7, b = k·255/3) and
// rounded up where its fraction beats the Bayer threshold of the pixel's
// position. Why ordered and not error diffusion: a tile is quantised alone, and
// Bayer thresholds depend only on the pixel's position, so tiles of any size
// that is a multiple of 4 meet without seams and a tile looks the same wherever
// it is drawn; error diffusion would crawl across tile edges. Why not plain
// truncation (what the client's own 8 px art uses): it turns the soft gradients
// of real tilesets (grass, water) into flat bands (docs/art.md § Map art).

/** The 4×4 Bayer matrix, thresholds (m + 0.5) / 16. */
const BAYER_4 = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5];

/** RGB332 level k of a channel with `levels` levels, as the client expands it (integer division). */
export function levelValue(k: number, levels: number): number {
  return Math.floor((k * 255) / (levels - 1));
}

function ditherChannel(value: number, levels: number, threshold: number): number {
  const top = levels - 1;
  // The two expanded levels around the value (levelValue(low) <= value <= levelValue(low + 1)), and how far up.
  const low = Math.floor((value * top) / 255);
  if (low >= top) return top;
  const lowValue = levelValue(low, levels);
  const fraction = (value - lowValue) / (levelValue(low + 1, levels) - lowValue);
  return fraction > threshold ? low + 1 : low;
}

/** One opaque colour at pixel (x, y) as an RGB332 byte, dithered by position. */
export function ditherRgb332(red: number, green: number, blue: number, x: number, y: number): number {
  const threshold = (BAYER_4[(y & 3) * 4 + (x & 3)] + 0.5) / 16;
  return (
    (ditherChannel(red, 8, threshold) << 5) |
    (ditherChannel(green, 8, threshold) << 2) |
    ditherChannel(blue, 4, threshold)
  );
}

/** The nearest RGB332 colour without dithering (the "before" of docs/art.md). */
export function nearestRgb332(red: number, green: number, blue: number): number {
  const nearest = (value: number, levels: number): number => Math.round((value * (levels - 1)) / 255);
  return (nearest(red, 8) << 5) | (nearest(green, 8) << 2) | nearest(blue, 4);
}

/** An RGB332 byte as the client shows it (lut_init's expansion): [r, g, b]. */
export function expandRgb332(colour: number): [number, number, number] {
  return [levelValue((colour >> 5) & 7, 8), levelValue((colour >> 2) & 7, 8), levelValue(colour & 3, 4)];
}
