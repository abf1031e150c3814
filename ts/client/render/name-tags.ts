// Names over heads (issue 18 item 2): every player in view carries its nick —
// and its level beside it (issue 39: "Ada L3", from the level TLV of its entries) — in
// a label over its sprite, drawn into the framebuffer by the same labels pass as
// the hover name (frame.ts drawLabels). In the framebuffer, not as DOM overlays:
// the text is the game's own pixel font, scaled with the picture by whole pixels,
// so it stays as crisp as the sprites at every scale and moves with them in the
// same frame (an HTML label trails the glide by a frame and blurs at fractional
// zoom); and it costs a few sprite-batch glyphs, where 50 positioned elements
// would cost a style recalculation every frame.
//
// A crowd would bury the view under its labels, so a tag that would overlap one
// already placed moves up a row (two players on one tile get both names, one
// above the other) and, if that is taken too, is left out: the own name first,
// then the nearest players, so the names that go are the far ones.
import type { WorldLabel } from "./frame.js";
import { TILE_SIZE_PX } from "./layout.js";
import { textWidthPx } from "./text.js";

/** The label box's height (frame.ts LABEL_HEIGHT_PX): a shifted tag moves up by this. */
export const NAME_TAG_ROW_PX = 9;
/** Rows a tag may move up to clear the ones already placed. */
const ROWS_TRIED = 3;
/** Where the toggle is remembered. */
export const NAME_TAGS_STORAGE_KEY = "forgotten-caves.name-tags";

/** A player to tag: its label as labelOver placed it (over its drawn sprite), and how far it is from us. */
export interface NameTagCandidate {
  readonly label: WorldLabel;
  /** Chebyshev tiles from the own player (0 for the own player): nearer ones are placed first. */
  readonly distance: number;
}

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * The tags to draw: each candidate's label, moved up a row or two where it would cover an earlier
 * one, or left out when no row is free. The boxes are the ones drawLabels draws (text width + 3,
 * centred over the sprite, one row above it), in world pixels; `worldPerLabelPx` is how many world
 * pixels one pixel of a label spans (1 on 8 px tiles; a map of 32 px tiles with labels at 2×: ½).
 */
export function placeNameTags(candidates: readonly NameTagCandidate[], worldPerLabelPx = 1): WorldLabel[] {
  const ordered = [...candidates].sort((a, b) => a.distance - b.distance);
  const row = NAME_TAG_ROW_PX * worldPerLabelPx;
  const placed: Box[] = [];
  const out: WorldLabel[] = [];
  for (const { label } of ordered) {
    const w = (textWidthPx(label.text) + 3) * worldPerLabelPx;
    const x = label.xPx + TILE_SIZE_PX / 2 - w / 2;
    for (let shift = 0; shift < ROWS_TRIED; shift++) {
      const box = { x, y: label.yPx - shift * row, w, h: row };
      if (placed.some((other) => overlaps(box, other))) continue;
      placed.push(box);
      out.push(shift === 0 ? label : { ...label, yPx: label.yPx - shift * row });
      break;
    }
  }
  return out;
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** The level as the names over heads and the side panel show it: "L3". */
export function levelText(level: number): string {
  return `L${level}`;
}

/** A player's tag: its name, and its level beside it when its entries carry one ("Ada L3"). */
export function nameTagText(name: string, level: number | undefined): string {
  return level === undefined ? name : `${name} ${levelText(level)}`;
}

/** Whether names are shown: on unless the player turned them off (remembered in `storage`). */
export function nameTagsWanted(storage: Pick<Storage, "getItem"> | null): boolean {
  try {
    return storage?.getItem(NAME_TAGS_STORAGE_KEY) !== "off";
  } catch {
    // Storage refused (a privacy mode): the default.
    return true;
  }
}

/** Remembers the toggle; a storage that refuses keeps it for this page only. */
export function rememberNameTags(storage: Pick<Storage, "setItem"> | null, shown: boolean): void {
  try {
    storage?.setItem(NAME_TAGS_STORAGE_KEY, shown ? "on" : "off");
  } catch {
    // Nothing to do: the toggle still holds until the page closes.
  }
}
