// Whole-chunk encode/decode (docs/protocol.md, ChunkPacket): global tile ids
// <-> local palette + 768 packed bytes, composed from the palette and 6-bit
// packing kernels so a host crosses the wasm boundary once per chunk.
import { palette_build, palette_expand } from "./palette";
import { pack6, unpack6 } from "./pack6";

/**
 * chunk_encode: CHUNK_TILES -> CHUNK_PALETTE + CHUNK_INDICES + CHUNK_PACKED.
 * Returns the palette size, or -1 (outputs unspecified) if more than 64 distinct ids.
 */
export function chunk_encode(): i32 {
  const count = palette_build();
  if (count >= 0) pack6();
  return count;
}

/**
 * chunk_decode: CHUNK_PACKED + CHUNK_PALETTE (first `count` entries) ->
 * CHUNK_INDICES + CHUNK_TILES. Returns 0, or -1 with CHUNK_TILES untouched if
 * count is not in 0..64 or any index is >= count.
 */
export function chunk_decode(count: i32): i32 {
  unpack6();
  return palette_expand(count);
}
