// The side panel (the framebuffer's right 80 px): who you are and your level,
// your health (numbers and bar) and experience (a thin bar under it), where you
// stand, the link's state, who is near and the creatures in view. Drawn every
// frame from a plain model, so the game loop decides what it says and this file
// only how it looks. The message log is not here any more (issue 18): 13 columns
// broke every line word by word, so it is a panel of its own in the page, over
// the game view (ui/log-panel.ts).
import type { WasmBlitter } from "../../wasm/blit.js";
import type { Atlas } from "./atlas.js";
import { PANEL, type Rect } from "./layout.js";
import * as P from "./palette.js";
import type { SpriteList } from "./sprite-list.js";
import { levelText } from "./name-tags.js";
import { columnsIn, fitText, queueText, textWidthPx } from "./text.js";

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
  /** The player's level ("L3" beside the name), absent before the server said (or on a server without levels). */
  readonly level?: number;
  /** How far through its level, 0 … 1 (the experience bar), absent before the server said. */
  readonly levelShare?: number;
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
  /** A spectator's panel (browser/spectate-session.ts): it has no body, so no HP; `position` is its camera's tile. */
  readonly spectating?: boolean;
}

const PAD_PX = 3;
const LINE_PX = 9;
const INNER_DEFAULT: Rect = { x: PANEL.x + PAD_PX, y: PANEL.y, w: PANEL.w - 2 * PAD_PX, h: PANEL.h };
const COLUMNS = columnsIn(INNER_DEFAULT.w);
/** "HP" and "hp/hpMax" on one row, the bar under them across the panel. */
const HP_ROW_Y = 12;
const HP_BAR_DEFAULT: Rect = { x: INNER_DEFAULT.x, y: 21, w: INNER_DEFAULT.w, h: 4 };
/** The experience bar: under the HP bar's frame, across the panel; what follows moves down by XP_ROW_PX. */
const XP_BAR_DEFAULT: Rect = {
  x: INNER_DEFAULT.x,
  y: HP_BAR_DEFAULT.y + HP_BAR_DEFAULT.h + 2,
  w: INNER_DEFAULT.w,
  h: 2,
};
const XP_ROW_PX = 4;
const NEARBY_SHOWN = 4;
/** Creature lines shown. */
const CREATURES_SHOWN = 3;

/** A glyph cell's height: a text row at y inks rows y … y + GLYPH_PX − 1. */
const GLYPH_PX = 8;
/**
 * How far down the panel the fullest HUD draws (framebuffer rows from its top): an experience bar, the
 * clock, NEARBY_SHOWN names and "+N more", CREATURES_SHOWN creatures and "+N more" — the rows drawHud
 * steps through, each at its largest. Below it the column is bare panel, where the page docks the message
 * log (ui/log-dock.ts); drawHud's own test checks that nothing is drawn there.
 */
const HUD_DEPTH_PX =
  HP_BAR_DEFAULT.y +
  HP_BAR_DEFAULT.h +
  3 +
  XP_ROW_PX +
  2 * LINE_PX + // the link's status, the clock
  LINE_PX +
  2 +
  4 + // the divider, then "Near"
  (NEARBY_SHOWN + 1) * LINE_PX +
  LINE_PX +
  2 + // "Creatures"
  (CREATURES_SHOWN + 1) * LINE_PX +
  GLYPH_PX;

/** Where the HUD's parts are, for tests and for anyone laying out over it. */
export const HUD_LAYOUT = {
  inner: INNER_DEFAULT,
  columns: COLUMNS,
  hpBar: HP_BAR_DEFAULT,
  xpBar: XP_BAR_DEFAULT,
  lineHeightPx: LINE_PX,
  depthPx: HUD_DEPTH_PX,
} as const;

/**
 * Draws the whole panel; glyphs are queued on `text` and flushed here. `panel` is where it is (the
 * default screen's PANEL, or beside a larger view); `columnHeightPx` the framebuffer's height, so the
 * column under the panel on a larger screen is panel background too.
 */
export function drawHud(
  blitter: WasmBlitter,
  text: SpriteList,
  atlas: Atlas,
  hud: HudModel,
  panel: Rect = PANEL,
  columnHeightPx: number = PANEL.h,
): void {
  const inner: Rect = { ...INNER_DEFAULT, x: INNER_DEFAULT.x + panel.x - PANEL.x };
  const hpBar: Rect = { ...HP_BAR_DEFAULT, x: inner.x };
  const divider = (y: number) => blitter.fillRect(inner.x, y, inner.w, 1, P.PANEL_DIVIDER);
  blitter.fillRect(panel.x, panel.y, panel.w, Math.max(panel.h, columnHeightPx), P.PANEL_BACKGROUND);
  blitter.fillRect(panel.x, panel.y, 1, Math.max(panel.h, columnHeightPx), P.PANEL_EDGE);

  let y = 3;
  const level = hud.level === undefined ? "" : levelText(hud.level);
  queueText(text, fitText(hud.name, level === "" ? COLUMNS : COLUMNS - level.length - 1), inner.x, y, P.TEXT_GOLD);
  if (level !== "") queueText(text, level, inner.x + inner.w - textWidthPx(level), y, P.LEVEL_TEXT);

  y = HP_ROW_Y;
  if (hud.spectating === true) {
    // No body, no health: the row says what this is instead.
    queueText(text, fitText("watching", COLUMNS), inner.x, y, P.TEXT_DIM);
  } else {
    queueText(text, "HP", inner.x, y, P.TEXT_DIM);
    const numbers = hpNumbers(hud.hp, hud.hpMax);
    queueText(text, numbers, inner.x + inner.w - textWidthPx(numbers), y, P.HP_TEXT);
    blitter.fillRect(hpBar.x - 1, hpBar.y - 1, hpBar.w + 2, hpBar.h + 2, P.HP_FRAME);
    blitter.hbar(hpBar.x, hpBar.y, hpBar.w, hpBar.h, hud.hp, hud.hpMax, P.HP_FILL, P.HP_EMPTY);
  }

  y = hpBar.y + hpBar.h + 3;
  if (hud.levelShare !== undefined) {
    const xpBar: Rect = { ...XP_BAR_DEFAULT, x: inner.x };
    const filled = Math.round(Math.min(1, Math.max(0, hud.levelShare)) * xpBar.w);
    blitter.hbar(xpBar.x, xpBar.y, xpBar.w, xpBar.h, filled, xpBar.w, P.XP_FILL, P.XP_EMPTY);
    y += XP_ROW_PX;
  }
  const where = hud.position ? `${hud.position.x},${hud.position.y}` : "-";
  queueText(text, fitText(where, COLUMNS), inner.x, y, P.TEXT_WHITE);
  y += LINE_PX;
  queueText(text, fitText(hud.status.text, COLUMNS), inner.x, y, hud.status.colour);
  // The time of day and the weather, on a row of their own once the server has said.
  if (hud.clock !== undefined) {
    y += LINE_PX;
    queueText(text, fitText(hud.clock, COLUMNS), inner.x, y, P.TEXT_DIM);
  }

  y += LINE_PX + 2;
  divider(y);
  y += 4;
  queueText(text, `Near: ${hud.nearby.length}`, inner.x, y, P.TEXT_DIM);
  for (const name of hud.nearby.slice(0, NEARBY_SHOWN)) {
    y += LINE_PX;
    queueText(text, fitText(name, COLUMNS), inner.x, y, P.TEXT_WHITE);
  }
  if (hud.nearby.length > NEARBY_SHOWN) {
    y += LINE_PX;
    queueText(text, `+${hud.nearby.length - NEARBY_SHOWN} more`, inner.x, y, P.TEXT_DIM);
  }

  // Creatures, only when there are any: a world without NPCs keeps the panel as it was.
  const creatures = hud.creatures ?? [];
  if (creatures.length > 0) {
    y += LINE_PX + 2;
    queueText(text, "Creatures", inner.x, y, P.TEXT_DIM);
    for (const creature of creatures.slice(0, CREATURES_SHOWN)) {
      y += LINE_PX;
      queueText(text, creatureLine(creature), inner.x, y, creature.hostile ? P.TEXT_BAD : P.TEXT_WHITE);
    }
    if (creatures.length > CREATURES_SHOWN) {
      y += LINE_PX;
      queueText(text, `+${creatures.length - CREATURES_SHOWN} more`, inner.x, y, P.TEXT_DIM);
    }
  }

  text.flush(atlas.font, panel);
}

/** "12/20", or "-" before the own entity's health is known. */
export function hpNumbers(hp: number, hpMax: number): string {
  return hpMax > 0 ? `${hp}/${hpMax}` : "-";
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
