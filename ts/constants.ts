// Sizes and timing shared by every layer. The layout constants below are also
// compiled into the wasm module (assembly/layout.ts); the loader checks at
// instantiation that both agree, so a mismatch fails loudly instead of drifting.

/** Chunk edge in tiles. */
export const CHUNK_SIZE = 32;
/** Tiles per chunk (32 × 32). */
export const CHUNK_TILE_COUNT = 1024;
/** Packed 6-bit tile bytes per chunk (1024 × 6 / 8). */
export const CHUNK_PACKED_BYTES = 768;
/** Maximum entries in a chunk's local palette. */
export const PALETTE_MAX = 64;
/** Most entries in one ChunkWidePacket palette: every cell of a chunk distinct. */
export const WIDE_PALETTE_MAX = 1024;
/** Most bit-packed index bytes in one ChunkWidePacket: 32 rows × 32 cells × 10 bits / 8. */
export const WIDE_PACKED_MAX_BYTES = 1280;
/** Framebuffer size in pixels (RGB332, one byte per pixel): the default, for 8 px tiles. */
export const FB_WIDTH = 320;
export const FB_HEIGHT = 240;
/** The largest framebuffer (fb_resize): a 30 × 30 view of 32 px tiles and the 80 px panel. */
export const FB_MAX_WIDTH = 1040;
export const FB_MAX_HEIGHT = 960;
/** Tile id for "not known to this host"; always blocked. */
export const TILE_UNKNOWN = 0xffff;
/** Tile id of the invisible solid border around a map; always blocked. */
export const TILE_BORDER = 0xfffe;
/** Bits of the per-tile-id flags table. */
export const TILE_FLAG_COLLIDES = 1;
export const TILE_FLAG_OPAQUE = 2;

/** Server base tick rate. */
export const TICK_HZ = 24;
/** Movement resolves every 4th tick (6 Hz); an action window is 4 ticks. */
export const TICKS_PER_MOVE = 4;
/** Each client gets State + Entity packets every 2nd tick (12 Hz). */
export const BROADCAST_EVERY_TICKS = 2;
/**
 * A delta session (docs/protocol.md §§ 8.4, 8.5) whose view has not changed gets a StateDelta only every
 * this many ticks (a quarter of the broadcasts: 3 Hz), and at the full rate again the moment anything in
 * view or the manifest changes, or it schedules a step. Whatever the server holds back, two States it
 * sends are never further apart than this: the client counts a wider gap as States lost (core/stats.ts).
 */
export const IDLE_STATE_EVERY_TICKS = 8;
/** Windows beyond the current one plus this many are dropped. */
export const ACTION_WINDOW_HORIZON = 3;
/** Viewport edge in tiles: entities within this square around the player are sent. */
export const VIEW_TILES = 30;
