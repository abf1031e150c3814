// The map's interactables (Tiled object layer "interactables": signs, notice
// boards) as static entities, and what happens when a player uses one.
//
// Interaction trigger (docs/protocol.md § Interacting): each interactable is a
// static entity (entity_flags is_static | is_interactable, type_id 3 "sign
// post") on its tile. An EntityQuery for it from a player standing within one
// tile (Chebyshev) is an interaction; from farther away it is only a query
// (hover, names) and answered with the EntityDetail alone. This reuses the
// existing packets: a client that can show names can already interact.
import type { WorldTape } from "../ops/world-tape.js";
import { ENTITY_FLAG_INTERACTABLE, ENTITY_FLAG_STATIC } from "../../protocol/entity.js";
import { DIALOG_TEXT_RULE, dialogByteLength } from "../../protocol/dialog.js";
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import type { NoticePort } from "../persistence/notice-store.js";
import { utf8ByteLength } from "../../protocol/text.js";
import { NAME_MAX_BYTES } from "../../protocol/tlv.js";
import type { DialogElement } from "../../protocol/dialog.js";
import type { ChatService } from "../talk/chat.js";
import type { DialogService } from "../talk/dialogs.js";
import type { Entity, EntityFields, EntityStore } from "../entities/entities.js";
import type { Logger } from "../ops/log.js";
import type { Session } from "../sessions/session.js";

export const ENTITY_TYPE_SIGN_POST = 3;
/** Tileset atlas indices of the default map's sign and notice board (the dialog shows them). */
export const ATLAS_SIGN = 14;
export const ATLAS_NOTICE_BOARD = 15;
/** Longest notice a player can post, in bytes of UTF-8 (the chat line adds the nick). */
export const NOTICE_MAX_BYTES = 120;
export const RETURN_OK = 1;
export const RETURN_POST = 1;
export const RETURN_CANCEL = 2;

/** The `kind` of a notice board object. */
export const NOTICE_BOARD_KIND = "notice_board";

/** An interactable as the map defines it (ts/server/map/map-objects.ts). */
export interface InteractableSpec {
  name: string;
  /** "sign", "notice_board", … */
  kind: string;
  text?: string;
  x: number;
  y: number;
}

/** Layout of dialog text: the client's font advances 6 px, lines are 10 px apart. */
const CHAR_PX = 6;
const LINE_PX = 10;

/** What the interactables use: the entities they stand as, the rooms a use opens, the log. */
export interface InteractablePorts {
  readonly entities: Pick<EntityStore, "spawn">;
  readonly dialogs: Pick<DialogService, "open">;
  readonly chat: Pick<ChatService, "tell" | "system">;
  /** The boards' notices, kept across restarts (persistence/notice-store.ts; a cluster's: cluster/pg-notices.ts). */
  readonly notices: NoticePort;
  /** The clocks a notice is limited and dated by: the world's tape (recording/tape.ts). */
  readonly tape: Pick<WorldTape, "now" | "wallNow">;
  /** Names the world the boards stand in: a board's notices are keyed by the map and the board. */
  readonly worldName: string;
  readonly log: Logger;
}

/** Notices a board's dialog looks at (as many of them as fit are shown, newest first). */
const NOTICES_SHOWN_MAX = 8;
/** The dialog's notice list ends here (px): the prompt, the input and the buttons follow. */
const NOTICE_AREA_END_PX = 160;
/** Keeps the board's dialog well inside one datagram, whatever the notices say. */
const NOTICE_DIALOG_BUDGET_BYTES = MAX_DATAGRAM_BYTES - 100;

export class Interactables {
  private readonly byEntity = new Map<number, { spec: InteractableSpec; entity: Entity }>();
  readonly stats = { interactions: 0, noticesPosted: 0 };

  constructor(
    private readonly ports: InteractablePorts,
    specs: readonly InteractableSpec[],
  ) {
    for (const spec of specs) {
      const entity = ports.entities.spawn(staticInteractable(ENTITY_TYPE_SIGN_POST, spec.x, spec.y, displayName(spec)));
      this.byEntity.set(entity.id, { spec, entity });
    }
  }

  get size(): number {
    return this.byEntity.size;
  }

  /** The entity standing for the interactable named `name`, for tests and tools. */
  entityNamed(name: string): Entity | undefined {
    for (const { spec, entity } of this.byEntity.values()) if (spec.name === name) return entity;
    return undefined;
  }

  /** An EntityQuery from `session` for `entity`: true when it was an interaction (the player is adjacent). */
  onQuery(session: Session, entity: Entity): boolean {
    const found = this.byEntity.get(entity.id);
    if (!found) return false;
    const player = session.entity;
    if (Math.max(Math.abs(player.x - entity.x), Math.abs(player.y - entity.y)) > 1) return false;
    this.stats.interactions++;
    try {
      if (found.spec.kind === NOTICE_BOARD_KIND) this.openNoticeBoard(session, found.spec, found.entity);
      else this.openSign(session, found.spec, found.entity);
    } catch (error) {
      // A sign whose text does not fit one dialog is a map problem, not a reason to stop the server.
      this.ports.log.error("interaction failed", { entityId: entity.id, kind: found.spec.kind, error: String(error) });
    }
    return true;
  }

  private openSign(session: Session, spec: InteractableSpec, entity: Entity): void {
    const width = 208;
    const pieces = splitText(spec.text ?? "(The sign is blank.)", DIALOG_TEXT_RULE.maxBytes);
    const elements: DialogElement[] = [
      { kind: "image", x: 8, y: 8, width: 8, height: 8, atlasIndex: ATLAS_SIGN },
      { kind: "text", x: 22, y: 8, width: width - 30, height: LINE_PX, text: entity.name },
    ];
    let y = 24;
    for (const piece of pieces) {
      const height = linesFor(piece, width - 16) * LINE_PX;
      elements.push({ kind: "text", x: 8, y, width: width - 16, height, text: piece });
      y += height;
    }
    const height = Math.min(y + 28, 232);
    elements.push({
      kind: "button",
      x: width / 2 - 20,
      y: height - 20,
      width: 40,
      height: 12,
      returnCode: RETURN_OK,
      label: "OK",
    });
    this.ports.dialogs.open(
      session,
      { x: 16, y: Math.max(4, Math.round(120 - height / 2)), width, height, elements },
      () => {},
      {
        key: `interactable:${entity.id}`,
      },
    );
  }

  /**
   * The board: its newest notices (author, time, text; as many as fit, newest first), then a line to
   * pin one. A pinned notice is kept (SQLite) for the next reader and posted to everyone's chat.
   */
  private openNoticeBoard(session: Session, spec: InteractableSpec, entity: Entity): void {
    const width = 208;
    const board = noticeBoardKey(this.ports.worldName, spec);
    const elements: DialogElement[] = [
      { kind: "image", x: 8, y: 8, width: 8, height: 8, atlasIndex: ATLAS_NOTICE_BOARD },
      { kind: "text", x: 22, y: 8, width: 178, height: LINE_PX, text: entity.name },
    ];
    let y = 24;
    const notices = this.ports.notices.recent(board, NOTICES_SHOWN_MAX);
    if (notices.length === 0) {
      elements.push({ kind: "text", x: 8, y, width: width - 16, height: LINE_PX, text: "No notices yet." });
      y += LINE_PX;
    }
    for (const notice of notices) {
      const text = cutToBytes(
        `${notice.author}, ${noticeTime(notice.postedAtMs)}: ${notice.text}`,
        DIALOG_TEXT_RULE.maxBytes,
      );
      const height = linesFor(text, width - 16) * LINE_PX;
      const element: DialogElement = { kind: "text", x: 8, y, width: width - 16, height, text };
      if (y + height > NOTICE_AREA_END_PX || !fitsOneDatagram([...elements, element])) break;
      elements.push(element);
      y += height + 2;
    }
    y += 4;
    elements.push(
      { kind: "text", x: 8, y, width: width - 16, height: LINE_PX, text: "Pin a notice for all to read:" },
      { kind: "text_input", x: 8, y: y + 14, width: width - 16, height: 12, maxBytes: NOTICE_MAX_BYTES, text: "" },
      { kind: "button", x: 40, y: y + 36, width: 48, height: 12, returnCode: RETURN_POST, label: "Post" },
      { kind: "button", x: 120, y: y + 36, width: 48, height: 12, returnCode: RETURN_CANCEL, label: "Cancel" },
    );
    const height = y + 56;
    this.ports.dialogs.open(
      session,
      { x: 16, y: Math.max(4, Math.round(120 - height / 2)), width, height, elements },
      (reply) => {
        if (reply.returnCode !== RETURN_POST) return;
        const notice = (reply.values[0] ?? "").trim();
        if (notice === "") return;
        // A notice is a chat line in all but name: the same per-session limit applies.
        if (!reply.session.chat.limiter.take(this.ports.tape.now())) {
          this.ports.chat.tell(reply.session, "The board is crowded; try again in a moment.", entity.name);
          return;
        }
        this.stats.noticesPosted++;
        try {
          this.ports.notices.post(board, {
            author: reply.session.nick,
            text: notice,
            postedAtMs: this.ports.tape.wallNow(),
          });
        } catch (error) {
          // A full disk loses the notice's keeping, not the notice: it still goes out to everyone now.
          this.ports.log.error("keeping a notice failed", { board, error: String(error) });
        }
        this.ports.chat.system(`${reply.session.nick}: ${notice}`, entity.name);
      },
      { key: `interactable:${entity.id}` },
    );
  }
}

/** The key a board's notices are kept under: the world and the board (its name and place on the map). */
export function noticeBoardKey(worldName: string, spec: Pick<InteractableSpec, "name" | "x" | "y">): string {
  return `${worldName}/${spec.name}@${spec.x},${spec.y}`;
}

/** The fields of a static interactable entity (a sign, a board, a door): no health, no rating, flags 0x05. */
export function staticInteractable(typeId: number, x: number, y: number, name: string): EntityFields {
  return {
    typeId,
    x,
    y,
    hp: 0,
    hpMax: 0,
    elo: 0,
    flags: ENTITY_FLAG_STATIC | ENTITY_FLAG_INTERACTABLE,
    name,
    meta: [],
  };
}

/** "1 Dec 14:05" (UTC): when a notice was pinned, short enough for a dialog line. */
function noticeTime(ms: number): string {
  const date = new Date(ms);
  const month = date.toLocaleString("en-GB", { month: "short", timeZone: "UTC" });
  const hh = String(date.getUTCHours()).padStart(2, "0");
  const mm = String(date.getUTCMinutes()).padStart(2, "0");
  return `${date.getUTCDate()} ${month} ${hh}:${mm}`;
}

/** Whether a dialog of these elements fits one datagram with room to spare. */
function fitsOneDatagram(elements: DialogElement[]): boolean {
  try {
    return (
      dialogByteLength({ type: "dialog", clientType: 0, dialogId: 1, x: 0, y: 0, width: 1, height: 1, elements }) <=
      NOTICE_DIALOG_BUDGET_BYTES
    );
  } catch {
    return false;
  }
}

/** The entity name: the object's name, else its kind, cut to what the name TLV carries. */
function displayName(spec: InteractableSpec): string {
  const raw = (spec.name.trim() || spec.kind.replace(/_/g, " ")).replace(/[\u0000-\u001f\u007f-\u009f]/gu, "");
  return cutToBytes(raw, NAME_MAX_BYTES) || "sign";
}

function cutToBytes(text: string, maxBytes: number): string {
  let cut = text;
  while (utf8ByteLength(cut) > maxBytes) cut = Array.from(cut).slice(0, -1).join("");
  return cut;
}

/** Splits `text` at spaces into pieces of at most `maxBytes` bytes (a text element's limit). */
function splitText(text: string, maxBytes: number): string[] {
  const pieces: string[] = [];
  let current = "";
  for (const word of text.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/gu, " ").split(" ")) {
    const candidate = current === "" ? word : `${current} ${word}`;
    if (utf8ByteLength(candidate) <= maxBytes) {
      current = candidate;
      continue;
    }
    if (current !== "") pieces.push(current);
    current = cutToBytes(word, maxBytes);
  }
  if (current !== "" || pieces.length === 0) pieces.push(current);
  return pieces;
}

/** Lines `text` takes when word-wrapped to `widthPx` (an estimate for the layout; the client wraps). */
function linesFor(text: string, widthPx: number): number {
  const columns = Math.max(1, Math.floor(widthPx / CHAR_PX));
  let lines = 0;
  for (const paragraph of text.split("\n")) {
    let used = 0;
    lines++;
    for (const word of paragraph.split(" ")) {
      const length = [...word].length;
      if (used > 0 && used + 1 + length > columns) {
        lines++;
        used = length;
      } else used += (used > 0 ? 1 : 0) + length;
    }
  }
  return lines;
}
