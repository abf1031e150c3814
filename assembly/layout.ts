// Linear-memory layout of the core module: the one place where region offsets
// and sizes are declared. Every region is static; hosts read the offsets from
// the exported globals (see docs/wasm-abi.md) instead of hard-coding them.
//
// Low memory [0, FIXED_END) holds the fixed regions below; the compiler's own
// static data is placed after it (asc --memoryBase), and the grid region (whose
// size depends on the grid the host asks for) starts at the first 64 KiB page
// boundary after __heap_base. The module never allocates: the runtime is the
// stub runtime, and no kernel calls `new`.

/** Chunk edge in tiles (protocol: 32×32 tile chunks). */
export const CHUNK_SIZE: i32 = 32;
/** Tiles per chunk. */
export const CHUNK_TILE_COUNT: i32 = 1024;
/** Packed 6-bit tile bytes per chunk: 1024 × 6 / 8. */
export const CHUNK_PACKED_BYTES: i32 = 768;
/** Maximum local palette entries per chunk. */
export const PALETTE_MAX: i32 = 64;
/** Most palette entries of one wide chunk part (ChunkWidePacket): all 1024 cells distinct. */
export const WIDE_PALETTE_MAX: i32 = 1024;
/** Most bit-packed index bytes of one wide part: 1024 cells × 10 bits / 8. */
export const WIDE_PACKED_MAX_BYTES: i32 = 1280;

/** Framebuffer width and height in pixels (one RGB332 byte per pixel). */
export const FB_WIDTH: i32 = 320;
export const FB_HEIGHT: i32 = 240;

/** Tile id reserved for "not known to this host" (not in any received chunk). Always blocked. */
export const TILE_UNKNOWN: i32 = 0xffff;
/** Tile id reserved for the invisible solid border around a map. Always blocked. */
export const TILE_BORDER: i32 = 0xfffe;

/** TILE_FLAGS bits. */
export const TILE_FLAG_COLLIDES: u8 = 1;
export const TILE_FLAG_OPAQUE: u8 = 2;

// ---- fixed regions (byte offsets, 16-byte aligned) -------------------------

/** Multi-value results of kernels (i32 slots). 64 bytes. */
export const RESULT: usize = 0x0400;
/** 1024 global tile ids, u16, row-major (index = y * 32 + x). 2048 bytes. */
export const CHUNK_TILES: usize = 0x0440;
/** 1024 palette indices, u8 (0..63), row-major. 1024 bytes + 16 bytes slack for SIMD. */
export const CHUNK_INDICES: usize = 0x0c40;
/** Local palette: up to 64 global tile ids, u16. 128 bytes. */
export const CHUNK_PALETTE: usize = 0x1050;
/** Packed 6-bit indices: 256 groups of 3 bytes. 768 bytes + 16 bytes slack for SIMD. */
export const CHUNK_PACKED: usize = 0x10d0;
/** Pending prediction steps: PENDING_MAX entries of 8 bytes (u32 window, u8 action, 3 pad). */
export const PENDING: usize = 0x1400;
export const PENDING_MAX: i32 = 256;
/** A* output: one action code (u8, 1..8) per step, first step first. */
export const PATH_OUT: usize = 0x1c00;
export const PATH_MAX: i32 = 4096;
/** RGB332 → RGBA8888 lookup table: 256 × u32 (little-endian R,G,B,A bytes). */
export const RGB332_LUT: usize = 0x2c00;
/** Wide chunk part palette: up to 1024 global tile ids, u16 (in the former MOVES gap). 2048 bytes. */
export const WIDE_PALETTE: usize = 0x3000;
/** Wide chunk part indices, bit-packed LSB first (1..10 bits each). 1280 bytes. */
export const WIDE_PACKED: usize = 0x3800;
/** General byte buffer for host I/O (datagrams, FNV-1a input). 64 KiB. */
export const IO: usize = 0x4000;
export const IO_BYTES: i32 = 0x10000;
/** Per-tile-id flags, 65536 × u8 (TILE_FLAG_* bits); filled by the host from tile data. */
export const TILE_FLAGS: usize = 0x14000;
/** 320×240 RGB332 framebuffer, one byte per pixel, row-major. */
export const FRAMEBUFFER: usize = 0x24000;
/** 320×240 RGBA8888 output for a canvas ImageData. */
export const RGBA: usize = 0x36c00;
/** Image atlas for the blitter (tilesets, sprites, font), indexed RGB332 bytes. 512 KiB. */
export const ATLAS: usize = 0x82000;
export const ATLAS_BYTES: i32 = 0x80000;
/** Tile id → atlas tile index (u16, 0xffff = draw nothing), 65536 entries, for tilemap drawing. */
export const TILE_LOOK: usize = 0x102000;
/** Sprite list for batched drawing: SPRITES_MAX entries of 8 bytes (layout in docs/wasm-abi.md). */
export const SPRITES: usize = 0x122000;
export const SPRITES_MAX: i32 = 1024;
/**
 * The moves of one window or one entity tick for apply_moves: MOVES_MAX rows of
 * 16 bytes (i32 entity, i32 x, i32 y, u8 action, u8 moved, 2 pad; sim/moves.ts).
 * 4096 rows, so a tick's moves — every player's and every awake NPC's — cross
 * the boundary in one call. 64 KiB. (0x3000..0x4000, where 256 rows used to be, now holds WIDE_PALETTE and WIDE_PACKED.)
 */
export const MOVES: usize = 0x124000;
export const MOVES_MAX: i32 = 4096;
/**
 * Wide codec scratch: 1 + palette index (u16) of each of the 65536 tile ids
 * while one wide kernel runs; all zero between calls. 128 KiB.
 */
export const WIDE_SLOTS: usize = 0x134000;
/**
 * Light (issue 15): LIGHT_LEVELS darkening tables of 256 bytes, table L mapping an RGB332 colour
 * to itself under light level L (LIGHT_LEVELS − 1 = full light). Filled by the host. 4 KiB.
 */
export const LIGHT_TABLES: usize = 0x154000;
export const LIGHT_LEVELS: i32 = 16;
/** The light level of each tile of the view: LIGHT_MAP_MAX u8 levels, rows of the width light_apply is given. 4 KiB. */
export const LIGHT_MAP: usize = 0x155000;
export const LIGHT_MAP_MAX: i32 = 4096;
/** A LIGHT_MAP byte with this bit is baked (light_bake): its pixels are darkened in the framebuffer, fb_to_rgba_lit converts them unlit. */
export const LIGHT_BAKED: i32 = 0x80;
/**
 * A host's own map art (issue 16): the map atlas the server builds from the map's tilesets
 * (ts/server/map/map-atlas.ts), RGB332 tiles of the map's tile size, drawn by draw_tilemap like
 * ATLAS images. 16 MiB, appended after the earlier regions so none of them moved.
 */
export const MAP_ATLAS: usize = 0x156000;
export const MAP_ATLAS_BYTES: i32 = 0xfe0000;
/**
 * The over looks (issue 16, docs/wasm-abi.md § Tile layer): 65536 × u16, tile id → atlas tile of what the
 * id draws over the entities (0xFFFF: nothing), read by draw_tilemap_over. Carved from the last 128 KiB of
 * the map atlas's 16 MiB (MAP_ATLAS_BYTES shrank by as much), so no region moved and FIXED_END stays.
 */
export const TILE_OVER_LOOK: usize = 0x1136000;
/**
 * Light sources (issue 15, docs/wasm-abi.md § Light): each tile id's light radius in tiles (u8, 0 = gives no
 * light), from the tile data's `light`; filled by the host. 64 KiB, appended after MAP_ATLAS.
 */
export const TILE_LIGHT: usize = 0x1156000;
/** Light sources the host adds (lit entities) for light_build: LIGHT_SOURCES_MAX entries of 8 bytes (i16 x, i16 y, u8 radius, 3 pad). */
export const LIGHT_SOURCES: usize = 0x1166000;
export const LIGHT_SOURCES_MAX: i32 = 256;
/** light_build's scratch: one level per world tile of the view and its margin. 4 KiB. */
export const LIGHT_WORK: usize = 0x1166800;
export const LIGHT_WORK_MAX: i32 = 4096;
/** Largest light radius in tiles (TILE_LIGHT and LIGHT_SOURCES entries are clamped to it). */
export const LIGHT_RADIUS_MAX: i32 = 8;
/**
 * The largest framebuffer fb_resize accepts: a 30 × 30 tile view of 32 px tiles (960 × 960) and the
 * 80 px side panel (issue 16). Framebuffers up to FB_WIDTH × FB_HEIGHT stay in FRAMEBUFFER and RGBA, so
 * the 8 px default is drawn where it always was; larger ones use FRAMEBUFFER_LARGE and RGBA_LARGE,
 * appended here so no earlier region moved.
 */
export const FB_MAX_WIDTH: i32 = 1040;
export const FB_MAX_HEIGHT: i32 = 960;
/** A framebuffer larger than 320×240, one byte per pixel, rows fb_resize's width apart. 975 KiB. */
export const FRAMEBUFFER_LARGE: usize = 0x1167800;
/** Its RGBA8888 output. 3.8 MiB. */
export const RGBA_LARGE: usize = 0x125b400;
/** End of the fixed regions; asc's --memoryBase must equal this. */
export const FIXED_END: usize = 0x162a400;
