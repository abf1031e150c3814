// The minimap (issue 18 item 8; M toggles it): every chunk this page has seen,
// one pixel per tile in the tile's colour, with the player as a white dot. The
// client's chunk cache forgets chunks far behind the player, so the map keeps
// its own copy — 1024 colour bytes a chunk, at most MINIMAP_CHUNKS_MAX of them —
// taken whenever a cached chunk's version is new to it. A tile's colour is
// the commonest colour of its art (its 8×8 look in the tile sheet, RGB332),
// so water reads blue and floor reads as floor, as on the screen.
import { CHUNK_SIZE, CHUNK_TILE_COUNT } from "../../constants.js";
import { chunkX, chunkY } from "../../protocol/chunk-id.js";
import { type Rgb332Image, RGB332_TRANSPARENT, rgb24FromRgb332 } from "../assets/image.js";
import { CELL_SIZE_PX, SHEET_COLUMNS } from "../assets/sheets.js";
import type { CachedChunk } from "../core/chunk-cache.js";
import { QuestGivers } from "../core/quest-givers.js";
import { MARK_HAND_IN } from "../core/quests.js";
import { KEY_BINDINGS } from "../input.js";

/** Chunks remembered: a 64 × 64-chunk world (2048 tiles square) in 4 MiB. */
export const MINIMAP_CHUNKS_MAX = 4096;
/** Tiles across the shown window, centred on the player's chunk. */
export const MINIMAP_TILES = 6 * CHUNK_SIZE;
const REDRAW_MS = 250;

/** Tile id → its colour (RGB332; 0 for a tile with no art), from each tile's look in `sheet`. */
export function tileColours(tiles: Iterable<{ id: number; look: number }>, sheet: Rgb332Image): Uint8Array {
  const colours = new Uint8Array(0x10000);
  const cells = (sheet.height / CELL_SIZE_PX) * SHEET_COLUMNS;
  const counts = new Uint16Array(256);
  for (const { id, look } of tiles) {
    if (!Number.isInteger(id) || id < 0 || id > 0xffff || !(look > 0 && look < cells)) continue;
    counts.fill(0);
    const left = (look % SHEET_COLUMNS) * CELL_SIZE_PX;
    const top = Math.floor(look / SHEET_COLUMNS) * CELL_SIZE_PX;
    let best = RGB332_TRANSPARENT;
    for (let y = 0; y < CELL_SIZE_PX; y++) {
      for (let x = 0; x < CELL_SIZE_PX; x++) {
        const colour = sheet.pixels[(top + y) * sheet.width + left + x];
        if (colour === RGB332_TRANSPARENT) continue;
        counts[colour]++;
        if (best === RGB332_TRANSPARENT || counts[colour] > counts[best]) best = colour;
      }
    }
    colours[id] = best;
  }
  return colours;
}

/** The explored chunks' colours, DOM-free. */
export class ExploredChunks {
  private readonly colours = new Map<number, { version: number; pixels: Uint8Array }>();

  constructor(private readonly tileColour: Uint8Array) {}

  get size(): number {
    return this.colours.size;
  }

  /** Takes every chunk whose version it has not coloured yet; returns whether anything changed. */
  observe(chunks: Iterable<CachedChunk>): boolean {
    let changed = false;
    for (const chunk of chunks) {
      const known = this.colours.get(chunk.id);
      if (known?.version === chunk.version) continue;
      if (!known && this.colours.size >= MINIMAP_CHUNKS_MAX) {
        // Forget the chunk seen longest ago (Map order is insertion order).
        this.colours.delete(this.colours.keys().next().value as number);
      }
      const pixels = known?.pixels ?? new Uint8Array(CHUNK_TILE_COUNT);
      for (let index = 0; index < CHUNK_TILE_COUNT; index++) pixels[index] = this.tileColour[chunk.tiles[index]];
      this.colours.delete(chunk.id);
      this.colours.set(chunk.id, { version: chunk.version, pixels });
      changed = true;
    }
    return changed;
  }

  /**
   * Paints the window of `size` tiles whose top-left is world tile (left, top) into `rgba` (size × size × 4):
   * explored tiles in their colour, the rest black.
   */
  paint(rgba: Uint8ClampedArray, left: number, top: number, size: number): void {
    rgba.fill(0);
    for (let index = 3; index < rgba.length; index += 4) rgba[index] = 255;
    for (const [id, entry] of this.colours) {
      const originX = chunkX(id) * CHUNK_SIZE - left;
      const originY = chunkY(id) * CHUNK_SIZE - top;
      if (originX >= size || originY >= size || originX + CHUNK_SIZE <= 0 || originY + CHUNK_SIZE <= 0) continue;
      for (let row = 0; row < CHUNK_SIZE; row++) {
        const y = originY + row;
        if (y < 0 || y >= size) continue;
        for (let column = 0; column < CHUNK_SIZE; column++) {
          const x = originX + column;
          if (x < 0 || x >= size) continue;
          const colour = entry.pixels[row * CHUNK_SIZE + column];
          if (colour === 0) continue;
          const rgb = rgb24FromRgb332(colour);
          const at = (y * size + x) * 4;
          rgba[at] = rgb >> 16;
          rgba[at + 1] = (rgb >> 8) & 0xff;
          rgba[at + 2] = rgb & 0xff;
        }
      }
    }
  }
}

/** What the minimap reads of the game client. */
export interface MinimapSource {
  readonly chunks: { values(): Iterable<CachedChunk> };
  readonly predicted: { x: number; y: number } | null;
  /** The other members of the player's party, drawn wherever they are (issue 39). */
  readonly party?: {
    readonly revision: number;
    readonly members: readonly { x: number; y: number; away: boolean }[];
  };
  /** The entities in view and the quest marks of their kinds: givers are remembered and marked (issue 38). */
  readonly entities?: { values(): Iterable<{ id: number; typeId: number; x: number; y: number }> };
  readonly quests?: { markOf(typeId: number): number };
}

/** The minimap on the page: a canvas over the view's top-right corner, hidden until M (or its button). */
export class Minimap {
  private readonly explored: ExploredChunks;
  private readonly context: CanvasRenderingContext2D;
  private readonly image: ImageData;
  private lastDrawMs = -Infinity;
  private dirty = true;
  private lastCentre = "";
  private lastPartyRevision = -1;
  private readonly givers = new QuestGivers();
  private lastGiverMarks = "";

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly source: MinimapSource,
    tileColour: Uint8Array,
  ) {
    this.explored = new ExploredChunks(tileColour);
    canvas.width = MINIMAP_TILES;
    canvas.height = MINIMAP_TILES;
    this.context = canvas.getContext("2d")!;
    this.image = this.context.createImageData(MINIMAP_TILES, MINIMAP_TILES);
    const view = canvas.ownerDocument.defaultView!;
    view.addEventListener("keydown", (event) => {
      const active = canvas.ownerDocument.activeElement;
      if (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) return;
      if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      const binding = KEY_BINDINGS[event.code];
      if (binding?.kind === "command" && binding.command === "minimap") this.toggle();
    });
    const tick = () => {
      this.update(performance.now());
      view.requestAnimationFrame(tick);
    };
    view.requestAnimationFrame(tick);
  }

  get shown(): boolean {
    return !this.canvas.hidden;
  }

  toggle(): void {
    this.canvas.hidden = !this.canvas.hidden;
    this.dirty = true;
    this.lastDrawMs = -Infinity;
  }

  /** Remembers new chunks always (so the map is whole when opened); draws a few times a second while shown. */
  update(nowMs: number): void {
    if (this.explored.observe(this.source.chunks.values())) {
      this.dirty = true;
      this.canvas.dataset.chunks = String(this.explored.size);
    }
    if (this.canvas.hidden || nowMs - this.lastDrawMs < REDRAW_MS) return;
    const at = this.source.predicted;
    if (!at) return;
    const half = MINIMAP_TILES / 2;
    const centreX = Math.floor(at.x / CHUNK_SIZE) * CHUNK_SIZE + CHUNK_SIZE / 2;
    const centreY = Math.floor(at.y / CHUNK_SIZE) * CHUNK_SIZE + CHUNK_SIZE / 2;
    const left = centreX - half;
    const top = centreY - half;
    const centre = `${at.x},${at.y}`;
    const party = this.source.party;
    if (party !== undefined && party.revision !== this.lastPartyRevision) {
      this.lastPartyRevision = party.revision;
      this.dirty = true;
    }
    const quests = this.source.quests;
    const markOf = (typeId: number) => quests?.markOf(typeId) ?? 0;
    if (this.source.entities !== undefined) this.givers.observe(this.source.entities.values(), markOf);
    const giverMarks = this.givers.marks(markOf);
    const giverKey = giverMarks.map((giver) => `${giver.x},${giver.y},${giver.mark}`).join("|");
    if (giverKey !== this.lastGiverMarks) {
      this.lastGiverMarks = giverKey;
      this.dirty = true;
    }
    if (!this.dirty && centre === this.lastCentre) return;
    this.lastDrawMs = nowMs;
    this.dirty = false;
    this.lastCentre = centre;
    this.explored.paint(this.image.data, left, top, MINIMAP_TILES);
    this.context.putImageData(this.image, 0, 0);
    // The party's other members: green dots (grey while away), under the player's.
    for (const mate of party?.members ?? []) {
      const x = mate.x - left;
      const y = mate.y - top;
      if (x < 1 || y < 1 || x >= MINIMAP_TILES - 1 || y >= MINIMAP_TILES - 1) continue;
      this.context.fillStyle = "#000";
      this.context.fillRect(x - 2, y - 2, 5, 5);
      this.context.fillStyle = mate.away ? "#888" : "#4f4";
      this.context.fillRect(x - 1, y - 1, 3, 3);
    }
    // Quest givers as last seen: a yellow mark for a quest to take, a cyan one for a quest to hand in
    // (the colours of the "!" and "?" over their heads differ only by sign; here the colour says it).
    const drawn: string[] = [];
    for (const giver of giverMarks) {
      const x = giver.x - left;
      const y = giver.y - top;
      if (x < 1 || y < 1 || x >= MINIMAP_TILES - 1 || y >= MINIMAP_TILES - 1) continue;
      this.context.fillStyle = "#000";
      this.context.fillRect(x - 2, y - 3, 5, 7);
      this.context.fillStyle = giver.mark === MARK_HAND_IN ? "#4ff" : "#ff4";
      this.context.fillRect(x - 1, y - 2, 3, 5);
      drawn.push(`${x},${y},${giver.mark === MARK_HAND_IN ? "?" : "!"}`);
    }
    this.canvas.dataset.questMarks = drawn.join("|");
    // The player: a white dot with a dark ring, 3 px, over its tile.
    this.context.fillStyle = "#000";
    this.context.fillRect(at.x - left - 2, at.y - top - 2, 5, 5);
    this.context.fillStyle = "#fff";
    this.context.fillRect(at.x - left - 1, at.y - top - 1, 3, 3);
    this.canvas.dataset.player = `${at.x - left},${at.y - top}`;
  }
}
