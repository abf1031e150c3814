// Watching the live world as a spectator (issue 40; docs/client.md § Spectating): the page at
// /?spectate drives a GameClient on a session with no body and draws what it is sent through the
// normal renderer — tiles, sprites, looks, names over heads, HP bars and damage numbers, the day's
// light and the weather — around a free camera. Arrow keys or WASD pan it, a drag pans it, a click
// on a creature or a player follows it (the server keeps the camera on it: CameraFeed), Esc lets go.
// The panel says what is watched, never a body's HP. It hears what a player at the camera would: the
// public chat lines and the blows near the camera (damage numbers, the combat log, the followed one's
// hits heard: spectator-log.ts, ui/sound-cues.ts). No chat of its own, no items, no steps: a spectator
// acts in nothing (docs/server.md § Spectators).
import type { CameraFeed } from "../core/camera-feed.js";
import type { EntityInfo } from "../core/entity-table.js";
import type { GameClient } from "../core/game-client.js";
import { kindsByTypeId, type NpcKind } from "../core/kinds.js";
import { levelOfMeta } from "../core/progress.js";
import { ENTITY_TYPE_PLAYER } from "../../entity-types.js";
import { GlideTiming } from "../glide-timing.js";
import { EntityInterpolation } from "../interpolation.js";
import { Camera, type PixelPoint } from "../render/camera.js";
import { DrawnLooks } from "../render/drawn-looks.js";
import { type DrawnEntity, entitySprites } from "../render/entity-layer.js";
import { spriteCellsOfKinds } from "../render/entity-sprites.js";
import { type FrameRenderer, type FrameScene, gridViewOf, type WorldLabel } from "../render/frame.js";
import { KindLooks } from "../render/kind-looks.js";
import { TILE_SIZE_PX } from "../render/layout.js";
import { entityLights } from "../render/light.js";
import { type NameTagCandidate, nameTagText, placeNameTags } from "../render/name-tags.js";
import * as P from "../render/palette.js";
import { framebufferPixelAt, type Point, worldTileAt } from "../render/picking.js";
import { weatherCode, weatherFrameAt } from "../render/weather.js";
import { ambientLevel, clockText, partOfDay } from "../../world-time.js";
import { foldForFont } from "../ui/chat-log.js";
import { CombatEffects, floaterRisePx } from "../ui/combat-effects.js";
import type { CueListener } from "../ui/sound-cues.js";
import { connectionStatus, type StatusLevel } from "../ui/connection-status.js";
import { creatureLines } from "../ui/creature-list.js";
import type { DebugOverlay } from "../ui/debug-overlay.js";
import { debugLines } from "../ui/debug-text.js";
import { entityAtTile, labelOver } from "../ui/hover.js";
import type { StatusLine } from "../ui/status-line.js";
import type { CanvasView } from "./canvas-view.js";
import { SpectatorLog, type SpectatorLogParts } from "./spectator-log.js";

/** How fast the keys pan the free camera, in tiles a second. */
export const PAN_TILES_PER_SECOND = 12;
/** A followed entity out of view this long (while updates come) is let go: the camera stands free. */
const FOLLOW_GRACE_MS = 1500;
/** A press that moves less than this many framebuffer pixels before it is let go is a click, not a drag. */
const CLICK_SLOP_PX = 3;
/** When the page is hidden, animation frames stop; the client must still be driven (keep-alives, acks). */
const BACKGROUND_UPDATE_MS = 100;
/**
 * How long a camera told to follow an entity from the start (the console's Follow) waits for that entity to
 * come into view before it gives up and stands free: long enough for a join on a slow link, short enough
 * that one which left the world meanwhile does not leave the page claiming to follow it.
 */
export const FOLLOW_WAIT_MS = 5000;
const STATUS_COLOURS: Readonly<Record<StatusLevel, number>> = { ok: P.TEXT_GOOD, busy: P.TEXT_GOLD, bad: P.TEXT_WARN };
/** The keys that pan, as (dx, dy) in tiles. */
const PAN_KEYS: Readonly<Record<string, readonly [number, number]>> = {
  ArrowUp: [0, -1],
  ArrowDown: [0, 1],
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  KeyW: [0, -1],
  KeyS: [0, 1],
  KeyA: [-1, 0],
  KeyD: [1, 0],
};

export interface SpectateParts {
  client: GameClient;
  /** Where the camera's aim goes to the server. */
  feed: CameraFeed;
  /** The tile the server put the camera at when the spectator joined. */
  start: { x: number; y: number };
  /**
   * An entity to follow from the start (the operators' console's Follow, `/?spectate&follow=ID`): the server
   * is told at once, and the camera takes it up when it comes into view (FOLLOW_WAIT_MS at most).
   */
  follow?: number;
  renderer: FrameRenderer;
  view: CanvasView;
  debug: DebugOverlay;
  status: StatusLine;
  /** Where the lines it hears and the blows it sees are written (absent: nowhere). */
  log?: SpectatorLogParts;
}

export class SpectateSession {
  private readonly client: GameClient;
  private readonly glides: GlideTiming;
  private readonly entities: EntityInterpolation;
  private readonly kindCells: ReadonlyMap<number, number>;
  private readonly kindLooks: KindLooks;
  private readonly kinds: ReadonlyMap<number, NpcKind>;
  private readonly looks: DrawnLooks;
  private readonly effects = new CombatEffects();
  /** The public lines heard and the blows seen, in the message log. */
  readonly log: SpectatorLog;
  /** The smoothed camera while it follows; a free camera is where the keys and drags put it. */
  private readonly followCamera = new Camera();
  /** The camera's centre, in world pixels (tile × 8 is a tile's top-left). */
  private camera: PixelPoint;
  private followId = 0;
  /** While following from the start: until when the entity may take to come into view (performance.now ms). */
  private awaitFollowUntilMs = -Infinity;
  private readonly held = new Set<string>();
  private press: { start: Point; last: Point; dragged: boolean } | null = null;
  private lastEntities: ReadonlyMap<number, EntityInfo> | null = null;
  private lastFrameMs = NaN;
  private lastUpdateMs = -Infinity;
  private framesPerSecond = 0;
  private frameHandle = 0;
  private running = true;
  private readonly backgroundTimer: ReturnType<typeof setInterval>;
  private readonly point: PixelPoint = { x: 0, y: 0 };
  private readonly detach: (() => void)[] = [];
  /** What the canvas last said of the camera (data-camera, data-following), written on change only. */
  private shown = "";
  private heldStill = false;
  /** When the followed entity was last in view (or the follow began). */
  private followSeenMs = 0;

  constructor(private readonly parts: SpectateParts) {
    const client = (this.client = parts.client);
    this.glides = new GlideTiming(client.tickHz, client.world.kinds);
    this.entities = new EntityInterpolation(this.glides.windowMs, TILE_SIZE_PX, this.glides.measuredBounds);
    this.kindCells = spriteCellsOfKinds(client.world.kinds);
    this.kindLooks = new KindLooks(client.world.kinds, client.world.art?.tileCount ?? 0);
    this.kinds = kindsByTypeId(client.world.kinds);
    this.looks = new DrawnLooks(client.world.items);
    this.camera = { x: parts.start.x * TILE_SIZE_PX, y: parts.start.y * TILE_SIZE_PX };
    if (parts.follow !== undefined && parts.follow > 0) {
      // Following from the start: the server moves the camera to the entity on its first CameraPacket, so its
      // chunks and neighbours are sent from there; the page's camera snaps to it when it arrives.
      this.followId = parts.follow;
      this.awaitFollowUntilMs = performance.now() + FOLLOW_WAIT_MS;
      parts.feed.follow(parts.follow, parts.start.x, parts.start.y);
    } else {
      parts.feed.aim(parts.start.x, parts.start.y);
    }
    this.log = new SpectatorLog(client, this.kinds, parts.view, parts.log ?? {});
    // The blows near the camera, told by the server: their numbers (a miss too) and their sentences.
    this.detach.push(
      client.combat.listen((notice) => {
        this.effects.notice(notice, 0, performance.now());
        this.log.blow(notice);
      }),
    );
    this.listen();
    this.frameHandle = requestAnimationFrame(() => this.frame());
    this.backgroundTimer = setInterval(() => {
      const nowMs = performance.now();
      if (nowMs - this.lastUpdateMs >= BACKGROUND_UPDATE_MS) this.drive(nowMs);
    }, BACKGROUND_UPDATE_MS);
    parts.view.canvas.focus();
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    cancelAnimationFrame(this.frameHandle);
    clearInterval(this.backgroundTimer);
    for (const undo of this.detach) undo();
    this.log.stop();
    this.client.close();
  }

  /**
   * Follows entity `entityId`, in view or standing at `at` (a replay's list of players names where each
   * is); the server keeps the camera on it from now on.
   */
  follow(entityId: number, at?: { x: number; y: number }): void {
    const entity = this.client.entities.get(entityId) ?? at;
    if (entity === undefined) return;
    this.followId = entityId;
    this.followSeenMs = performance.now();
    if (this.client.entities.has(entityId)) {
      this.followCamera.snapTo(this.camera);
    } else {
      // Far away: the camera jumps there (the entity comes into view with the next update).
      this.camera = { x: entity.x * TILE_SIZE_PX, y: entity.y * TILE_SIZE_PX };
      this.followCamera.snapTo(this.camera);
    }
    this.parts.feed.follow(entityId, entity.x, entity.y);
  }

  /** Where a spectator's sounds are heard from (ui/sound-cues.ts): the followed entity's steps, the camera's doors. */
  readonly listener: CueListener = {
    walker: () => {
      const followed = this.followId === 0 ? undefined : this.client.entities.get(this.followId);
      return followed === undefined ? null : { x: followed.x, y: followed.y };
    },
    ear: () => this.cameraTile,
    // The followed one's blows; while free, every blow told (the server tells those near the camera).
    hearsBlow: (attackerId, targetId) =>
      this.followId === 0 || attackerId === this.followId || targetId === this.followId,
  };

  /** The tile the camera looks at. */
  get cameraTile(): { x: number; y: number } {
    return { x: Math.round(this.camera.x / TILE_SIZE_PX), y: Math.round(this.camera.y / TILE_SIZE_PX) };
  }

  /** The entity the camera follows, or 0 while it is free. */
  get following(): number {
    return this.followId;
  }

  /**
   * Whether the world is held still on purpose (a replay paused or seeking): the silence is no outage,
   * and the status line does not count down to a reconnect.
   */
  set worldHeld(held: boolean) {
    this.heldStill = held;
  }

  /** Lets the followed entity go: the camera stays where it is, free. */
  free(): void {
    this.followId = 0;
    this.awaitFollowUntilMs = -Infinity;
    this.parts.feed.aim(this.camera.x / TILE_SIZE_PX, this.camera.y / TILE_SIZE_PX);
  }

  private listen(): void {
    const canvas = this.parts.view.canvas;
    const on = <K extends keyof HTMLElementEventMap>(
      target: HTMLElement | Window,
      type: K,
      handler: (event: HTMLElementEventMap[K]) => void,
    ) => {
      target.addEventListener(type, handler as EventListener);
      this.detach.push(() => target.removeEventListener(type, handler as EventListener));
    };
    on(window, "keydown", (event) => {
      if (event.code === "Escape") return this.free();
      if (event.code === "F3") {
        event.preventDefault();
        return this.parts.debug.toggle();
      }
      if (PAN_KEYS[event.code] === undefined) return;
      event.preventDefault();
      this.held.add(event.code);
      // Panning by hand lets the followed entity go.
      if (this.followId !== 0) this.free();
    });
    on(window, "keyup", (event) => this.held.delete(event.code));
    on(window, "blur", () => this.held.clear());
    on(canvas, "pointerdown", (event) => {
      if (event.button !== 0) return;
      const pixel = this.pixelOf(event);
      if (pixel === null) return;
      event.preventDefault();
      canvas.setPointerCapture(event.pointerId);
      this.press = { start: pixel, last: pixel, dragged: false };
    });
    on(canvas, "pointermove", (event) => {
      const press = this.press;
      const pixel = press === null ? null : this.pixelOf(event);
      if (press === null || pixel === null) return;
      if (Math.max(Math.abs(pixel.x - press.start.x), Math.abs(pixel.y - press.start.y)) > CLICK_SLOP_PX) {
        if (!press.dragged && this.followId !== 0) this.free();
        press.dragged = true;
      }
      if (press.dragged) {
        // The world moves with the pointer: the camera the other way, in world pixels.
        const scale = TILE_SIZE_PX / this.parts.renderer.place(this.camera).tileSizePx;
        this.camera = {
          x: this.camera.x - (pixel.x - press.last.x) * scale,
          y: this.camera.y - (pixel.y - press.last.y) * scale,
        };
      }
      press.last = pixel;
    });
    on(canvas, "pointerup", (event) => {
      const press = this.press;
      this.press = null;
      if (press === null || press.dragged) return;
      const pixel = this.pixelOf(event) ?? press.start;
      const tile = worldTileAt(pixel, this.parts.renderer.place(this.camera));
      const entity = entityAtTile(this.client.entities, tile, 0);
      if (entity !== null) this.follow(entity.id);
    });
    on(canvas, "pointercancel", () => (this.press = null));
    on(canvas, "contextmenu", (event) => event.preventDefault());
  }

  private pixelOf(event: PointerEvent): Point | null {
    const canvas = this.parts.view.canvas;
    return framebufferPixelAt(event.clientX, event.clientY, canvas.getBoundingClientRect(), this.parts.view.screen);
  }

  /** Runs the client, the camera's feed and the status line: every frame, and from a timer while frames are paused. */
  private drive(nowMs: number): void {
    const client = this.client;
    this.lastUpdateMs = nowMs;
    client.update(nowMs);
    this.parts.feed.update(nowMs);
    this.log.update(nowMs);
    const outage = this.heldStill ? undefined : client.outage(nowMs);
    const status = connectionStatus(client.state, client.transportName, "a spectator", outage, true);
    this.parts.status.set(status.line, status.level);
    this.parts.debug.refresh(nowMs, () =>
      debugLines(client.stats, {
        entitiesInView: client.entities.size,
        framesPerSecond: this.framesPerSecond,
        floats: { total: this.effects.floated, live: this.effects.floaters(nowMs).map((floater) => floater.text) },
      }),
    );
  }

  private frame(): void {
    if (!this.running) return;
    this.frameHandle = requestAnimationFrame(() => this.frame());
    const now = performance.now();
    const elapsedMs = Number.isNaN(this.lastFrameMs) ? 0 : now - this.lastFrameMs;
    this.lastFrameMs = now;
    if (elapsedMs > 0) this.framesPerSecond += (1000 / elapsedMs - this.framesPerSecond) * 0.1;
    this.drive(now);
    this.noteEntities(now);
    this.moveCamera(now, elapsedMs);
    this.parts.renderer.render(this.scene(now));
    this.parts.view.present();
  }

  /** The followed entity's glide, or the keys' pan; a free camera's tile goes to the server. */
  private moveCamera(nowMs: number, elapsedMs: number): void {
    if (this.followId !== 0) {
      const at = this.entities.positionAt(this.followId, nowMs, this.point);
      if (at !== undefined) {
        this.followSeenMs = nowMs;
        if (this.awaitFollowUntilMs !== -Infinity) {
          // The entity followed from the start is in view: the camera starts on it, not gliding across the map.
          this.awaitFollowUntilMs = -Infinity;
          this.followCamera.snapTo(at);
        }
        this.camera = { ...this.followCamera.update(elapsedMs, at) };
        return;
      }
      // Not in view yet (the first states are on their way): wait for it, for a while.
      if (nowMs < this.awaitFollowUntilMs) return;
      // Gone from view (left the world, or the server let go) for a while — not just followed from afar
      // and not yet sent, nor a held replay's or a new session's first moments: the camera stays, free.
      const gone = !this.client.entities.has(this.followId) && nowMs - this.followSeenMs > FOLLOW_GRACE_MS;
      if (gone && this.client.state === "playing" && !this.heldStill) this.free();
      return;
    }
    let dx = 0;
    let dy = 0;
    for (const code of this.held) {
      dx += PAN_KEYS[code][0];
      dy += PAN_KEYS[code][1];
    }
    if (dx !== 0 || dy !== 0) {
      const step = (PAN_TILES_PER_SECOND * TILE_SIZE_PX * Math.min(elapsedMs, 100)) / 1000;
      this.camera = { x: this.camera.x + Math.sign(dx) * step, y: this.camera.y + Math.sign(dy) * step };
    }
    // Kept on the map: its edge tiles may be looked at, never beyond.
    const world = this.client.world;
    this.camera = {
      x: Math.min(Math.max(this.camera.x, 0), (world.mapWidth - 1) * TILE_SIZE_PX),
      y: Math.min(Math.max(this.camera.y, 0), (world.mapHeight - 1) * TILE_SIZE_PX),
    };
    this.parts.feed.aim(this.camera.x / TILE_SIZE_PX, this.camera.y / TILE_SIZE_PX);
  }

  private noteEntities(nowMs: number): void {
    const entities = this.client.entities;
    if (entities === this.lastEntities) return;
    // A new update was adopted (an unchanged one keeps the same map).
    this.lastEntities = entities;
    this.entities.beginUpdate();
    for (const entity of entities.values()) {
      this.entities.setTile(entity.id, entity.x, entity.y, nowMs, this.glides.glideFor(entity.typeId));
    }
    this.entities.endUpdate();
    // Damage numbers from the HP bars too: a blow whose CombatPacket was lost (cosmetic, never re-sent) still floats.
    this.effects.observe(entities, 0, nowMs);
  }

  private scene(nowMs: number): FrameScene {
    const client = this.client;
    const entities = client.entities;
    const drawn: DrawnEntity[] = [];
    const artClockMs = Date.now();
    for (const id of this.entities.ids()) {
      const info = entities.get(id);
      const at = this.entities.positionAt(id, nowMs, this.point);
      if (info === undefined || at === undefined) continue;
      drawn.push({
        id,
        typeId: info.typeId,
        flags: info.flags,
        tileX: info.x,
        tileY: info.y,
        xPx: at.x,
        yPx: at.y,
        hp: info.hp,
        hpMax: info.hpMax,
        flash: this.effects.flashing(id, nowMs),
        ...this.looks.of(info.typeId, info.meta),
        ...(this.kindLooks.size > 0 ? { mapLook: this.kindLooks.at(info.typeId, artClockMs) } : {}),
      });
    }
    const sprites = entitySprites(drawn, 0, this.kindCells);
    const cameraTile = { x: Math.round(this.camera.x / TILE_SIZE_PX), y: Math.round(this.camera.y / TILE_SIZE_PX) };
    const followed = this.followId === 0 ? undefined : client.names.get(this.followId);
    const clock = client.worldClock.known
      ? clockLine(client.worldClock.timeOfDay(client.serverTick), client.worldClock.weather)
      : undefined;
    const status = connectionStatus(client.state, client.transportName, "a spectator", client.outage(nowMs), true);
    const nearby: string[] = [];
    for (const entity of entities.values()) {
      const name = client.names.get(entity.id);
      if (entity.typeId === ENTITY_TYPE_PLAYER && name !== undefined) nearby.push(foldForFont(name));
    }
    this.showCamera(cameraTile);
    const scene: FrameScene = {
      camera: this.camera,
      grid: gridViewOf(client.sim),
      entities: sprites,
      pendingSteps: [],
      plannedSteps: [],
      goal: null,
      cursor: null,
      labels: this.nameTags(sprites),
      floaters: this.floaters(drawn, nowMs),
      banner:
        client.state === "playing" ? null : client.state === "connecting" ? "Opening the view..." : "Reconnecting...",
      light: client.worldClock.known
        ? ambientLevel(client.worldClock.timeOfDay(client.serverTick), client.worldClock.weather)
        : undefined,
      lights: entityLights(drawn, this.kinds),
      weather: { code: weatherCode(client.worldClock.weather), frame: weatherFrameAt(nowMs) },
      hud: {
        name: followed === undefined ? "Spectating" : foldForFont(`> ${followed}`),
        hp: 0,
        hpMax: 0,
        spectating: true,
        position: cameraTile,
        clock,
        status: { text: status.short, colour: STATUS_COLOURS[status.level] },
        nearby,
        creatures: creatureLines(entities.values(), client.names, this.kinds, cameraTile),
      },
    };
    return scene;
  }

  /** The names over the players in view, placed as a player's page places them. */
  private nameTags(sprites: FrameScene["entities"]): WorldLabel[] {
    const client = this.client;
    const centre = { x: this.camera.x / TILE_SIZE_PX, y: this.camera.y / TILE_SIZE_PX };
    const candidates: NameTagCandidate[] = [];
    for (const entity of client.entities.values()) {
      const name = client.names.get(entity.id);
      if (entity.typeId !== ENTITY_TYPE_PLAYER || name === undefined) continue;
      const colour = entity.id === this.followId ? P.NAME_TAG_OWN : P.NAME_TAG;
      const text = nameTagText(foldForFont(name), levelOfMeta(entity.meta));
      const distance = Math.max(Math.abs(entity.x - centre.x), Math.abs(entity.y - centre.y));
      candidates.push({ label: labelOver(entity, text, colour, sprites), distance });
    }
    const renderer = this.parts.renderer;
    const tileSizePx = renderer.place(this.camera).tileSizePx;
    const placed = placeNameTags(candidates, (renderer.worldSheets.textScale * TILE_SIZE_PX) / tileSizePx);
    this.parts.view.canvas.dataset.nameTagsShown = placed.map((label) => label.text).join("|");
    return placed;
  }

  /** The damage numbers over the entities drawn this frame, each rising as it ages. */
  private floaters(drawn: readonly DrawnEntity[], nowMs: number): FrameScene["floaters"] {
    const out = [];
    for (const floater of this.effects.floaters(nowMs)) {
      const entity = drawn.find((candidate) => candidate.id === floater.entityId);
      if (entity === undefined) continue;
      out.push({
        xPx: entity.xPx + TILE_SIZE_PX / 2,
        yPx: entity.yPx - 3 - floaterRisePx(floater.bornMs, nowMs),
        text: floater.text,
        colour: floater.colour,
      });
    }
    return out;
  }

  /** The camera's tile and whom it follows, on the canvas for tests and assistive tools (data-camera, data-following). */
  private showCamera(tile: { x: number; y: number }): void {
    const shown = `${tile.x},${tile.y}|${this.followId}`;
    if (shown === this.shown) return;
    this.shown = shown;
    const data = this.parts.view.canvas.dataset;
    data.camera = `${tile.x},${tile.y}`;
    data.following = this.followId === 0 ? "" : String(this.followId);
  }
}

/** The HUD's clock, as a player's page writes it: "21:40 night", "14:05 rain". */
function clockLine(timeOfDay: number, weather: string): string {
  return `${clockText(timeOfDay)} ${weather === "clear" ? partOfDay(timeOfDay) : weather}`;
}
