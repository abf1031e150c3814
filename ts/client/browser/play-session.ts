// One game in the page: drives the GameClient every animation frame, feeds it
// keyboard and pointer input, and composes the frame (camera, interpolated
// entities, the own player at its smoothed predicted position, route, HUD).
// The networking core decides what to send; this shell only reads its state.
// Combat (issue 13) shows here: damage numbers and hit flashes (ui/combat-effects.ts),
// HP bars and corpses, click-to-attack, the combat lines of the log, and the death
// screen with its countdown (ui/death-watch.ts), during which input is ignored.
// The message log (issue 18) is a ChannelLog this session owns and shows in the
// page's log panel (ui/log-panel.ts); the social session writes chat into it.
import { markFirstFrame } from "./timing-marks.js";
import type { ConnectionState } from "../core/connection.js";
import type { Outage } from "../core/readout.js";
import type { EntityInfo } from "../core/entity-table.js";
import type { GameClient } from "../core/game-client.js";
import { kindsByTypeId, type NpcKind } from "../core/kinds.js";
import { Camera, type PixelPoint } from "../render/camera.js";
import { InputState, MOVE_NONE, attachKeyboard } from "../input.js";
import { EntityInterpolation } from "../interpolation.js";
import { GlideTiming } from "../glide-timing.js";
import type { CombatNotice } from "../core/combat.js";
import { type DrawnEntity, entitySprites } from "../render/entity-layer.js";
import { spriteCellsOfKinds } from "../render/entity-sprites.js";
import { DrawnLooks } from "../render/drawn-looks.js";
import { KindLooks } from "../render/kind-looks.js";
import { FrameRenderer, type FrameScene, gridViewOf } from "../render/frame.js";
import type { WorldText } from "../render/frame.js";
import { TILE_SIZE_PX } from "../render/layout.js";
import * as P from "../render/palette.js";
import { ambientLevel, clockText, partOfDay } from "../../world-time.js";
import type { WorldClockView } from "../core/world-clock.js";
import { worldTileAt } from "../render/picking.js";
import { weatherCode, weatherFrameAt } from "../render/weather.js";
import { entityLights } from "../render/light.js";
import { UNREACHABLE_NOTE_EVERY_MS, unreachableNote } from "../ui/unreachable-note.js";
import { ClickSteering } from "../ui/click-steering.js";
import { CombatEffects, floaterRisePx } from "../ui/combat-effects.js";
import { combatantOf, combatLogLine, type CombatNames, subjectName } from "../ui/combat-log.js";
import { DeathWatch, deathScreenText } from "../ui/death-watch.js";
import { entityAtTile, foeAtTile } from "../ui/hover.js";
import { isInteractable } from "../core/interaction.js";
import { LogMirror } from "../ui/log-mirror.js";
import { ChannelLog, type LogChannel, type LogView, nextView } from "../ui/log-channels.js";
import { LogPanel } from "../ui/log-panel.js";
import { LogDockView } from "./log-dock-view.js";
import { HudBar } from "../ui/hud-bar.js";
import { creatureLines } from "../ui/creature-list.js";
import { connectionStatus, type StatusLevel } from "../ui/connection-status.js";
import type { DebugOverlay } from "../ui/debug-overlay.js";
import { debugLines } from "../ui/debug-text.js";
import { PresenceWatch } from "../ui/presence.js";
import { experienceGainLine, levelUpLine, progressText } from "../ui/level-words.js";
import { progressShare } from "../core/progress.js";
import type { StatusLine } from "../ui/status-line.js";
import type { CanvasView } from "./canvas-view.js";
import { PointerInput } from "./pointer.js";
import type { FrameLog } from "./frame-log.js";

/** When the page is hidden, animation frames stop; the client must still be driven (keep-alives, acks). */
const BACKGROUND_UPDATE_MS = 100;
/** HP shown before the first own entity update arrives. */
const HP_UNKNOWN = { hp: 0, hpMax: 0 };

/** How the session's own log lines read: plain news, good news, trouble. */
type LogKind = "info" | "good" | "bad";
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
  /** The death screen over the game view: its title, detail and countdown are filled in here. */
  deathScreen?: HTMLElement;
  /** The visually hidden copies of the log: every channel but combat, and the combat lines. */
  logMirror?: HTMLElement;
  combatMirror?: HTMLElement;
  /** The message log panel's element; the session docks it beside or under the view (log-dock-view.ts). */
  logPanel?: HTMLElement;
  /** The view's clip (the box around the canvas), which the log keeps clear of. */
  viewClip?: HTMLElement;
  /** Where the HUD is shown as the page's text when the layout says "bar" (a phone: ui/hud-bar.ts). */
  hudBar?: HTMLElement;
  /** Where every frame's camera and own sprite are recorded (?debug=1: window.cavesFrames); absent: nowhere. */
  frameLog?: FrameLog;
}

export class PlaySession {
  private readonly client: GameClient;
  private readonly input = new InputState();
  private readonly steering = new ClickSteering();
  private readonly pointer: PointerInput;
  private readonly camera = new Camera();
  private readonly glides: GlideTiming;
  private readonly kindCells: ReadonlyMap<number, number>;
  /** Kinds drawn with the map's own art (kind-looks.ts): none for a map with the built-in tiles. */
  private readonly kindLooks: KindLooks;
  private readonly kinds: ReadonlyMap<number, NpcKind>;
  /** What the inline TLVs make of an entity's look (render/drawn-looks.ts). */
  private readonly looks: DrawnLooks;
  private readonly others: EntityInterpolation;
  private readonly ownGlide: EntityInterpolation;
  /** The message log: the session's lines (system), combat's, and chat (the social session adds those). */
  readonly messages = new ChannelLog();
  private readonly panel: LogPanel | null;
  private readonly dock: LogDockView | null;
  private readonly mirrors: LogMirror[] = [];
  private readonly presence = new PresenceWatch();
  private readonly detachKeyboard: () => void;
  private lastEntities: ReadonlyMap<number, EntityInfo> | null = null;
  private lastState: ConnectionState | null = null;
  private lastFrameMs = NaN;
  private lastUpdateMs = -Infinity;
  private framesPerSecond = 0;
  /** Whether the first frame of the world has been marked (timing-marks.ts). */
  private firstFrameMarked = false;
  /** When the page last said why a clicked tile cannot be reached (at most one such line per 1.5 s). */
  private lastUnreachableNoteMs = -Infinity;
  private frameHandle = 0;
  private readonly backgroundTimer: ReturnType<typeof setInterval>;
  private running = true;
  private readonly ownPoint: PixelPoint = { x: 0, y: 0 };
  private readonly otherPoint: PixelPoint = { x: 0, y: 0 };
  private readonly effects = new CombatEffects();
  private readonly deaths = new DeathWatch();
  /** The clock text last put on the canvas (data-clock). */
  private shownClock: string | undefined = undefined;
  /** The level and experience last put on the canvas (data-level, data-xp), by the progress view's revision. */
  private shownProgress = -1;
  /** The own tile drawn last frame: a jump of more than one tile (respawn, teleport) snaps the camera. */
  private lastOwnTile: { x: number; y: number } | null = null;
  private deathShown = "";
  /** Whether the canvas says a click attacks (written only when it changes). */
  private hoverAttacks = false;

  constructor(private readonly parts: PlaySessionParts) {
    this.client = parts.client;
    // A player's glide lasts one movement window at the server's tick rate, the one the client schedules
    // steps by; an NPC's the action interval of its kind (glide-timing.ts).
    this.glides = new GlideTiming(parts.client.tickHz, parts.client.world.kinds);
    this.kindCells = spriteCellsOfKinds(parts.client.world.kinds);
    this.kindLooks = new KindLooks(parts.client.world.kinds, parts.client.world.art?.tileCount ?? 0);
    this.kinds = kindsByTypeId(parts.client.world.kinds);
    this.looks = new DrawnLooks(parts.client.world.items);
    this.others = new EntityInterpolation(this.glides.windowMs, TILE_SIZE_PX, this.glides.measuredBounds);
    this.ownGlide = new EntityInterpolation(this.glides.windowMs);
    this.pointer = new PointerInput(parts.view.canvas, this.steering, undefined, null, () => parts.view.screen);
    if (parts.logMirror) this.mirrors.push(new LogMirror(parts.logMirror, this.messages, NOT_COMBAT));
    if (parts.combatMirror) this.mirrors.push(new LogMirror(parts.combatMirror, this.messages, COMBAT));
    this.panel = parts.logPanel
      ? new LogPanel(
          parts.logPanel,
          this.messages,
          (view) => (parts.view.canvas.dataset.logTab = view),
          browserStorage(),
        )
      : null;
    this.dock = parts.logPanel && parts.viewClip ? new LogDockView(parts.logPanel, parts.view, parts.viewClip) : null;
    if (parts.hudBar) {
      const body = parts.hudBar.ownerDocument.body;
      const bar = new HudBar(parts.hudBar, (heightPx) => body.style.setProperty("--hud-bar-height", `${heightPx}px`));
      parts.renderer.hudSink = (hud) => {
        if (parts.view.layout?.hud === "bar") bar.show(hud);
      };
    }
    this.client.combat.listen((notice) => this.onCombat(notice, performance.now()));
    // A level reached: a line in the log (the own entries say it, so a lost detail does not lose it).
    this.client.progress.listen((level) => this.messages.add("system", levelUpLine(level), P.LEVEL_UP));
    // Experience gained (a kill, a party's share, a quest): a line in the combat log, beside the kill's.
    this.client.progress.listenGains((xp) => this.messages.add("combat", experienceGainLine(xp), P.LEVEL_UP));
    for (const note of parts.notes ?? []) this.note(note, "bad");
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
    if (this.parts.hudBar) this.parts.renderer.hudSink = null;
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
      else if (command === "log-tab") this.panel?.showView(nextView(this.panel.shown));
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
    // The dead do not walk: the server ignores their actions, so none are sent (or predicted).
    const dead = this.deaths.dead;
    if (pressed !== MOVE_NONE && !dead) client.pressAction(pressed);
    client.setHeldAction(dead ? MOVE_NONE : this.input.moveAction());
    this.noteConnection(client.state);
    // The status line counts an outage down (the StatusLine writes only changed text).
    const status = connectionStatus(client.state, client.transportName, this.parts.nick, client.outage(nowMs));
    this.parts.status.set(status.line, status.level);
    if (client.state === "playing") this.noteEntities(nowMs);
    this.showDeath(nowMs);
    // Here rather than per frame: a hidden page gets no frames but must still report.
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
    // The client's clock is performance.now() (rAF's timestamp is the frame's start, slightly earlier).
    const now = performance.now();
    const elapsedMs = Number.isNaN(this.lastFrameMs) ? 0 : now - this.lastFrameMs;
    this.lastFrameMs = now;
    if (elapsedMs > 0) this.framesPerSecond += (1000 / elapsedMs - this.framesPerSecond) * 0.1;
    this.drive(now);

    const client = this.client;
    const own = this.ownPosition(now);
    // A respawn (or any jump of more than a tile) is not walked by the camera: it cuts.
    if (own && this.ownJumped()) this.camera.snapTo(own);
    const camera = own ? this.camera.update(elapsedMs, own) : this.camera.current;
    const cameraPoint = camera ?? { x: 0, y: 0 };
    const placement = this.parts.renderer.place(cameraPoint);
    const cursor = this.pointer.pixel ? worldTileAt(this.pointer.pixel, placement) : null;
    const foe = foeAtTile(client.entities, cursor, client.ownEntityId);
    this.showHover(foe !== null);
    if (this.deaths.dead) this.steering.cancel();
    else if (client.state === "playing" && cursor !== null) {
      const answer = this.steering.frame(
        cursor,
        client,
        (tile) => foeAtTile(client.entities, tile, client.ownEntityId)?.id ?? null,
      );
      // A click on a sign, a notice board or a door is a use (the social session walks beside it), never "can't walk there".
      const uses =
        answer === "unreachable" &&
        isInteractable(entityAtTile(client.entities, cursor, client.ownEntityId) ?? { flags: 0 });
      if (answer === "unreachable" && !uses && now - this.lastUnreachableNoteMs >= UNREACHABLE_NOTE_EVERY_MS) {
        this.lastUnreachableNoteMs = now;
        this.note(unreachableNote(client.sim.getTile(cursor.x, cursor.y), client.world.tiles), "info");
      }
    }
    this.pointer.settle();

    const predicted = client.predicted;
    if (this.parts.frameLog && own && camera && predicted) {
      this.parts.frameLog.add({
        atMs: now,
        cameraX: camera.x,
        cameraY: camera.y,
        ownX: own.x,
        ownY: own.y,
        tileX: predicted.x,
        tileY: predicted.y,
        tileId: client.sim.getTile(predicted.x, predicted.y),
      });
    }
    const scene = this.scene(now, cameraPoint, own, cursor, foe !== null);
    this.parts.renderer.render(scene);
    this.parts.view.present();
    if (!this.firstFrameMarked && own && client.stats.chunksCached > 0) {
      this.firstFrameMarked = true;
      markFirstFrame({ datagramBytesIn: client.stats.bytesIn, chunks: client.stats.chunksCached });
    }
    this.panel?.update(this.parts.view.canvas.clientWidth);
    this.dock?.update(now);
  }

  /** Whether the own drawn tile moved by more than one tile since the last frame. */
  private ownJumped(): boolean {
    const at = this.client.predicted;
    const last = this.lastOwnTile;
    this.lastOwnTile = at ? { x: at.x, y: at.y } : null;
    return at !== null && last !== null && Math.max(Math.abs(at.x - last.x), Math.abs(at.y - last.y)) > 1;
  }

  /** A blow this player took part in: a number over the target, a log line, and a kill of us starts the countdown. */
  private onCombat(notice: CombatNotice, nowMs: number): void {
    const client = this.client;
    const ownId = client.ownEntityId;
    this.effects.notice(notice, ownId, nowMs);
    const sources: CombatNames = { ownId, entities: client.entities, names: client.names, kinds: this.kinds };
    const line = combatLogLine(notice, sources);
    this.messages.add("combat", line.text, line.colour);
    if (notice.kind === "kill" && notice.targetId === ownId) {
      const killer = subjectName(combatantOf(notice.attackerId, sources));
      this.deaths.killed(killer, notice.tick, client.serverTick, client.tickHz, nowMs);
    }
  }

  /** A line of the session's own in the log's system channel. */
  private note(text: string, kind: LogKind): void {
    this.messages.add("system", text, LOG_COLOURS[kind]);
  }

  /** Shows `view` in the log panel (a tab click does the same). */
  showLogView(view: LogView): void {
    this.panel?.showView(view);
  }

  /** PageUp / PageDown scroll the log while the game has the keys (social-session.ts). */
  scrollLog(direction: -1 | 1): void {
    this.panel?.page(direction);
  }

  /** The canvas says what a click there does (CSS shows an attack cursor; tests read it). */
  private showHover(attack: boolean): void {
    if (attack === this.hoverAttacks) return;
    this.hoverAttacks = attack;
    const canvas = this.parts.view.canvas;
    if (attack) canvas.dataset.hover = "attack";
    else delete canvas.dataset.hover;
  }

  /** The death screen follows the own entity's hp; the DOM is written only when its words change. */
  private showDeath(nowMs: number): void {
    const screen = this.parts.deathScreen;
    const state = this.deaths.state(nowMs);
    const words = state.dead ? deathScreenText(state) : null;
    const key = words ? `${words.title}|${words.detail}|${words.countdown}` : "";
    if (screen && key !== this.deathShown) {
      screen.hidden = words === null;
      if (words) {
        for (const [part, text] of Object.entries(words)) {
          const element = screen.querySelector(`[data-part="${part}"]`);
          if (element) element.textContent = text;
        }
      }
    }
    this.deathShown = key;
    for (const mirror of this.mirrors) mirror.show();
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
      this.effects.observe(entities, client.ownEntityId, nowMs);
      const own = entities.get(client.ownEntityId);
      if (own && this.deaths.observe(own.hp, own.hpMax, nowMs)) {
        // Death drops every plan: nothing walks on after the respawn.
        this.steering.cancel();
        client.clearGoal();
      }
    }
    this.presence.update(entities, client.names, client.ownEntityId);
  }

  private noteConnection(state: ConnectionState): void {
    const previous = this.lastState;
    if (state === previous) return;
    this.lastState = state;
    const client = this.client;
    if (state === "playing") {
      const verb = client.stats.reconnects > 0 ? "Reconnected" : "Connected";
      this.note(`${verb} via ${client.transportName}`, "good");
    } else if ((state === "disconnected" || state === "reconnecting") && previous === "playing") {
      this.note(client.lastLoss ? `Connection lost: ${client.lastLoss}` : "Connection lost", "bad");
      this.presence.clear();
      this.steering.cancel();
      this.effects.reset();
      this.deaths.reset();
    }
  }

  private scene(
    nowMs: number,
    camera: PixelPoint,
    own: PixelPoint | null,
    cursor: { x: number; y: number } | null,
    cursorAttacks: boolean,
  ): FrameScene {
    const client = this.client;
    const entities = client.entities;
    const ownId = client.ownEntityId;
    const drawn: DrawnEntity[] = [];
    // The wall clock the map's animated tiles are shown at (tile-animation.ts): a creature in the map's art animates with them.
    const artClockMs = Date.now();
    for (const id of this.others.ids()) {
      const info = entities.get(id);
      const at = this.others.positionAt(id, nowMs, this.otherPoint);
      if (info && at) {
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
    }
    const ownInfo = entities.get(ownId);
    const predicted = client.predicted;
    if (own && predicted) {
      const { typeId, flags, hp, hpMax, meta } = ownInfo ?? { typeId: 0, flags: 0, hp: 0, hpMax: 0, meta: [] };
      drawn.push({
        id: ownId,
        typeId,
        flags,
        tileX: predicted.x,
        tileY: predicted.y,
        xPx: own.x,
        yPx: own.y,
        hp,
        hpMax,
        flash: this.effects.flashing(ownId, nowMs),
        ...this.looks.of(typeId, meta),
      });
    }
    const sprites = entitySprites(drawn, ownId, this.kindCells);
    const floaters = this.floaters(drawn, nowMs);

    const state = client.state;
    const outage = client.outage(nowMs);
    const status = connectionStatus(state, client.transportName, this.parts.nick, outage);
    // The clock as the HUD shows it, also on the canvas (data-clock) for tests and assistive tools; set on change only.
    const clock = clockLine(client.worldClock, client.serverTick);
    if (clock !== this.shownClock) {
      this.shownClock = clock;
      this.parts.view.canvas.dataset.clock = clock ?? "";
    }
    const hp = ownInfo ?? HP_UNKNOWN;
    const progress = client.progress;
    if (progress.revision !== this.shownProgress) {
      // For tests and assistive tools, as the clock: the level and the experience, written on change only.
      this.shownProgress = progress.revision;
      this.parts.view.canvas.dataset.level = progress.level === undefined ? "" : String(progress.level);
      this.parts.view.canvas.dataset.xp = progress.progress === null ? "" : progressText(progress.progress);
    }
    return {
      camera,
      grid: gridViewOf(client.sim),
      entities: sprites,
      pendingSteps: client.inFlight,
      plannedSteps: client.route,
      goal: client.goal,
      cursor,
      cursorAttacks,
      floaters,
      banner: bannerFor(state, own !== null, outage),
      light: client.worldClock.known
        ? ambientLevel(client.worldClock.timeOfDay(client.serverTick), client.worldClock.weather)
        : undefined,
      lights: entityLights(drawn, this.kinds),
      weather: { code: weatherCode(client.worldClock.weather), frame: weatherFrameAt(nowMs) },
      hud: {
        name: this.parts.nick,
        hp: hp.hp,
        hpMax: hp.hpMax,
        ...(progress.level !== undefined ? { level: progress.level } : {}),
        ...(progress.progress !== null ? { levelShare: progressShare(progress.progress) } : {}),
        position: client.confirmed,
        clock,
        status: { text: status.short, colour: STATUS_COLOURS[status.level] },
        nearby: this.presence.present,
        creatures: creatureLines(entities.values(), client.names, this.kinds, client.confirmed),
      },
    };
  }

  /** The floating numbers over the entities drawn this frame, each rising as it ages; several over one entity stack up. */
  private floaters(drawn: readonly DrawnEntity[], nowMs: number): WorldText[] {
    const live = this.effects.floaters(nowMs);
    if (live.length === 0) return [];
    const out: WorldText[] = [];
    const perEntity = new Map<number, number>();
    for (let index = live.length - 1; index >= 0; index--) {
      const floater = live[index];
      const entity = drawn.find((candidate) => candidate.id === floater.entityId);
      if (entity === undefined) continue;
      const above = perEntity.get(floater.entityId) ?? 0;
      perEntity.set(floater.entityId, above + 1);
      out.push({
        xPx: entity.xPx + TILE_SIZE_PX / 2,
        // Over the HP bar, the newest lowest: older numbers have risen further.
        yPx: entity.yPx - 3 - floaterRisePx(floater.bornMs, nowMs) - above * 3,
        text: floater.text,
        colour: floater.colour,
      });
    }
    return out;
  }
}

/** What to say across the game view, if anything: during an outage, when the next try comes. */
function bannerFor(state: ConnectionState, positioned: boolean, outage: Outage): string | null {
  switch (state) {
    case "connecting":
    case "playing":
      return positioned ? null : "Entering the caves...";
    case "disconnected":
      return outage.retryInMs > 0 ? `Reconnecting in ${Math.ceil(outage.retryInMs / 1000)} s...` : "Reconnecting...";
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

/** The HUD's clock: "21:40 night", "14:05 rain" (the weather when the sky is not clear); undefined before the server said. */
function clockLine(clock: WorldClockView, serverTick: number): string | undefined {
  if (!clock.known) return undefined;
  const timeOfDay = clock.timeOfDay(serverTick);
  return `${clockText(timeOfDay)} ${clock.weather === "clear" ? partOfDay(timeOfDay) : clock.weather}`;
}

/** The channels of the page's combat mirror (#combat-log), and of its other one (#log). */
export const COMBAT: ReadonlySet<LogChannel> = new Set(["combat"]);
export const NOT_COMBAT: ReadonlySet<LogChannel> = new Set(["chat", "private", "party", "system", "presence"]);

/** The page's localStorage, or null where reading it throws (storage refused). */
export function browserStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}
