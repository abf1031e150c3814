// The wasm grid as a window of (2r+1)×(2r+1) chunks around the player's chunk,
// filled from the chunk cache. Prediction replay, send-time validation and A*
// all read this grid (THE movement rule lives only in wasm), and the renderer
// draws tiles from it. Cells of chunks not held stay TILE_UNKNOWN, which the
// rule treats as blocked: the client never predicts or plans into the unknown.
import { CHUNK_SIZE } from "../../constants.js";
import { chunkX, chunkY } from "../../protocol/chunk-id.js";
import type { WasmSim } from "../../wasm/sim.js";
import type { CachedChunk, ChunkCache } from "./chunk-cache.js";

export class GridWindow {
  private centreX = 0;
  private centreY = 0;
  private centred = false;
  /** How often the grid was re-initialised around a new centre. */
  recentres = 0;

  constructor(
    private readonly sim: WasmSim,
    private readonly cache: ChunkCache,
    /** Chunks on each side of the centre chunk: 2 gives a 5×5-chunk (160×160-tile) grid. */
    readonly radius = 2,
  ) {}

  get hasCentre(): boolean {
    return this.centred;
  }

  /** Whether chunk (cx, cy) lies inside the window. */
  holdsChunk(cx: number, cy: number): boolean {
    return this.centred && Math.abs(cx - this.centreX) <= this.radius && Math.abs(cy - this.centreY) <= this.radius;
  }

  /** Moves the window to centre chunk (cx, cy), re-putting every cached chunk inside it; no-op if unchanged. */
  recentre(cx: number, cy: number): void {
    if (this.centred && cx === this.centreX && cy === this.centreY) return;
    const edge = (2 * this.radius + 1) * CHUNK_SIZE;
    if (!this.sim.initGrid(edge, edge, (cx - this.radius) * CHUNK_SIZE, (cy - this.radius) * CHUNK_SIZE)) {
      throw new Error(`the wasm grid cannot hold ${edge}×${edge} tiles`);
    }
    this.centreX = cx;
    this.centreY = cy;
    this.centred = true;
    this.recentres++;
    for (const chunk of this.cache.values()) this.put(chunk);
  }

  /** Copies a (newly stored) chunk into the grid if it lies inside the window. */
  put(chunk: CachedChunk): void {
    const cx = chunkX(chunk.id);
    const cy = chunkY(chunk.id);
    if (this.holdsChunk(cx, cy)) this.sim.putChunk(cx, cy, chunk.tiles);
  }

  reset(): void {
    this.centred = false;
  }
}
