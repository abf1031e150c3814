// The map's own art for the client: every world id the map draws becomes one
// atlas tile, its stack (tile-stacks.ts) composited here in full colour —
// layers bottom to top, flips, pieces of large tiles, alpha over — and only
// then dithered to RGB332 (rgb332-dither.ts). The client draws one opaque tile
// per cell through TILE_LOOK, as for its own art, so layers and flips cost it
// nothing per frame. Served by the HTTP API under a content hash
// (docs/art.md § Map art, docs/server.md).
import { createHash } from "node:crypto";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { MAP_ATLAS_BYTES, MAP_ATLAS_COLUMNS } from "../../blit-layout.js";
import { FREE_OBJECT_GID_BASE, GID_TILE_MASK, isFreeObjectGid } from "./gid.js";
import { ditherRgb332 } from "./rgb332-dither.js";
import { stackTimeline } from "./stack-animation.js";
import {
  GID_FLIP_DIAGONAL,
  GID_FLIP_HORIZONTAL,
  GID_FLIP_VERTICAL,
  type Footprints,
  NO_TINT,
  OPAQUE,
  plainEntry,
  STACK_ENTRY_LENGTH,
} from "./tile-stacks.js";
import type { KindImage } from "../content/npc-kinds.js";
import type { TileData } from "./tile-data.js";
import { type TilePicture, TilesetImages } from "./tileset-images.js";
import type { Tileset } from "./tileset.js";
import type { FreeObject } from "./tile-objects.js";

/** The client's own tile sheet: a map whose tilesets show only it (maps/caves.tmj) keeps the client's built-in art. */
export const BUILT_IN_TILE_SHEET = fileURLToPath(new URL("../../client/assets/tiles.tga", import.meta.url));

/** Smallest and largest map tile edge the atlas is built for. */
export const MAP_TILE_MIN_PX = 4;
export const MAP_TILE_MAX_PX = 64;

export interface MapArt {
  tileWidthPx: number;
  tileHeightPx: number;
  /** Atlas tiles per row (rows are columns × tileWidthPx bytes). */
  columns: number;
  /** Atlas tiles, cell 0 unused (a look of 0 draws nothing, as in the client's sheets). */
  tileCount: number;
  /** RGB332, row-major, columns × tileWidthPx wide. */
  pixels: Uint8Array;
  /** Hex SHA-256 prefix of `pixels` and the geometry: the atlas's URL names it, so it can be cached for ever. */
  hash: string;
  /** What could not be drawn (missing or unreadable images, an atlas too large): reported at start. */
  problems: string[];
  /** World id → its atlas tile, for every id the map draws; any other id draws nothing (NO_TILE). */
  looks: Map<number, number>;
  /**
   * Animated world ids (stack-animation.ts) → their timeline: atlas tile and duration per segment, from
   * time 0, looping. The id's `looks` entry is its first segment's tile (what a client that does not animate shows).
   */
  frames: Map<number, AtlasFrame[]>;
  /** Stacks that keep some animated tiles still (the combination exceeds MAX_FRAMES_PER_STACK). */
  reducedStacks: number;
  /**
   * World id → the atlas tile it draws over the entities (its over stack, TileInfo.overStack), for every id
   * that has one: index 0 where nothing is over (the client's pass is transparent), never 0 elsewhere.
   */
  overLooks: Map<number, number>;
  /**
   * Creature kind (type_id) → how it is drawn when the kinds file names a tile (NpcKind.tile): the cells
   * the tile covers around the creature's cell (a 16 × 32 character on a 16 px map covers its cell and the
   * one above), each an atlas tile cut transparent like an over look (0 where the tile shows nothing), per
   * frame of its Tiled animation. Drawn by the client over the map at the map's tile size.
   */
  kindLooks: Map<number, KindLook>;
}

/** The most cells one creature's tile may cover (4 × 4): larger pictures are cut to their bottom-left 4 × 4. */
export const KIND_LOOK_MAX_CELLS = 4;

/**
 * How a creature kind with a tile of its own is drawn: a `width` × `height` block of cells whose top-left
 * is (`dx`, `dy`) from the creature's cell, and per frame the block's atlas tiles, row-major (0: nothing
 * in that cell). One frame (durationMs 0) for a still tile; an animated one loops from time 0.
 */
export interface KindLook {
  dx: number;
  dy: number;
  width: number;
  height: number;
  frames: { looks: number[]; durationMs: number }[];
}

/** One segment of an animated id's timeline: the atlas tile shown and for how long. */
export interface AtlasFrame {
  look: number;
  durationMs: number;
}

export interface MapArtInput {
  tilesets: readonly Tileset[];
  tileWidthPx: number;
  tileHeightPx: number;
  footprints: Footprints;
  tiles: Uint16Array;
  tileData: TileData;
  /** The images (tests pass one with another reader); default a TilesetImages with readPng. */
  images?: TilesetImages;
  /** Creature kinds drawn with a tile of the tilesets (map loader's kindTiles); none when absent. */
  kindTiles?: readonly { typeId: number; gid: number }[];
  /** Creature kinds drawn with an image beside the map (map loader's kindImages); none when absent. */
  kindImages?: readonly { typeId: number; image: KindImage }[];
  /** The tile objects drawn free (tile-objects.ts): stack GID FREE_OBJECT_GID_BASE + i is the i-th. */
  freeObjects?: readonly FreeObject[];
  /**
   * The map's background colour, 0xRRGGBB (Tiled's `backgroundcolor`): every look is composited over it
   * instead of black, and the cells that draw nothing (id 0, stacks with nothing under the entities) show it.
   */
  backgroundColor?: number;
}

/** The Tiled copy of the client's sheet (scripts/make-art.ts): what the bundled map's and generated levels' tilesets name. */
export const BUILT_IN_TILE_SHEET_FOR_TILED = fileURLToPath(
  new URL("../../client/assets/tiles-tiled.png", import.meta.url),
);

/**
 * Whether the map shows the client's own art: no tilesets (CSV), or tilesets whose only image is the
 * built-in sheet or its Tiled copy — this repository's, or any file so named (a generated dungeon level
 * moved elsewhere still names the sheet it was made for; an older level names tiles.tga).
 */
export function usesBuiltInArt(tilesets: readonly Tileset[]): boolean {
  const paths = tilesets.flatMap((tileset) => [
    ...(tileset.art.image ? [tileset.art.image.path] : []),
    ...[...tileset.art.tileImages.values()].map((ref) => ref.path),
  ]);
  const names = new Set([basename(BUILT_IN_TILE_SHEET), basename(BUILT_IN_TILE_SHEET_FOR_TILED)]);
  return paths.every(
    (path) => path === BUILT_IN_TILE_SHEET || path === BUILT_IN_TILE_SHEET_FOR_TILED || names.has(basename(path)),
  );
}

/**
 * Builds the atlas: one tile per distinct stack the map draws, and each drawn id's atlas tile; null when
 * the map uses the built-in art. Never throws for art: a missing image becomes the placeholder and a problem.
 */
export function buildMapArt(input: MapArtInput): MapArt | null {
  const { tilesets, tileWidthPx: width, tileHeightPx: height, tiles, tileData, footprints } = input;
  if (usesBuiltInArt(tilesets)) return null;
  const problems: string[] = [];
  if (width !== height || width < MAP_TILE_MIN_PX || width > MAP_TILE_MAX_PX) {
    problems.push(
      `map tiles are ${width}×${height} px: only square tiles of ${MAP_TILE_MIN_PX}..${MAP_TILE_MAX_PX} px are drawn; the map shows no art`,
    );
  }
  const images = input.images ?? new TilesetImages();
  const capacity = Math.floor(MAP_ATLAS_BYTES / (width * height * MAP_ATLAS_COLUMNS)) * MAP_ATLAS_COLUMNS;
  const sized = problems.length === 0;
  const drawn = sized ? drawnIds(tiles, tileData) : [];
  const cellOfStack = new Map<string, number>();
  const overLooks = new Map<number, number>();
  const tilePixels: Uint8Array[] = [new Uint8Array(width * height)];
  let overflow = 0;
  const looks = new Map<number, number>();
  const frames = new Map<number, AtlasFrame[]>();
  let reducedStacks = 0;
  const rgba = new Float32Array(width * height * 4);
  const background = input.backgroundColor ?? 0;
  /**
   * The atlas tile of a stack, composited the first time it is met; null when the atlas is full. An over
   * stack has its own key space and is cut transparent (quantiseOver).
   */
  const cellFor = (key: string, paint: () => void, over: boolean): number | null => {
    let cell = cellOfStack.get(key);
    if (cell === undefined) {
      if (tilePixels.length >= capacity) {
        overflow++;
        return null;
      }
      paint();
      tilePixels.push(over ? quantiseOver(rgba, width, height) : quantise(rgba, width, height, background));
      cell = tilePixels.length - 1;
      cellOfStack.set(key, cell);
    }
    return cell;
  };
  const freeObjects = input.freeObjects ?? [];
  const tileOf = (stack: readonly number[], over: boolean): number | null =>
    cellFor(
      over ? `over ${stack.join(",")}` : stack.join(","),
      () => composite(rgba, stack, width, height, footprints, images, freeObjects),
      over,
    );
  const cellOf = (stack: readonly number[]): number | null => tileOf(stack, false);
  const overCellOf = (stack: readonly number[]): number | null => tileOf(stack, true);
  for (const id of drawn) {
    const info = tileData.get(id)!;
    // Over the entities: the first frame of its over stack as it stands (over animations are not played).
    if (info.overStack) {
      const cell = overCellOf(info.overStack);
      if (cell !== null) overLooks.set(id, cell);
    }
    // A collision twin of a plain cell draws the tile it twins.
    const stack = info.stack ?? plainEntry(info.twinOf ?? id);
    // A cell whose every tile is over the entities draws nothing under them (but the map's background).
    if (stack.length === 0) {
      if (input.backgroundColor === undefined) continue;
      const cell = cellOf(stack);
      if (cell !== null) looks.set(id, cell);
      continue;
    }
    const timeline = stackTimeline(stack, footprints);
    if (timeline === null) {
      const cell = cellOf(stack);
      if (cell !== null) looks.set(id, cell);
      continue;
    }
    if (timeline.stillEntries > 0) reducedStacks++;
    const segments: AtlasFrame[] = [];
    for (const frame of timeline.frames) {
      const cell = cellOf(frame.stack);
      if (cell === null) break;
      segments.push({ look: cell, durationMs: frame.durationMs });
    }
    if (segments.length === 0) continue;
    looks.set(id, segments[0].look);
    // An atlas that filled up mid-timeline shows the first frame still rather than a broken loop.
    // Frames that all look alike (an animation whose image is missing: every frame is the placeholder) do not animate.
    const first = tilePixels[segments[0].look];
    const changes = segments.some(({ look }) => !sameBytes(tilePixels[look], first));
    if (changes && segments.length === timeline.frames.length) frames.set(id, segments);
  }
  // The empty cells (id 0) show the map's background colour, as Tiled draws it behind every layer.
  if (sized && input.backgroundColor !== undefined) {
    const cell = cellOf([]);
    if (cell !== null) looks.set(0, cell);
  }
  // The creatures drawn with the map's tiles: the cells each covers, cut transparent, animated as Tiled says.
  const kindLooks = new Map<number, KindLook>();
  for (const { typeId, gid } of sized ? (input.kindTiles ?? []) : []) {
    const look = kindLookOf(gid, footprints, overCellOf);
    if (look !== null) kindLooks.set(typeId, look);
  }
  // The creatures drawn with an image beside the map: the same cells, cut from the image's rectangle.
  for (const { typeId, image } of sized ? (input.kindImages ?? []) : []) {
    const look = imageLookOf(image, width, height, images, problems, (key, picture, dx, dy) =>
      cellFor(
        `image ${key} ${dx},${dy}`,
        () => {
          rgba.fill(0);
          drawPicture(rgba, width, height, picture, 0, -dx, -dy);
        },
        true,
      ),
    );
    if (look !== null) kindLooks.set(typeId, look);
  }
  problems.push(...images.problems);
  if (overflow > 0) {
    problems.push(
      `${overflow} tile stacks do not fit the ${capacity}-tile atlas (${MAP_ATLAS_BYTES} bytes) and draw nothing`,
    );
  }

  const columns = MAP_ATLAS_COLUMNS;
  const rows = Math.ceil(tilePixels.length / columns);
  const stride = columns * width;
  const pixels = new Uint8Array(rows * height * stride);
  tilePixels.forEach((tile, index) => {
    const left = (index % columns) * width;
    const top = Math.floor(index / columns) * height;
    for (let y = 0; y < height; y++) pixels.set(tile.subarray(y * width, (y + 1) * width), (top + y) * stride + left);
  });
  const hash = createHash("sha256").update(`${width}x${height}/${columns}:`).update(pixels).digest("hex").slice(0, 16);
  return {
    tileWidthPx: width,
    tileHeightPx: height,
    columns,
    tileCount: tilePixels.length,
    pixels,
    hash,
    problems,
    looks,
    frames,
    reducedStacks,
    overLooks,
    kindLooks,
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/** Every id a cell shows, and every tile a door can open to (TileUpdates put those on cells later), ascending. */
function drawnIds(tiles: Uint16Array, tileData: TileData): number[] {
  const ids = new Set<number>(tiles);
  for (const info of tileData.values()) if (info.opensTo !== undefined) ids.add(info.opensTo);
  ids.delete(0);
  return [...ids].filter((id) => tileData.has(id)).sort((a, b) => a - b);
}

/** Composites one stack into `rgba` (straight-alpha floats 0..255), bottom entry first. */
function composite(
  rgba: Float32Array,
  stack: readonly number[],
  width: number,
  height: number,
  footprints: Footprints,
  images: TilesetImages,
  freeObjects: readonly FreeObject[],
): void {
  rgba.fill(0);
  for (let at = 0; at < stack.length; at += STACK_ENTRY_LENGTH) {
    const raw = stack[at] >>> 0;
    const gid = raw & GID_TILE_MASK;
    if (isFreeObjectGid(gid)) {
      const object = freeObjects[gid - FREE_OBJECT_GID_BASE];
      const tileset = object ? footprints.owner(object.gid) : undefined;
      const picture = tileset ? images.picture(tileset, object.gid - tileset.firstGid) : null;
      // The entry's anchor is world cell (0, 0): this cell is (−dx, −dy).
      if (picture) {
        drawFreeObject(
          rgba,
          width,
          height,
          picture,
          object,
          -stack[at + 1],
          -stack[at + 2],
          stack[at + 3],
          stack[at + 4],
        );
      }
      continue;
    }
    const tileset = footprints.owner(gid);
    const picture = tileset ? images.picture(tileset, gid - tileset.firstGid) : null;
    if (!picture) continue;
    drawPicture(rgba, width, height, picture, raw, stack[at + 1], stack[at + 2], stack[at + 3], stack[at + 4]);
  }
}

/**
 * Draws one tile (or the piece of it that falls in this cell) over `rgba`. The tile is anchored at the
 * bottom-left of cell (anchorDx, anchorDy) relative to this one, shifted by its tileset's offset; flips
 * as Tiled applies them: the diagonal flip (x/y swap) first, then horizontal, then vertical.
 */
export function drawPicture(
  rgba: Float32Array,
  width: number,
  height: number,
  picture: TilePicture,
  raw: number,
  anchorDx: number,
  anchorDy: number,
  /** The layer's opacity, 0 … 255: every pixel's own alpha scaled by it. */
  layerAlpha: number = OPAQUE,
  /** The layer's tint, 0xRRGGBB: every pixel's colour multiplied by it, channel by channel (as Tiled draws it). */
  tint: number = NO_TINT,
): void {
  const flipH = (raw & GID_FLIP_HORIZONTAL) !== 0;
  const flipV = (raw & GID_FLIP_VERTICAL) !== 0;
  const diagonal = (raw & GID_FLIP_DIAGONAL) !== 0;
  const drawnWidth = diagonal ? picture.height : picture.width;
  const drawnHeight = diagonal ? picture.width : picture.height;
  const left = anchorDx * width + picture.offsetXPx;
  const top = (anchorDy + 1) * height + picture.offsetYPx - drawnHeight;
  for (let y = Math.max(0, top); y < Math.min(height, top + drawnHeight); y++) {
    for (let x = Math.max(0, left); x < Math.min(width, left + drawnWidth); x++) {
      let u = x - left;
      let v = y - top;
      if (flipH) u = drawnWidth - 1 - u;
      if (flipV) v = drawnHeight - 1 - v;
      if (!samplePicture(picture, diagonal ? v : u, diagonal ? u : v)) continue;
      blendOver(rgba, (y * width + x) * 4, SAMPLE[0], SAMPLE[1], SAMPLE[2], SAMPLE[3], layerAlpha, tint);
    }
  }
}

/**
 * Draws the part of a free-placed tile object (tile-objects.ts FreeObject) that falls in world cell
 * (`cellX`, `cellY`) over `rgba`, as Tiled draws a tile object: its tile stretched to the object's size
 * (nearest pixel), flipped, its bottom-left at the object's anchor, turned clockwise about it. Each pixel's
 * centre is mapped back into the tile, so scale, flips and any rotation are one rule.
 */
export function drawFreeObject(
  rgba: Float32Array,
  width: number,
  height: number,
  picture: TilePicture,
  object: FreeObject,
  cellX: number,
  cellY: number,
  layerAlpha: number = OPAQUE,
  tint: number = NO_TINT,
): void {
  if (object.widthPx <= 0 || object.heightPx <= 0) return;
  const radians = (object.rotationDeg * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  const flipH = (object.flips & GID_FLIP_HORIZONTAL) !== 0;
  const flipV = (object.flips & GID_FLIP_VERTICAL) !== 0;
  // Tiled moves a tile object by its tileset's offset too, unscaled.
  const anchorX = object.xPx + picture.offsetXPx;
  const anchorY = object.yPx + picture.offsetYPx;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const dx = cellX * width + x + 0.5 - anchorX;
      const dy = cellY * height + y + 0.5 - anchorY;
      // Undo the turn: the pixel in the object's own frame, (0, 0) its bottom-left, y down.
      const u = dx * cos + dy * sin;
      const v = -dx * sin + dy * cos + object.heightPx;
      if (u < 0 || v < 0 || u >= object.widthPx || v >= object.heightPx) continue;
      let sourceX = Math.floor((u * picture.width) / object.widthPx);
      let sourceY = Math.floor((v * picture.height) / object.heightPx);
      if (flipH) sourceX = picture.width - 1 - sourceX;
      if (flipV) sourceY = picture.height - 1 - sourceY;
      if (!samplePicture(picture, sourceX, sourceY)) continue;
      blendOver(rgba, (y * width + x) * 4, SAMPLE[0], SAMPLE[1], SAMPLE[2], SAMPLE[3], layerAlpha, tint);
    }
  }
}

/** The pixel samplePicture read last: red, green, blue, alpha (one buffer, so sampling allocates nothing). */
const SAMPLE = new Uint8Array(4);

/**
 * Reads pixel (`sourceX`, `sourceY`) of the picture's rectangle into SAMPLE; false where it lies outside the
 * image. A missing image is the placeholder: a magenta and black 4 px checker, which no real art looks like.
 */
function samplePicture(picture: TilePicture, sourceX: number, sourceY: number): boolean {
  const image = picture.image;
  if (image === null) {
    const magenta = ((sourceX >> 2) + (sourceY >> 2)) & 1 ? 255 : 0;
    SAMPLE[0] = magenta;
    SAMPLE[1] = 0;
    SAMPLE[2] = magenta;
    SAMPLE[3] = 255;
    return true;
  }
  const imageX = picture.x + sourceX;
  const imageY = picture.y + sourceY;
  if (imageX < 0 || imageY < 0 || imageX >= image.width || imageY >= image.height) return false;
  const from = (imageY * image.width + imageX) * 4;
  SAMPLE[0] = image.data[from];
  SAMPLE[1] = image.data[from + 1];
  SAMPLE[2] = image.data[from + 2];
  SAMPLE[3] = image.data[from + 3];
  return true;
}

/** Blends one pixel over `rgba` at `to`: its alpha times the layer's, its colour times the tint; straight-alpha "over". */
function blendOver(
  rgba: Float32Array,
  to: number,
  red: number,
  green: number,
  blue: number,
  alpha: number,
  layerAlpha: number,
  tint: number,
): void {
  if (layerAlpha !== OPAQUE) alpha = (alpha * layerAlpha) / OPAQUE;
  if (tint !== NO_TINT) {
    red *= ((tint >>> 16) & 0xff) / 255;
    green *= ((tint >>> 8) & 0xff) / 255;
    blue *= (tint & 0xff) / 255;
  }
  if (alpha === 0) return;
  if (alpha === 255) {
    rgba[to] = red;
    rgba[to + 1] = green;
    rgba[to + 2] = blue;
    rgba[to + 3] = 255;
    return;
  }
  const a = alpha / 255;
  const keep = (rgba[to + 3] / 255) * (1 - a);
  const out = a + keep;
  rgba[to] = (red * a + rgba[to] * keep) / out;
  rgba[to + 1] = (green * a + rgba[to + 1] * keep) / out;
  rgba[to + 2] = (blue * a + rgba[to + 2] * keep) / out;
  rgba[to + 3] = out * 255;
}

/**
 * An over stack's composited tile, dithered to RGB332 with index 0 meaning "nothing over here" (the over
 * pass draws transparent): pixels at least half covered keep their own colour, the rest become 0, and a
 * covered pixel that dithers to 0 (black) takes OVER_BLACK so it still covers.
 */
function quantiseOver(rgba: Float32Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  for (let y = 0, at = 0, pixel = 0; y < height; y++) {
    for (let x = 0; x < width; x++, at += 4, pixel++) {
      if (rgba[at + 3] < 128) continue;
      const index = ditherRgb332((rgba[at] + 0.5) | 0, (rgba[at + 1] + 0.5) | 0, (rgba[at + 2] + 0.5) | 0, x, y);
      out[pixel] = index === 0 ? OVER_BLACK : index;
    }
  }
  return out;
}

/**
 * The look of a creature drawn with tile `gid`: the cells its footprint covers (at most
 * KIND_LOOK_MAX_CELLS a side, the bottom-left ones: the tile stands on the creature's cell), each composited
 * transparent by `cellOf`, for each frame of its animation; null when the atlas is full.
 */
function kindLookOf(
  gid: number,
  footprints: Footprints,
  cellOf: (stack: readonly number[]) => number | null,
): KindLook | null {
  const footprint = footprints.of(gid);
  const firstDx = footprint.firstDx;
  const lastDx = Math.min(footprint.lastDx, firstDx + KIND_LOOK_MAX_CELLS - 1);
  const lastDy = footprint.lastDy;
  const firstDy = Math.max(footprint.firstDy, lastDy - KIND_LOOK_MAX_CELLS + 1);
  const timeline = stackTimeline(plainEntry(gid), footprints);
  const pictures =
    timeline === null
      ? [{ gid, durationMs: 0 }]
      : timeline.frames.map((frame) => ({ gid: frame.stack[0], durationMs: frame.durationMs }));
  const frames: KindLook["frames"] = [];
  for (const picture of pictures) {
    const looks: number[] = [];
    for (let dy = firstDy; dy <= lastDy; dy++) {
      for (let dx = firstDx; dx <= lastDx; dx++) {
        // The tile's anchor, seen from the cell (dx, dy) of it that is drawn.
        const cell = cellOf(plainEntry(picture.gid, -dx, -dy));
        if (cell === null) return null;
        looks.push(cell);
      }
    }
    frames.push({ looks, durationMs: picture.durationMs });
  }
  return { dx: firstDx, dy: firstDy, width: lastDx - firstDx + 1, height: lastDy - firstDy + 1, frames };
}

/**
 * How a kind drawn with an image beside the map is drawn: the cells its rectangle covers standing on the
 * creature's cell (bottom-left anchored, as a tile), at most 4 × 4 (the bottom-left ones), per frame. An
 * image that cannot be read draws the placeholder and is reported; a frame outside the image is reported
 * (its missing part is empty).
 */
function imageLookOf(
  kindImage: KindImage,
  tileWidth: number,
  tileHeight: number,
  images: TilesetImages,
  problems: string[],
  cellOf: (key: string, picture: TilePicture, dx: number, dy: number) => number | null,
): KindLook | null {
  const image = images.file(kindImage.path, `creature image ${kindImage.file}`);
  const pictureWidth = kindImage.width ?? image?.width ?? tileWidth;
  const pictureHeight = kindImage.height ?? image?.height ?? tileHeight;
  const columns = Math.min(KIND_LOOK_MAX_CELLS, Math.ceil(pictureWidth / tileWidth));
  const rows = Math.min(KIND_LOOK_MAX_CELLS, Math.ceil(pictureHeight / tileHeight));
  const frames: KindLook["frames"] = [];
  kindImage.frames.forEach((corner, index) => {
    if (image !== null && (corner.x + pictureWidth > image.width || corner.y + pictureHeight > image.height)) {
      problems.push(
        `creature image ${kindImage.file}: frame ${index + 1} (${pictureWidth}×${pictureHeight} at ${corner.x},${corner.y}) reaches past the ${image.width}×${image.height} image`,
      );
    }
  });
  for (const corner of kindImage.frames) {
    const picture: TilePicture = {
      image,
      x: corner.x,
      y: corner.y,
      width: pictureWidth,
      height: pictureHeight,
      offsetXPx: 0,
      offsetYPx: 0,
    };
    const key = `${kindImage.path} ${corner.x},${corner.y},${pictureWidth},${pictureHeight}`;
    const looks: number[] = [];
    for (let dy = 1 - rows; dy <= 0; dy++) {
      for (let dx = 0; dx < columns; dx++) {
        const cell = cellOf(key, picture, dx, dy);
        if (cell === null) return null;
        looks.push(cell);
      }
    }
    frames.push({ looks, durationMs: kindImage.frameMs });
  }
  return { dx: 0, dy: 1 - rows, width: columns, height: rows, frames };
}

/** Black in an over look, where 0 is transparent: RGB332 0x20 (red 36, green 0, blue 0), a non-zero index next to black. */
export const OVER_BLACK = 0x20;

/**
 * The composited tile over the map's background colour (0xRRGGBB; black, the darkness around the map, when it
 * has none), dithered to RGB332.
 */
function quantise(rgba: Float32Array, width: number, height: number, background: number): Uint8Array {
  const backRed = (background >>> 16) & 0xff;
  const backGreen = (background >>> 8) & 0xff;
  const backBlue = background & 0xff;
  const out = new Uint8Array(width * height);
  for (let y = 0, at = 0, pixel = 0; y < height; y++) {
    for (let x = 0; x < width; x++, at += 4, pixel++) {
      const alpha = rgba[at + 3];
      if (alpha >= 255) {
        out[pixel] = ditherRgb332((rgba[at] + 0.5) | 0, (rgba[at + 1] + 0.5) | 0, (rgba[at + 2] + 0.5) | 0, x, y);
      } else {
        const a = alpha / 255;
        out[pixel] = ditherRgb332(
          (rgba[at] * a + backRed * (1 - a) + 0.5) | 0,
          (rgba[at + 1] * a + backGreen * (1 - a) + 0.5) | 0,
          (rgba[at + 2] * a + backBlue * (1 - a) + 0.5) | 0,
          x,
          y,
        );
      }
    }
  }
  return out;
}
