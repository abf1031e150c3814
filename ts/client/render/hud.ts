// The side panel (the framebuffer's right 80 px): who you are, your health
// (numbers and bar), where you stand, the link's state, who is near, the
// creatures in view, and the message log with its two tabs — Chat (chat, the
// system's and the session's lines) and Combat (the blows, issue 13) — kept
// apart so a fight does not scroll chat away (issue 18). Drawn every frame from
// a plain model, so the game loop decides what it says and this file only how
// it looks; logTabsAt says where the tabs are, for the pointer.
import type { WasmBlitter } from "../../wasm/blit.js";
import type { Atlas } from "./atlas.js";
import { PANEL, type Rect } from "./layout.js";
import * as P from "./palette.js";
import type { SpriteList } from "./sprite-list.js";
import { columnsIn, fitText, queueText, textWidthPx, wrapText } from "./text.js";

export interface HudLine {
  readonly text: string;
  readonly colour: number;
}

/** One line of the creature list: a name, how many of it are in view, and whether they are hostile. */
export interface HudCreature {
  readonly name: string;
  readonly count: number;
  readonly hostile: boolean;
}

export interface HudModel {
  readonly name: string;
  readonly hp: number;
  readonly hpMax: number;
  /** The player's tile, or null before the first update. */
  readonly position: { readonly x: number; readonly y: number } | null;
  /** The time of day and the weather ("21:40 night", "14:05 rain"), or absent before the server said. */
  readonly clock?: string;
  /** One short word or two on the link ("online", "reconnecting"). */
  readonly status: HudLine;
  /** Names of the other players in view. */
  readonly nearby: readonly string[];
  /** The creatures in view (ui/creature-list.ts): hostile ones first, drawn in red behind a "!". */
  readonly creatures?: readonly HudCreature[];
  /** Oldest first; the panel shows as many of the newest as fit. */
  readonly log: readonly HudLine[];
  /** The combat lines, oldest first; with it the log has tabs (without, the panel is as before combat). */
  readonly combatLog?: readonly HudLine[];
  /** The tab shown (default "chat"). */
  readonly logTab?: LogTab;
  /** Combat lines came while the Chat tab was shown: its tab is marked. */
  readonly combatUnread?: boolean;
}

export type LogTab = "chat" | "combat";
export const LOG_TABS: readonly LogTab[] = ["chat", "combat"];
const TAB_LABELS: Readonly<Record<LogTab, string>> = { chat: "Chat", combat: "Combat" };

const PAD_PX = 3;
const LINE_PX = 9;
const INNER: Rect = { x: PANEL.x + PAD_PX, y: PANEL.y, w: PANEL.w - 2 * PAD_PX, h: PANEL.h };
const COLUMNS = columnsIn(INNER.w);
/** "HP" and "hp/hpMax" on one row, the bar under them across the panel. */
const HP_ROW_Y = 12;
const HP_BAR: Rect = { x: INNER.x, y: 21, w: INNER.w, h: 4 };
const NEARBY_SHOWN = 4;
/** Blank pixels between the two tab labels. */
const FONT_GAP_PX = 6;
/** Creature lines shown; fewer than players, so the log keeps most of the panel. */
const CREATURES_SHOWN = 3;

/** Where the HUD's parts are, for tests and for anyone laying out over it. */
export const HUD_LAYOUT = { inner: INNER, columns: COLUMNS, hpBar: HP_BAR, lineHeightPx: LINE_PX } as const;

function divider(blitter: WasmBlitter, y: number): void {
  blitter.fillRect(INNER.x, y, INNER.w, 1, P.PANEL_DIVIDER);
}

/** Draws the whole panel; glyphs are queued on `text` and flushed here. */
export function drawHud(blitter: WasmBlitter, text: SpriteList, atlas: Atlas, hud: HudModel): void {
  blitter.fillRect(PANEL.x, PANEL.y, PANEL.w, PANEL.h, P.PANEL_BACKGROUND);
  blitter.fillRect(PANEL.x, PANEL.y, 1, PANEL.h, P.PANEL_EDGE);

  let y = 3;
  queueText(text, fitText(hud.name, COLUMNS), INNER.x, y, P.TEXT_GOLD);

  y = HP_ROW_Y;
  queueText(text, "HP", INNER.x, y, P.TEXT_DIM);
  const numbers = hpNumbers(hud.hp, hud.hpMax);
  queueText(text, numbers, INNER.x + INNER.w - textWidthPx(numbers), y, P.HP_TEXT);
  blitter.fillRect(HP_BAR.x - 1, HP_BAR.y - 1, HP_BAR.w + 2, HP_BAR.h + 2, P.HP_FRAME);
  blitter.hbar(HP_BAR.x, HP_BAR.y, HP_BAR.w, HP_BAR.h, hud.hp, hud.hpMax, P.HP_FILL, P.HP_EMPTY);

  y = HP_BAR.y + HP_BAR.h + 3;
  const where = hud.position ? `${hud.position.x},${hud.position.y}` : "-";
  queueText(text, fitText(where, COLUMNS), INNER.x, y, P.TEXT_WHITE);
  y += LINE_PX;
  queueText(text, fitText(hud.status.text, COLUMNS), INNER.x, y, hud.status.colour);
  // The time of day and the weather, on a row of their own once the server has said.
  if (hud.clock !== undefined) {
    y += LINE_PX;
    queueText(text, fitText(hud.clock, COLUMNS), INNER.x, y, P.TEXT_DIM);
  }

  y += LINE_PX + 2;
  divider(blitter, y);
  y += 4;
  queueText(text, `Near: ${hud.nearby.length}`, INNER.x, y, P.TEXT_DIM);
  for (const name of hud.nearby.slice(0, NEARBY_SHOWN)) {
    y += LINE_PX;
    queueText(text, fitText(name, COLUMNS), INNER.x, y, P.TEXT_WHITE);
  }
  if (hud.nearby.length > NEARBY_SHOWN) {
    y += LINE_PX;
    queueText(text, `+${hud.nearby.length - NEARBY_SHOWN} more`, INNER.x, y, P.TEXT_DIM);
  }

  // Creatures, only when there are any: a world without NPCs keeps the panel as it was.
  const creatures = hud.creatures ?? [];
  if (creatures.length > 0) {
    y += LINE_PX + 2;
    queueText(text, "Creatures", INNER.x, y, P.TEXT_DIM);
    for (const creature of creatures.slice(0, CREATURES_SHOWN)) {
      y += LINE_PX;
      queueText(text, creatureLine(creature), INNER.x, y, creature.hostile ? P.TEXT_BAD : P.TEXT_WHITE);
    }
    if (creatures.length > CREATURES_SHOWN) {
      y += LINE_PX;
      queueText(text, `+${creatures.length - CREATURES_SHOWN} more`, INNER.x, y, P.TEXT_DIM);
    }
  }

  y += LINE_PX + 2;
  divider(blitter, y);
  y += 4;
  let logTop = y;
  let lines = hud.log;
  if (hud.combatLog !== undefined) {
    const tab = hud.logTab ?? "chat";
    for (const [name, rect] of Object.entries(tabRects(y)) as [LogTab, Rect][]) {
      const colour = name === tab ? P.TAB_ACTIVE : name === "combat" && hud.combatUnread ? P.TAB_UNREAD : P.TAB_IDLE;
      queueText(text, TAB_LABELS[name], rect.x, y, colour);
      if (name === tab) blitter.fillRect(rect.x, y + LINE_PX - 1, rect.w - 2, 1, P.TAB_ACTIVE);
    }
    logTop = y + LINE_PX + 2;
    if (tab === "combat") lines = hud.combatLog;
  }
  const rows = Math.floor((PANEL.h - 2 - logTop) / LINE_PX);
  const shown = wrapLog(lines, rows);
  shown.forEach((line, index) => queueText(text, line.text, INNER.x, logTop + index * LINE_PX, line.colour));

  text.flush(atlas.font, PANEL);
}

/** "12/20", or "-" before the own entity's health is known. */
export function hpNumbers(hp: number, hpMax: number): string {
  return hpMax > 0 ? `${hp}/${hpMax}` : "-";
}

/** Where each log tab's label is drawn for a tab row at `y`. */
function tabRects(y: number): Record<LogTab, Rect> {
  const chatWidth = textWidthPx(TAB_LABELS.chat) + FONT_GAP_PX;
  return {
    chat: { x: INNER.x, y, w: chatWidth, h: LINE_PX },
    combat: { x: INNER.x + chatWidth, y, w: textWidthPx(TAB_LABELS.combat) + FONT_GAP_PX, h: LINE_PX },
  };
}

/**
 * Where the log's tabs are in the panel drawn for `hud` (the same arithmetic as drawHud), for the
 * pointer; null when the model has no combat log (no tabs).
 */
export function logTabsAt(hud: HudModel): Record<LogTab, Rect> | null {
  if (hud.combatLog === undefined) return null;
  let y = HP_BAR.y + HP_BAR.h + 3 + LINE_PX + LINE_PX + 2 + 4;
  y += LINE_PX * Math.min(hud.nearby.length, NEARBY_SHOWN) + (hud.nearby.length > NEARBY_SHOWN ? LINE_PX : 0);
  const creatures = hud.creatures ?? [];
  if (creatures.length > 0) {
    y += LINE_PX + 2 + LINE_PX * Math.min(creatures.length, CREATURES_SHOWN);
    if (creatures.length > CREATURES_SHOWN) y += LINE_PX;
  }
  y += LINE_PX + 2 + 4;
  return tabRects(y);
}

/**
 * "cave rat", "cave rat x2", "!skeleton" for a hostile: the name is shortened, never the count or
 * the mark, so a long name still says how many and whether they attack.
 */
export function creatureLine(creature: HudCreature): string {
  const mark = creature.hostile ? "!" : "";
  const count = creature.count > 1 ? ` x${creature.count}` : "";
  return mark + fitText(creature.name, COLUMNS - mark.length - count.length) + count;
}

/** The newest messages, wrapped to the panel, that fit in `rows` lines (oldest at the top). */
export function wrapLog(log: readonly HudLine[], rows: number): HudLine[] {
  const out: HudLine[] = [];
  for (let index = log.length - 1; index >= 0 && out.length < rows; index--) {
    const lines = wrapText(log[index].text, COLUMNS);
    for (let line = lines.length - 1; line >= 0 && out.length < rows; line--) {
      out.push({ text: lines[line], colour: log[index].colour });
    }
  }
  return out.reverse();
}
