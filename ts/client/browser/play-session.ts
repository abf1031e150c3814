// One game in the page: drives the GameClient every animation frame, feeds it
// keyboard and pointer input, and composes the frame (camera, interpolated
// entities, the own player at its smoothed predicted position, route, HUD).
// The networking core decides what to send; this shell only reads its state.
import type { ConnectionState } from "../core/connection.js";
import type { EntityInfo } from "../core/entity-table.js";
import type { GameClient } from "../core/game-client.js";
import { kindsByTypeId, type NpcKind } from "../core/kinds.js";
import { Camera, placeViewport, type PixelPoint } from "../camera.js";
import { InputState, MOVE_NONE, attachKeyboard } from "../input.js";
import { EntityInterpolation } from "../interpolation.js";
import { GlideTiming } from "../glide-timing.js";
import { type DrawnEntity, entitySprites } from "../render/entity-layer.js";
import { spriteCellsOfKinds } from "../render/entity-sprites.js";
import { FrameRenderer, type FrameScene, gridViewOf } from "../render/frame.js";
import type { HudLine } from "../render/hud.js";
import { TILE_SIZE_PX } from "../render/layout.js";
import * as P from "../render/palette.js";
import { worldTileAt } from "../render/picking.js";
import { UNREACHABLE_NOTE_EVERY_MS, unreachableNote } from "../ui/unreachable-note.js";
import { ClickSteering } from "../ui/click-steering.js";
import { creatureLines } from "../ui/creature-list.js";
import { connectionStatus, type StatusLevel } from "../ui/connection-status.js";
import type { DebugOverlay } from "../ui/debug-overlay.js";
import { debugLines } from "../ui/debug-text.js";
import { type LogKind, MessageLog, PresenceWatch } from "../ui/message-log.js";
import type { StatusLine } from "../ui/status-line.js";
import type { CanvasView } from "./canvas-view.js";
import { PointerInput } from "./pointer.js";

/** When the page is hidden, animation frames stop; the client must still be driven (keep-alives, acks). */
const BACKGROUND_UPDATE_MS = 100;
/** HP shown before the first own entity update arrives. */
const HP_UNKNOWN = { hp: 0, hpMax: 0 };

const LOG_COLOURS: Readonly<Record<LogKind, number>> = { info: P.TEXT_DIM, good: P.TEXT_WHITE, bad: P.TEXT_WARN };
const STATUS_COLOURS: Readonly<Record<StatusLevel, number>> = { ok: P.TEXT_GOOD, busy: P.TEXT_GOLD, bad: P.TEXT_WARN };

export interface PlaySessionParts {
  client: GameClient;
  nick: string;
  renderer: FrameRenderer;
  view: CanvasView;
  debug: DebugOverlay;
  status: StatusLine;
  /** Messages for the log before the first frame (e.g. why the data channel was not used). */
  notes?: readonly string[];
}

export class PlaySession {
  private readonly client: GameClient;
  private readonly input = new InputState();
  private readonly steering = new ClickSteering();
  private readonly pointer: PointerInput;
  private readonly camera = new Camera();
  private readonly glides: GlideTiming;
  private readonly kindCells: ReadonlyMap<number, number>;
  private readonly kinds: ReadonlyMap<number, NpcKind>;
  private readonly others: EntityInterpolation;
  private readonly ownGlide: EntityInterpolation;
  private readonly log = new MessageLog();
  private readonly presence = new PresenceWatch();
  private readonly detachKeyboard: () => void;
  private lastEntities: ReadonlyMap<number, EntityInfo> | null = null;
  private lastState: ConnectionState | null = null;
  private lastFrameMs = NaN;
  private lastUpdateMs = -Infinity;
  private framesPerSecond = 0;
  /** When the page last said why a clicked tile cannot be reached (at most one such line per 1.5 s). */
  private lastUnreachableNoteMs = -Infinity;
  private frameHandle = 0;
  private readonly backgroundTimer: ReturnType<typeof setInterval>;
  private running = true;
  private readonly ownPoint: PixelPoint = { x: 0, y: 0 };
  private readonly otherPoint: PixelPoint = { x: 0, y: 0 };

  constructor(private readonly parts: PlaySessionParts) {
    this.client = parts.client;
    // A player's glide lasts one movement window at the server's tick rate, the one the client schedules
    // steps by; an NPC's the action interval of its kind (glide-timing.ts).
    this.glides = new GlideTiming(parts.client.tickHz, parts.client.world.kinds);
    this.kindCells = spriteCellsOfKinds(parts.client.world.kinds);
    this.kinds = kindsByTypeId(parts.client.world.kinds);
    this.others = new EntityInterpolation(this.glides.windowMs, TILE_SIZE_PX, this.glides.measuredBounds);
    this.ownGlide = new EntityInterpolation(this.glides.windowMs);
    this.pointer = new PointerInput(parts.view.canvas, this.steering);
    for (const note of parts.notes ?? []) this.log.add(note, "bad");
    this.detachKeyboard = attachKeyboard(window, this.input, { isTextEntryActive: isTyping });
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
    this.detachKeyboard();
    this.client.close();
  }

  /** Runs the client and applies input: every frame, and from a timer while frames are paused. */
  private drive(nowMs: number): void {
    const client = this.client;
    this.lastUpdateMs = nowMs;
    client.update(nowMs);
    for (const command of this.input.takeCommands()) {
      if (command === "debug-toggle") this.parts.debug.toggle();
      else if (command === "cancel") {
        this.steering.cancel();
        client.clearGoal();
      }
    }
    if (this.input.takeMovePressed()) {
      // The keyboard overrides click-to-move, even for a tap shorter than a frame.
      this.steering.cancel();
      client.clearGoal();
    }
    // Each key press owes one step, so a tap shorter than a frame (or than a window) still moves.
    const pressed = this.input.takeMovePress();
    if (pressed !== MOVE_NONE) client.pressAction(pressed);
    client.setHeldAction(this.input.moveAction());
    this.noteConnection(client.state);
    if (client.state === "playing") this.noteEntities(nowMs);
    // Here rather than per frame: a hidden page gets no frames but must still report.
    this.parts.debug.refresh(nowMs, () =>
      debugLines(client.stats, { entitiesInView: client.entities.size, framesPerSecond: this.framesPerSecond }),
    );
  }

  private frame(): void {
    if (!this.running) return;
    this.frameHandle = requestAnimationFrame(() => this.frame());
    // The client's clock is performance.now() (rAF's timestamp is the frame's start, slightly earlier).
    const now = performance.now();
    const elapsedMs = Number.isNaN(this.lastFrameMs) ? 0 : now - this.lastFrameMs;
    this.lastFrameMs = now;
    if (elapsedMs > 0) this.framesPerSecond += (1000 / elapsedMs - this.framesPerSecond) * 0.1;
    this.drive(now);

    const client = this.client;
    const own = this.ownPosition(now);
    const camera = own ? this.camera.update(elapsedMs, own) : this.camera.current;
    const cameraPoint = camera ?? { x: 0, y: 0 };
    const placement = placeViewport(cameraPoint);
    const cursor = this.pointer.pixel ? worldTileAt(this.pointer.pixel, placement) : null;
    if (client.state === "playing" && cursor !== null) {
      const answer = this.steering.frame(cursor, client);
      if (answer === "unreachable" && now - this.lastUnreachableNoteMs >= UNREACHABLE_NOTE_EVERY_MS) {
        this.lastUnreachableNoteMs = now;
        this.log.add(unreachableNote(client.sim.getTile(cursor.x, cursor.y), client.world.tiles), "info");
      }
    }

    this.parts.renderer.render(this.scene(now, cameraPoint, own, cursor));
    this.parts.view.present();
  }

  /** The own player's drawn position: the predicted tile, glided like everyone else's. */
  private ownPosition(nowMs: number): PixelPoint | null {
    const predicted = this.client.predicted;
    const id = this.client.ownEntityId;
    this.ownGlide.beginUpdate();
    if (predicted) this.ownGlide.setTile(id, predicted.x, predicted.y, nowMs);
    this.ownGlide.endUpdate();
    return predicted ? this.ownGlide.positionAt(id, nowMs, this.ownPoint)! : null;
  }

  private noteEntities(nowMs: number): void {
    const client = this.client;
    const entities = client.entities;
    if (entities !== this.lastEntities) {
      // A new update was adopted (an unchanged one keeps the same map).
      this.lastEntities = entities;
      this.others.beginUpdate();
      for (const entity of entities.values()) {
        if (entity.id === client.ownEntityId) continue;
        this.others.setTile(entity.id, entity.x, entity.y, nowMs, this.glides.glideFor(entity.typeId));
      }
      this.others.endUpdate();
    }
    for (const message of this.presence.update(entities, client.names, client.ownEntityId)) {
      this.log.add(message.text, message.kind);
    }
  }

  private noteConnection(state: ConnectionState): void {
    const previous = this.lastState;
    if (state === previous) return;
    this.lastState = state;
    const client = this.client;
    const status = connectionStatus(state, client.transportName, this.parts.nick);
    this.parts.status.set(status.line, status.level);
    if (state === "playing") {
      const verb = client.stats.reconnects > 0 ? "Reconnected" : "Connected";
      this.log.add(`${verb} via ${client.transportName}`, "good");
    } else if ((state === "disconnected" || state === "reconnecting") && previous === "playing") {
      this.log.add(client.lastLoss ? `Connection lost: ${client.lastLoss}` : "Connection lost", "bad");
      this.presence.clear();
      this.steering.cancel();
    }
  }

  private scene(
    nowMs: number,
    camera: PixelPoint,
    own: PixelPoint | null,
    cursor: { x: number; y: number } | null,
  ): FrameScene {
    const client = this.client;
    const entities = client.entities;
    const ownId = client.ownEntityId;
    const drawn: DrawnEntity[] = [];
    for (const id of this.others.ids()) {
      const info = entities.get(id);
      const at = this.others.positionAt(id, nowMs, this.otherPoint);
      if (info && at) {
        drawn.push({ id, typeId: info.typeId, flags: info.flags, tileX: info.x, tileY: info.y, xPx: at.x, yPx: at.y });
      }
    }
    const ownInfo = entities.get(ownId);
    const predicted = client.predicted;
    if (own && predicted) {
      const { typeId, flags } = ownInfo ?? { typeId: 0, flags: 0 };
      drawn.push({ id: ownId, typeId, flags, tileX: predicted.x, tileY: predicted.y, xPx: own.x, yPx: own.y });
    }
    const sprites = entitySprites(drawn, ownId, this.kindCells);

    const state = client.state;
    const status = connectionStatus(state, client.transportName, this.parts.nick);
    const log: HudLine[] = this.log.entries.map((entry) => ({ text: entry.text, colour: LOG_COLOURS[entry.kind] }));
    const hp = ownInfo ?? HP_UNKNOWN;
    return {
      camera,
      grid: gridViewOf(client.sim),
      entities: sprites,
      pendingSteps: client.inFlight,
      plannedSteps: client.route,
      goal: client.goal,
      cursor,
      banner: bannerFor(state, own !== null),
      hud: {
        name: this.parts.nick,
        hp: hp.hp,
        hpMax: hp.hpMax,
        position: client.confirmed,
        status: { text: status.short, colour: STATUS_COLOURS[status.level] },
        nearby: this.presence.present,
        creatures: creatureLines(entities.values(), client.names, this.kinds, client.confirmed),
        log,
      },
    };
  }
}

/** What to say across the game view, if anything. */
function bannerFor(state: ConnectionState, positioned: boolean): string | null {
  switch (state) {
    case "connecting":
    case "playing":
      return positioned ? null : "Entering the caves...";
    case "disconnected":
    case "reconnecting":
      return "Reconnecting...";
    case "closed":
      return "Disconnected";
  }
}

/** Keys belong to a text field while one has focus. */
function isTyping(): boolean {
  const active = document.activeElement;
  return active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement;
}
