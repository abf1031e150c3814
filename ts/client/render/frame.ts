// One frame of the game, composed in the wasm framebuffer: the darkness, the
// tiles of the client's wasm grid around the camera, the route markers, the
// entities (hostiles over a red frame, struck ones flashing, corpses grey, the hurt under an HP bar, players
// with their worn weapon and armor drawn over them), the
// pointer outline (red over a foe), labels over entities (names on hover, the interaction prompt), damage
// numbers, an optional banner, and the HUD panel; then one conversion for the canvas — at night
// fb_to_rgba_lit, which darkens the world as it converts it. DOM-free, so tests draw real frames in Node.
//
// Tiles are read from grid memory every frame, so a tile the core changed (a
// TileUpdate applied in place, a re-sent chunk) shows in the next frame.
import { LIGHT_MAP_MAX, LIGHT_SOURCES_MAX, MODE_TINTED, MODE_TRANSPARENT } from "../../blit-layout.js";
import type { WasmBlitter } from "../../wasm/blit.js";
import type { WasmSim } from "../../wasm/sim.js";
import {
  DEFAULT_VIEWPORT,
  placeViewport,
  type PixelPoint,
  type ViewportOptions,
  type ViewportPlacement,
  viewportForTileSize,
} from "./camera.js";
import { FULL_LIGHT } from "../../world-time.js";
import { buildLightTables, type EntityLight } from "./light.js";
import { SHEET_COLUMNS } from "../assets/sheets.js";
import type { MapLook } from "./kind-looks.js";
import type { MapTileSheet } from "./map-art.js";
import { type Atlas, MARKER_CORNERS, MARKER_HOSTILE, MARKER_OUTLINE, MARKER_STEP, MARKER_STEP_SMALL } from "./atlas.js";
import { drawHud, type HudModel } from "./hud.js";
import { DEFAULT_SCREEN, type Rect, type Screen, screenForTileSize, TILE_SIZE_PX } from "./layout.js";
import * as P from "./palette.js";
import { screenOfTile, spriteScreenX, spriteScreenY, tileSpriteScreenX, tileSpriteScreenY } from "./picking.js";
import { SpriteList } from "./sprite-list.js";
import { queueText, textWidthPx } from "./text.js";
import { builtInSheets, uploadWorldSheets, type WorldSheets } from "./world-scale.js";

/** The wasm grid the tiles come from: a row-major u16 window of the world. */
export interface GridView {
  /** Byte address of the grid's first tile id in linear memory. */
  readonly tilesPtr: number;
  readonly width: number;
  readonly height: number;
  /** World tile of the grid's top-left cell. */
  readonly originX: number;
  readonly originY: number;
}

export interface TilePoint {
  readonly x: number;
  readonly y: number;
}

/** A short text over an entity at float world pixels (the entity's top-left, as its sprite). */
export interface WorldLabel {
  readonly xPx: number;
  readonly yPx: number;
  readonly text: string;
  readonly colour: number;
}

/**
 * Adjusts the scene the game loop composed before it is drawn: features layered
 * on the play session (chat in the log, hover names, prompts) add to it here.
 */
export type SceneHook = (scene: FrameScene) => FrameScene;

/** An entity to draw: float world pixels (tile × 8 at rest), a sprite-sheet cell. */
export interface SpriteInstance {
  readonly xPx: number;
  readonly yPx: number;
  readonly cell: number;
  /** Marked with a red frame under the sprite, so a player tells a hostile at a glance. */
  readonly hostile?: boolean;
  /** "flash": just struck, drawn in the flash colour; "dead": a corpse, a grey silhouette. */
  readonly look?: SpriteLook;
  /** Health: a small bar over the sprite while 0 < hp < hpMax. */
  readonly hp?: number;
  readonly hpMax?: number;
  /** Worn overlays drawn over the sprite in its look (the equipped armor, then the weapon); absent or -1: none. */
  readonly wornArmor?: number;
  readonly wornWeapon?: number;
  /**
   * Tiles of the map atlas drawn instead of `cell`, at the map's tile size, around the entity's cell (a kind
   * in the host's own art: kind-looks.ts); absent: the sprite. Ignored while the map draws with the built-in sheet.
   */
  readonly mapLook?: MapLook;
}

export type SpriteLook = "normal" | "flash" | "dead";

/** A text floating over the world (a damage number, "miss"): centred over xPx, its baseline at yPx. */
export interface WorldText {
  readonly xPx: number;
  readonly yPx: number;
  readonly text: string;
  readonly colour: number;
}

export interface FrameScene {
  /** Camera position in float world pixels (the top-left of the tile it centres). */
  readonly camera: PixelPoint;
  readonly grid: GridView | null;
  /** Drawn in order, later over earlier: put the own player last. */
  readonly entities: readonly SpriteInstance[];
  /** Route steps already sent to the server (in flight), and the planned rest. */
  readonly pendingSteps: readonly TilePoint[];
  readonly plannedSteps: readonly TilePoint[];
  readonly goal: TilePoint | null;
  /** The tile under the mouse pointer, if it is over the viewport. */
  readonly cursor: TilePoint | null;
  /** A click on the cursor's tile attacks (a living creature stands there): the outline is red. */
  readonly cursorAttacks?: boolean;
  /** Texts over entities, drawn over them and under the banner. */
  readonly labels?: readonly WorldLabel[];
  /** Damage numbers and misses, over everything in the world. */
  readonly floaters?: readonly WorldText[];
  /** A message across the viewport (e.g. while the link is down), or null. */
  readonly banner: string | null;
  /**
   * The ambient light level of the world, 0 (darkest night) … 15 (full day; also when absent): the
   * lit conversion darkens the world — tiles, route, sprites, weather — and leaves labels, numbers and the HUD bright.
   */
  readonly light?: number;
  /** Lights carried by entities (glowing creatures), at world tiles; the map's own (TILE_LIGHT) are found by the pass. */
  readonly lights?: readonly EntityLight[];
  /**
   * The weather over the world (darkened with it at night, under labels and the HUD): its weather_draw code (0
   * clear, 1 rain, 2 fog, 3 storm; absent: clear) and the frame number it is drawn at (weather.ts).
   */
  readonly weather?: { readonly code: number; readonly frame: number };
  /** Wall-clock ms the map's tile animations are shown at (tile-animation.ts); absent: Date.now(). */
  readonly tileClockMs?: number;
  readonly hud: HudModel;
}

/** The grid of a WasmSim, or null before it has been sized. */
export function gridViewOf(sim: WasmSim): GridView | null {
  const tiles = sim.tiles;
  if (sim.width <= 0 || sim.height <= 0) return null;
  return {
    tilesPtr: tiles.byteOffset,
    width: sim.width,
    height: sim.height,
    originX: sim.originX,
    originY: sim.originY,
  };
}

export class FrameRenderer {
  private readonly list: SpriteList;
  /** Runs first in every render(); null draws the scene as given. */
  sceneHook: SceneHook | null = null;
  /** Told each frame's HUD as drawn (after the hook): the page's HUD bar shows it where the panel is not shown. */
  hudSink: ((hud: HudModel) => void) | null = null;
  /** The map's own tiles (map-art.ts), or null: the built-in 8 px tile sheet. */
  private mapTiles: MapTileSheet | null = null;
  private viewport: Readonly<ViewportOptions> = DEFAULT_VIEWPORT;
  /** The framebuffer for the current tiles: 320 × 240, or larger for a map's 16 or 32 px tiles. */
  private current: Screen = DEFAULT_SCREEN;
  /** Whether the frame being drawn converts through the light (render sets it). */
  private lit = false;
  /** The sprites, markers and font drawn over the world, scaled with the map's tiles (world-scale.ts). */
  private world: WorldSheets;

  constructor(
    private readonly blitter: WasmBlitter,
    private readonly atlas: Atlas,
  ) {
    this.list = new SpriteList(blitter);
    this.world = builtInSheets(atlas);
    blitter.lutInit();
    buildLightTables(blitter.lightTables);
  }

  /** Draws the map with its own tiles (at their size) from now on; null goes back to the built-in sheet. */
  setMapTiles(sheet: MapTileSheet | null): void {
    this.mapTiles = sheet;
    const tileSizePx = sheet ? sheet.tileSizePx : TILE_SIZE_PX;
    this.viewport = viewportForTileSize(tileSizePx);
    // The framebuffer holds 30 × 30 of these tiles and the panel (docs/art.md § Map art).
    this.current = screenForTileSize(tileSizePx);
    this.blitter.resize(this.current.width, this.current.height);
    // Sprites, markers and names as large as the tiles allow (issue 42), not 8 px specks on a 32 px street.
    this.world = sheet
      ? uploadWorldSheets(this.blitter, this.atlas, sheet.tileSizePx, sheet.atlasBytes)
      : builtInSheets(this.atlas);
  }

  /** How the world's overlays are scaled now: the name tags' placement measures labels with it. */
  get worldSheets(): WorldSheets {
    return this.world;
  }

  /** Side of a sprite or marker cell as drawn (8 × the sprite scale). */
  private get spritePx(): number {
    return TILE_SIZE_PX * this.world.spriteScale;
  }

  /** The framebuffer's size, view and panel as drawn now (the canvas and the pointer follow it). */
  get screen(): Screen {
    return this.current;
  }

  /** Where a frame with this camera puts the world: the one placement drawing and pointer mapping share. */
  place(camera: Readonly<PixelPoint>): ViewportPlacement {
    return placeViewport(camera, this.viewport);
  }

  /**
   * Sets up the frame's lighting (docs/world-time.md § In the client): light_build writes the light
   * map — the ambient level, raised around the map's lit tiles (TILE_LIGHT) and `lights`, opaque
   * tiles blocking — one level per world tile of the view, each tile as (its size / 8)² cells of 8 px;
   * light_view names the viewport and that map for the conversion, which darkens the world as it
   * converts it to RGBA (fb_to_rgba_lit). A tile size that is not a multiple of 8, or a view too large
   * for the light map, gets the ambient level alone. Returns whether a view is set.
   */
  private setUpLight(level: number, lights: readonly EntityLight[], placement: ViewportPlacement): boolean {
    const view = this.current.view;
    const tile = placement.tileSizePx;
    if (tile % TILE_SIZE_PX === 0) {
      const count = Math.min(lights.length, LIGHT_SOURCES_MAX);
      for (let i = 0; i < count; i++) this.blitter.setLightSource(i, lights[i].x, lights[i].y, lights[i].radius);
      const scale = tile / TILE_SIZE_PX;
      const built = this.blitter.lightBuild(
        placement.firstTileX,
        placement.firstTileY,
        placement.tilesWide,
        placement.tilesHigh,
        level,
        scale,
        count,
      );
      if (built === 0) {
        const screen = screenOfTile(placement.firstTileX, placement.firstTileY, placement);
        const wide = placement.tilesWide * scale;
        const high = placement.tilesHigh * scale;
        return this.blitter.lightView(view.x, view.y, view.w, view.h, screen.x, screen.y, wide, high) === 0;
      }
    }
    return this.ambientLight(level);
  }

  /**
   * The ambient level everywhere: a map of the viewport's 8 px cells at that level (so an overlay bakes
   * only the cells under it), or one cell for a viewport too large for LIGHT_MAP (edge cells extend outwards).
   */
  private ambientLight(level: number): boolean {
    const view = this.current.view;
    let wide = Math.ceil(view.w / TILE_SIZE_PX);
    let high = Math.ceil(view.h / TILE_SIZE_PX);
    if (wide * high > LIGHT_MAP_MAX) wide = high = 1;
    this.blitter.lightMap.fill(level, 0, wide * high);
    return this.blitter.lightView(view.x, view.y, view.w, view.h, view.x, view.y, wide, high) === 0;
  }

  /**
   * Before an overlay that stays bright over the lit world (a label, a number, the banner) is drawn in
   * this rectangle: light_bake darkens the world under it in the framebuffer and has the conversion
   * leave those cells unlit, so only the world darkens.
   */
  private beforeOverlay(x: number, y: number, w: number, h: number): void {
    if (this.lit) this.blitter.lightBake(x, y, w, h);
  }

  /** Composes the frame and converts it to RGBA; returns where the world was placed (for pointer mapping). */
  render(composed: FrameScene): ViewportPlacement {
    const scene = this.sceneHook ? this.sceneHook(composed) : composed;
    const placement = this.place(scene.camera);
    this.blitter.fillRect(
      this.current.view.x,
      this.current.view.y,
      this.current.view.w,
      this.current.view.h,
      P.UNKNOWN_DARK,
    );
    this.mapTiles?.animations?.show(this.blitter, scene.tileClockMs ?? Date.now());
    if (scene.grid) this.drawTiles(scene.grid, placement);
    this.drawRoute(scene, placement);
    this.drawEntities(scene.entities, placement);
    // Roofs and tree tops over the entities (docs/maps.md § Over layers); under the cursor, labels and HUD.
    if (scene.grid && this.mapTiles?.hasOver === true) this.drawTiles(scene.grid, placement, true);
    if (scene.cursor) {
      const colour = scene.cursorAttacks === true ? P.ATTACK_OUTLINE : P.CURSOR_OUTLINE;
      this.mark(scene.cursor, MARKER_CORNERS, colour, placement);
    }
    this.flushCells();
    // Weather first, in the world's pixels: the night darkens rain and fog as it darkens the world; a
    // lightning flash lights the scene — that frame is shown at full light.
    let flash = false;
    if (scene.weather && scene.weather.code > 0) {
      flash =
        this.blitter.weatherDraw(
          this.current.view.x,
          this.current.view.y,
          this.current.view.w,
          this.current.view.h,
          scene.weather.code,
          scene.weather.frame,
        ) === 1;
    }
    this.lit =
      scene.light !== undefined && scene.light < FULL_LIGHT && !flash
        ? this.setUpLight(scene.light, scene.lights ?? [], placement)
        : false;
    if (scene.labels) this.drawLabels(scene.labels, placement);
    if (scene.floaters) this.drawFloaters(scene.floaters, placement);
    if (scene.banner) this.drawBanner(scene.banner);
    drawHud(this.blitter, this.list, this.atlas, scene.hud, this.current.panel, this.current.height);
    this.hudSink?.(scene.hud);
    if (this.lit) this.blitter.fbToRgbaLit();
    else this.blitter.fbToRgba();
    return placement;
  }

  /**
   * The part of the 31×31 tile window that lies inside the grid, straight from grid memory (no copy);
   * `over`: the over pass (draw_tilemap_over: each id's over look, transparent).
   */
  private drawTiles(grid: GridView, placement: ViewportPlacement, over = false): void {
    const left = Math.max(placement.firstTileX, grid.originX);
    const top = Math.max(placement.firstTileY, grid.originY);
    const right = Math.min(placement.firstTileX + placement.tilesWide, grid.originX + grid.width);
    const bottom = Math.min(placement.firstTileY + placement.tilesHigh, grid.originY + grid.height);
    if (right <= left || bottom <= top) return;
    const tilesPtr = grid.tilesPtr + 2 * ((top - grid.originY) * grid.width + (left - grid.originX));
    const screen = screenOfTile(left, top, placement);
    const sheet = this.mapTiles;
    (over ? this.blitter.drawTilemapOver : this.blitter.drawTilemap)(
      tilesPtr,
      grid.width,
      right - left,
      bottom - top,
      screen.x,
      screen.y,
      sheet ? sheet.ptr : this.atlas.tiles,
      sheet ? sheet.columns : SHEET_COLUMNS,
      placement.tileSizePx,
      placement.tileSizePx,
      this.current.view.x,
      this.current.view.y,
      this.current.view.w,
      this.current.view.h,
    );
  }

  private drawRoute(scene: FrameScene, placement: ViewportPlacement): void {
    for (const step of scene.plannedSteps) this.mark(step, MARKER_STEP_SMALL, P.ROUTE_PLANNED, placement);
    for (const step of scene.pendingSteps) this.mark(step, MARKER_STEP, P.ROUTE_PENDING, placement);
    if (scene.goal) this.mark(scene.goal, MARKER_OUTLINE, P.ROUTE_GOAL, placement);
    // Markers lie under the entities: flush them now, from their own sheet.
    this.flushCells();
  }

  /** Draws the queued cells from one of the world's sheets (the markers unless told) at its scale. */
  private flushCells(sheet: number = this.world.markers): void {
    this.list.flush(sheet, this.current.view, SHEET_COLUMNS, this.spritePx);
  }

  /** A marker on a tile: centred in it when the map's tiles are larger than its cell. */
  private mark(tile: TilePoint, cell: number, colour: number, placement: ViewportPlacement): void {
    const screen = screenOfTile(tile.x, tile.y, placement);
    const inset = (placement.tileSizePx - this.spritePx) >> 1;
    const x = screen.x + inset;
    const y = screen.y + inset;
    if (onViewport(x, y, this.spritePx, this.current.view)) this.list.add(x, y, cell, MODE_TINTED, colour);
  }

  /**
   * Hostile marks first (a marker batch, under every sprite), then the sprites in the scene's order
   * (a struck one in the flash colour, a corpse as a grey silhouette: tinted, every inked pixel one
   * colour), then the HP bars of the hurt, over the sprites.
   */
  private drawEntities(entities: readonly SpriteInstance[], placement: ViewportPlacement): void {
    const size = this.spritePx;
    for (const entity of entities) {
      if (!entity.hostile) continue;
      const x = spriteScreenX(entity.xPx, placement, size);
      const y = spriteScreenY(entity.yPx, placement, size);
      if (onViewport(x, y, size, this.current.view)) this.list.add(x, y, MARKER_HOSTILE, MODE_TINTED, P.HOSTILE_MARK);
    }
    this.flushCells();
    // Creatures in the map's own art first, a whole tile each from the map atlas (under the sprites: a
    // player stands over a creature of its tile).
    const mapTiles = this.mapTiles;
    const inMapArt = (entity: SpriteInstance) => mapTiles !== null && entity.mapLook !== undefined;
    if (mapTiles !== null) {
      const tile = mapTiles.tileSizePx;
      // Nearer the bottom of the view drawn later: a tall creature's head goes behind the one below it.
      const inArt = entities.filter(inMapArt).sort((a, b) => a.yPx - b.yPx);
      for (const entity of inArt) {
        const { dx, dy, width, looks } = entity.mapLook!;
        const x = tileSpriteScreenX(entity.xPx, placement) + dx * tile;
        const y = tileSpriteScreenY(entity.yPx, placement) + dy * tile;
        const look = entity.look ?? "normal";
        const mode = look === "normal" ? MODE_TRANSPARENT : MODE_TINTED;
        const tint = look === "normal" ? 0 : look === "dead" ? P.CORPSE_GREY : P.HIT_FLASH;
        looks.forEach((cell, index) => {
          if (cell > 0)
            this.list.add(x + (index % width) * tile, y + Math.floor(index / width) * tile, cell, mode, tint);
        });
      }
      this.list.flush(mapTiles.ptr, this.current.view, mapTiles.columns, tile);
    }
    for (const entity of entities) {
      if (inMapArt(entity)) continue;
      const x = spriteScreenX(entity.xPx, placement, size);
      const y = spriteScreenY(entity.yPx, placement, size);
      if (!onViewport(x, y, size, this.current.view)) continue;
      const look = entity.look ?? "normal";
      const mode = look === "normal" ? MODE_TRANSPARENT : MODE_TINTED;
      const tint = look === "normal" ? 0 : look === "dead" ? P.CORPSE_GREY : P.HIT_FLASH;
      this.list.add(x, y, entity.cell, mode, tint);
      // What it wears, in the same look: armor over the tunic, then the weapon in its hand.
      if (entity.wornArmor !== undefined && entity.wornArmor >= 0) this.list.add(x, y, entity.wornArmor, mode, tint);
      if (entity.wornWeapon !== undefined && entity.wornWeapon >= 0) this.list.add(x, y, entity.wornWeapon, mode, tint);
    }
    this.flushCells(this.world.sprites);
    // The bar as wide as the sprite, its height and gap with the text over the world.
    const barHeight = HP_BAR_HEIGHT_PX * this.world.textScale;
    const barGap = HP_BAR_GAP_PX * this.world.textScale;
    for (const entity of entities) {
      const hp = entity.hp ?? 0;
      const hpMax = entity.hpMax ?? 0;
      if (hp <= 0 || hp >= hpMax) continue;
      const x = spriteScreenX(entity.xPx, placement, size);
      const y = spriteScreenY(entity.yPx, placement, size) - barGap - barHeight;
      if (!insideViewport(x, y, size, barHeight, this.current.view)) continue;
      const fill = hp * 3 <= hpMax ? P.ENTITY_HP_LOW : P.ENTITY_HP_FILL;
      this.blitter.hbar(x, y, size, barHeight, hp, hpMax, fill, P.ENTITY_HP_EMPTY);
    }
  }

  /** Each text centred over its point with a dark shadow (no box: a number must not hide the fight), kept inside the viewport. */
  private drawFloaters(floaters: readonly WorldText[], placement: ViewportPlacement): void {
    const scale = this.world.textScale;
    const size = this.spritePx;
    const glyph = TILE_SIZE_PX * scale;
    for (const floater of floaters) {
      const widthPx = textWidthPx(floater.text, scale);
      // xPx is the sprite's centre (its left + 4): centred over the sprite as drawn.
      const centreX = spriteScreenX(floater.xPx - TILE_SIZE_PX / 2, placement, size) + size / 2;
      const x = clamp(
        centreX - Math.floor(widthPx / 2),
        this.current.view.x,
        this.current.view.x + this.current.view.w - widthPx,
      );
      const y = clamp(
        spriteScreenY(floater.yPx, placement, size) - glyph,
        this.current.view.y,
        this.current.view.y + this.current.view.h - glyph,
      );
      // The glyph cells (the last one 8 px wide, past the advance) and the shadow one pixel right and down.
      this.beforeOverlay(x, y, widthPx + 3 * scale, glyph + scale);
      queueText(this.list, floater.text, x, y, floater.colour, true, scale);
    }
    this.flushText();
  }

  /** Draws the queued glyphs from the world's font at its scale. */
  private flushText(): void {
    this.list.flush(this.world.font, this.current.view, SHEET_COLUMNS, TILE_SIZE_PX * this.world.textScale);
  }

  /** Each label on a dark box centred over its entity, kept inside the viewport. */
  private drawLabels(labels: readonly WorldLabel[], placement: ViewportPlacement): void {
    const scale = this.world.textScale;
    const size = this.spritePx;
    const height = LABEL_HEIGHT_PX * scale;
    for (const label of labels) {
      const widthPx = textWidthPx(label.text, scale) + 3 * scale;
      const entityX = spriteScreenX(label.xPx, placement, size);
      const entityY = spriteScreenY(label.yPx, placement, size);
      const x = clamp(
        entityX + size / 2 - Math.floor(widthPx / 2),
        this.current.view.x,
        this.current.view.x + this.current.view.w - widthPx,
      );
      const y = clamp(
        entityY - height - scale,
        this.current.view.y,
        this.current.view.y + this.current.view.h - height,
      );
      this.beforeOverlay(x, y, widthPx, height);
      this.blitter.fillRect(x, y, widthPx, height, P.LABEL_BACKGROUND);
      queueText(this.list, label.text, x + 2 * scale, y + scale, label.colour, false, scale);
    }
    this.flushText();
  }

  private drawBanner(message: string): void {
    const widthPx = Math.min(this.current.view.w - 8, textWidthPx(message) + 8);
    const x = this.current.view.x + Math.floor((this.current.view.w - widthPx) / 2);
    // In the upper third: the player stands at the centre and stays visible.
    const y = this.current.view.y + Math.floor(this.current.view.h / 4) - 8;
    this.beforeOverlay(x, y, widthPx, 16);
    this.blitter.fillRect(x, y, widthPx, 16, P.BANNER_BACKGROUND);
    this.blitter.drawRect(x, y, widthPx, 16, P.BANNER_EDGE);
    queueText(this.list, message, x + 4, y + 4, P.TEXT_WHITE);
    this.list.flush(this.atlas.font, { x: x + 1, y: y + 1, w: widthPx - 2, h: 14 });
  }
}

const LABEL_HEIGHT_PX = 9;
/** The HP bar over a hurt entity: 2 px tall, 1 px above its sprite. */
const HP_BAR_HEIGHT_PX = 2;
const HP_BAR_GAP_PX = 1;

function clamp(value: number, low: number, high: number): number {
  return Math.max(low, Math.min(high, value));
}

/** Whether a w×h rectangle at (x, y) lies wholly inside the viewport (hbar does not clip to it). */
function insideViewport(x: number, y: number, w: number, h: number, view: Rect): boolean {
  return x >= view.x && y >= view.y && x + w <= view.x + view.w && y + h <= view.y + view.h;
}

/** Whether a `size` × `size` cell at (x, y) touches the viewport. */
function onViewport(x: number, y: number, size: number, view: Rect): boolean {
  return x > view.x - size && x < view.x + view.w && y > view.y - size && y < view.y + view.h;
}
