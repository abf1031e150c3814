// Chat, dialogs, names on hover and the interaction trigger in the page, layered
// on a running play session (docs/client.md § Chat, dialogs and names). The play
// session drives the GameClient — whose update() also runs chat and dialog
// re-sends — and composes each frame; this adds to that frame through the
// renderer's scene hook, once per drawn frame and after the session's input and
// steering: it writes chat into the message log's channels (ui/log-channels.ts), labels the entity
// under the pointer with its name and interactables within reach with a prompt,
// starts interactions, and keeps the HTML dialogs in step with the core's.
//
// Keys: Enter opens the chat box, E uses the sign, notice board or door within reach,
// Escape dismisses the newest dialog. They count only while the game has the
// focus (the canvas or nothing); in a text field every key is the field's.
import type { Rgb332Image } from "../assets/image.js";
import { FB_HEIGHT, FB_WIDTH } from "../../constants.js";
import type { GameClient } from "../core/game-client.js";
import { ENTITY_TYPE_DOOR, ENTITY_TYPE_PLAYER } from "../../entity-types.js";
import { chebyshev, INTERACT_REACH_TILES, isInteractable } from "../core/interaction.js";
import { KEY_BINDINGS } from "../input.js";
import type { FrameRenderer, FrameScene, WorldLabel } from "../render/frame.js";
import * as P from "../render/palette.js";
import { framebufferPixelAt, type Point, worldTileAt } from "../render/picking.js";
import { PlayerMenu } from "./player-menu.js";
import { ChatBox } from "./chat-box.js";
import { chatLogLine, foldForFont } from "./chat-log.js";
import { type ChannelLog, chatEventChannel } from "./log-channels.js";
import { DialogLayer } from "./dialog-layer.js";
import { shownPart } from "./dialog-layout.js";
import { TILE_SIZE_PX } from "../render/layout.js";
import { kindsByTypeId, type NpcKind } from "../core/kinds.js";
import { entityAtTile, HOVER_COLOUR, hoverText, INTERACT_PROMPT, labelOver, PROMPT_COLOUR } from "./hover.js";
import { MARK_HAND_IN } from "../core/quests.js";
import { type IntentOutcome, InteractIntent, interactablesNear } from "./interact-intent.js";
import {
  type NameTagCandidate,
  nameTagsWanted,
  nameTagText,
  placeNameTags,
  rememberNameTags,
} from "../render/name-tags.js";
import { levelOfMeta } from "../core/progress.js";
import { TileImages } from "./tile-images.js";

export interface SocialParts {
  client: GameClient;
  renderer: FrameRenderer;
  canvas: HTMLCanvasElement;
  /** The chat box: its form, field and the note beside it (count, refusals). */
  chatForm: HTMLFormElement;
  chatInput: HTMLInputElement;
  chatNote: HTMLElement;
  /** Where dialogs go: a layer over the canvas, the same size. */
  dialogLayer: HTMLElement;
  /** The message log (the play session's): chat goes into its channels. */
  log: ChannelLog;
  /** PageUp / PageDown while the game has the keys: the log scrolls. */
  scrollLog?: (direction: -1 | 1) => void;
  /** The tile sheet, for dialog images. */
  tiles: Rgb332Image;
}

/** What an interaction that did not happen tells the player; null for silence. */
const INTENT_NOTES: Partial<Record<IntentOutcome, string>> = {
  unreachable: "There is no way to get next to that.",
  "too-far": "Nothing to use within reach. Walk next to a sign or a door and press E, or click it.",
  "timed-out": "Gave up walking there.",
};

export class SocialSession {
  private readonly client: GameClient;
  private readonly chatBox: ChatBox;
  private readonly dialogs: DialogLayer;
  private readonly intent = new InteractIntent();
  private readonly kinds: ReadonlyMap<number, NpcKind>;
  private pointer: Point | null = null;
  private click: Point | null = null;
  /** Where on the page the last click was (the player menu opens there). */
  private clickAt = { x: 0, y: 0 };
  /** Tell, invite, trade: what a click on another player offers (issue 39). */
  private readonly playerMenu: PlayerMenu;
  private readonly detach: (() => void)[] = [];
  /** Names over heads (N toggles; remembered in localStorage). */
  private nameTags: boolean;
  /** The names drawn over heads last frame, joined (the canvas's data-name-tags, for tests and tools). */
  private shownTags = "";

  constructor(private readonly parts: SocialParts) {
    const client = parts.client;
    this.client = client;
    this.kinds = kindsByTypeId(client.world.kinds);
    const doc = parts.canvas.ownerDocument;
    this.nameTags = nameTagsWanted(storageOf(doc));
    parts.canvas.dataset.nameTags = this.nameTags ? "on" : "off";
    this.chatBox = new ChatBox(
      parts.chatForm,
      parts.chatInput,
      parts.chatNote,
      (text) => client.postChat(text),
      parts.canvas,
    );
    this.dialogs = new DialogLayer(
      parts.dialogLayer,
      new TileImages(doc, parts.tiles),
      {
        reply: (id, returnCode, values) => {
          try {
            client.replyDialog(id, returnCode, values);
          } catch (error) {
            this.note(`That answer does not fit: ${error instanceof Error ? error.message : String(error)}`, true);
          }
        },
        dismiss: (id) => client.dismissDialog(id),
      },
      parts.canvas,
    );
    this.detach.push(
      client.chat.listen((event) => {
        const line = chatLogLine(event, client.names);
        parts.log.add(chatEventChannel(event), line.text, line.colour);
      }),
    );
    this.on(doc.defaultView!, "keydown", (event) => this.key(event as KeyboardEvent));
    this.on(parts.canvas, "pointermove", (event) => this.track(event as PointerEvent));
    this.on(parts.canvas, "pointerleave", () => (this.pointer = null));
    this.on(parts.canvas, "pointerdown", (event) => {
      const pointer = event as PointerEvent;
      if (pointer.button !== 0) return;
      this.track(pointer);
      this.click = this.pointer;
      this.clickAt = { x: pointer.clientX, y: pointer.clientY };
    });
    this.playerMenu = new PlayerMenu(doc, {
      post: (line) => void client.postChat(line),
      draft: (line) => this.draft(line),
    });
    parts.renderer.sceneHook = (scene) => this.frame(scene);
  }

  /** Opens the chat box with `draft` typed (a command to finish: "/tell Ada "). */
  draft(text: string): void {
    this.chatBox.openWith(text);
  }

  stop(): void {
    if (this.parts.renderer.sceneHook) this.parts.renderer.sceneHook = null;
    for (const undo of this.detach.splice(0)) undo();
    this.playerMenu.remove();
    this.chatBox.close(false);
    this.dialogs.sync(new Map());
  }

  private on(target: EventTarget, type: string, listener: (event: Event) => void): void {
    target.addEventListener(type, listener);
    this.detach.push(() => target.removeEventListener(type, listener));
  }

  private track(event: PointerEvent): void {
    this.pointer = framebufferPixelAt(event.clientX, event.clientY, this.parts.canvas.getBoundingClientRect());
  }

  /** Keys for the game view only: with a text field or a dialog button focused they are the field's. */
  private key(event: KeyboardEvent): void {
    if (event.ctrlKey || event.metaKey || event.altKey || !this.gameHasFocus()) return;
    if (event.code === "PageUp" || event.code === "PageDown") {
      event.preventDefault();
      this.parts.scrollLog?.(event.code === "PageUp" ? -1 : 1);
      return;
    }
    const binding = KEY_BINDINGS[event.code];
    if (binding?.kind !== "command") return;
    switch (binding.command) {
      case "chat":
        event.preventDefault();
        this.chatBox.open();
        return;
      case "interact":
        if (event.repeat) return;
        event.preventDefault();
        this.report(this.intent.useNearest(this.client, performance.now()));
        return;
      case "cancel":
        if (this.playerMenu.open) this.playerMenu.close();
        else this.dialogs.dismissTopmost();
        return;
      case "name-tags":
        if (event.repeat) return;
        this.toggleNameTags();
        return;
    }
  }

  private gameHasFocus(): boolean {
    const active = this.parts.canvas.ownerDocument.activeElement;
    return active === null || active === this.parts.canvas || active === this.parts.canvas.ownerDocument.body;
  }

  /** The scene hook: runs after the play session's input and steering, before the frame is drawn. */
  private frame(scene: FrameScene): FrameScene {
    const client = this.client;
    const nowMs = performance.now();
    const placement = this.parts.renderer.place(scene.camera);

    if (this.click) {
      // After the session's own click handling this frame: a click on an interactable aims beside it instead.
      const target = entityAtTile(client.entities, worldTileAt(this.click, placement), client.ownEntityId);
      this.click = null;
      if (target && isInteractable(target)) this.report(this.intent.click(target.id, client, nowMs));
      // Another player: the menu of what to do with them (the click's walk goes on); anywhere else closes it.
      if (target && target.typeId === ENTITY_TYPE_PLAYER && target.id !== client.ownEntityId) {
        this.playerMenu.openFor(target.id, this.clickAt);
        client.lookUpName(target.id);
      } else this.playerMenu.close();
    }
    this.playerMenu.update(client.names, (id) => client.entities.has(id));
    this.report(this.intent.frame(client, nowMs));

    const labels = this.labels(scene, this.pointer ? worldTileAt(this.pointer, placement) : null);
    // CSS px per framebuffer pixel: the canvas's pixel width is the framebuffer's (320, or more for larger map tiles).
    const canvas = this.parts.canvas;
    const canvasBox = canvas.getBoundingClientRect();
    this.dialogs.setScale(canvasBox.width / (canvas.width || FB_WIDTH));
    // The dialog layer's parent is the view's clip: on a portrait phone it shows only the middle of the view.
    const clip = this.parts.dialogLayer.parentElement?.getBoundingClientRect() ?? canvasBox;
    this.dialogs.setClip(shownPart(canvasBox, clip, canvas.width || FB_WIDTH, canvas.height || FB_HEIGHT));
    this.dialogs.sync(client.dialogs.shown);
    const name = client.names.get(client.ownEntityId) ?? scene.hud.name;
    return { ...scene, labels, hud: { ...scene.hud, name: foldForFont(name) } };
  }

  /** Shows or hides the names over heads, and remembers the choice. */
  toggleNameTags(): void {
    this.nameTags = !this.nameTags;
    this.parts.canvas.dataset.nameTags = this.nameTags ? "on" : "off";
    if (!this.nameTags) this.parts.canvas.dataset.nameTagsShown = this.shownTags = "";
    rememberNameTags(storageOf(this.parts.canvas.ownerDocument), this.nameTags);
  }

  /** The names over the players in view (not over the hovered one: its hover label says it). */
  private tags(scene: FrameScene, hoveredId: number | undefined): WorldLabel[] {
    const client = this.client;
    const own = client.predicted;
    const ownId = client.ownEntityId;
    const candidates: NameTagCandidate[] = [];
    for (const entity of client.entities.values()) {
      if (entity.typeId !== ENTITY_TYPE_PLAYER || entity.id === hoveredId) continue;
      const name = entity.id === ownId ? (client.names.get(ownId) ?? scene.hud.name) : client.names.get(entity.id);
      if (name === undefined) continue;
      // The own player is drawn where it is predicted, the others where the server last put them.
      const at = entity.id === ownId && own ? { ...entity, x: own.x, y: own.y } : entity;
      const colour = entity.id === ownId ? P.NAME_TAG_OWN : P.NAME_TAG;
      const distance = own ? chebyshev(at, own) : 0;
      const text = nameTagText(foldForFont(name), levelOfMeta(entity.meta));
      candidates.push({ label: labelOver(at, text, colour, scene.entities), distance });
    }
    // The labels grow with the map's tiles (world-scale.ts): measured in world pixels (8 a tile), as placed.
    const renderer = this.parts.renderer;
    const tileSizePx = renderer.place(scene.camera).tileSizePx;
    const placed = placeNameTags(candidates, (renderer.worldSheets.textScale * TILE_SIZE_PX) / tileSizePx);
    const shown = placed.map((label) => label.text).join("|");
    if (shown !== this.shownTags) {
      this.shownTags = shown;
      this.parts.canvas.dataset.nameTagsShown = shown;
    }
    return placed;
  }

  /** The hovered entity's name, and the prompt over interactables within reach. */
  private labels(scene: FrameScene, hovered: { x: number; y: number } | null): WorldLabel[] {
    const client = this.client;
    const under = entityAtTile(client.entities, hovered, client.ownEntityId);
    // Names first: the prompts and the hover label are drawn over them.
    const labels: WorldLabel[] = this.nameTags ? this.tags(scene, under?.id) : [];
    // A quest to take ("!") or to hand in ("?") over the creatures that have one for this player.
    for (const entity of client.entities.values()) {
      const mark = client.quests.markOf(entity.typeId);
      if (mark === 0 || entity.id === under?.id) continue;
      labels.push(labelOver(entity, mark === MARK_HAND_IN ? "?" : "!", PROMPT_COLOUR, scene.entities));
    }
    const near = interactablesNear(client.entities, client.predicted);
    for (const entity of near) {
      if (entity.id !== under?.id) labels.push(labelOver(entity, INTERACT_PROMPT, PROMPT_COLOUR, scene.entities));
    }
    if (under) {
      const inReach =
        isInteractable(under) && client.predicted && chebyshev(under, client.predicted) <= INTERACT_REACH_TILES;
      // A name is asked with an EntityQuery, which from beside a door is a use (docs/protocol.md § 18):
      // a door within reach is not asked about — hovering must not open it. Its label says "door" until known.
      if (under.id !== client.ownEntityId && !(inReach && under.typeId === ENTITY_TYPE_DOOR)) {
        client.lookUpName(under.id);
      }
      const text = hoverText(under, client.names, this.kinds);
      labels.push(labelOver(under, inReach ? `${text} (E)` : text, HOVER_COLOUR, scene.entities));
    }
    return labels;
  }

  private report(outcome: IntentOutcome | null): void {
    const text = outcome ? INTENT_NOTES[outcome] : undefined;
    if (text) this.note(text, false);
  }

  /** Adds a line of the page's own to the message log (a refusal in bad colours). */
  note(text: string, bad: boolean): void {
    this.parts.log.add("system", text, bad ? P.TEXT_WARN : P.TEXT_DIM);
  }
}

/** The page's localStorage, or null where it is refused (a sandboxed frame throws on the getter). */
function storageOf(doc: Document): Storage | null {
  try {
    return doc.defaultView?.localStorage ?? null;
  } catch {
    return null;
  }
}
