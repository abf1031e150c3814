// How a conversation looks on a client (docs/protocol.md § 16): a title, the speaker's words (wrapped by
// the client), then one button per choice, stacked — laid out once here for every script's `ask` and
// every shop, on the 320 × 240 screen the Dialog packet is drawn on.
import type { DialogElement } from "../../protocol/dialog.js";
import type { DialogSpec } from "../talk/dialogs.js";

const WIDTH = 224;
const MARGIN = 8;
const LINE_PX = 10;
const BUTTON_PX = 12;
const GAP_PX = 3;
/** Characters of text a line holds at this width (the client's font is 5 px a character). */
const CHARS_PER_LINE = Math.floor((WIDTH - 2 * MARGIN) / 5);
/** The most choices one conversation offers (they must fit the screen). */
export const MAX_CHOICES = 10;
/** The longest title, text and choice, in characters (a Dialog element's text is at most 255 bytes). */
export const MAX_TITLE_CHARS = 40;
export const MAX_TEXT_CHARS = 240;
export const MAX_CHOICE_CHARS = 40;

/** The return code of choice `index` (0-based): 1 … n; 0 is a dismissed dialog. */
export function choiceCode(index: number): number {
  return index + 1;
}

/** A conversation's dialog: `title`, `text`, and a button per choice (return codes 1 … n). */
export function conversation(title: string, text: string, choices: readonly string[]): DialogSpec {
  const elements: DialogElement[] = [];
  let y = MARGIN;
  if (title !== "") {
    elements.push({ kind: "text", x: MARGIN, y, width: WIDTH - 2 * MARGIN, height: LINE_PX, text: title });
    y += LINE_PX + GAP_PX;
  }
  if (text !== "") {
    const lines = estimateLines(text);
    elements.push({ kind: "text", x: MARGIN, y, width: WIDTH - 2 * MARGIN, height: lines * LINE_PX, text });
    y += lines * LINE_PX + GAP_PX;
  }
  choices.forEach((label, index) => {
    elements.push({
      kind: "button",
      x: MARGIN,
      y,
      width: WIDTH - 2 * MARGIN,
      height: BUTTON_PX,
      returnCode: choiceCode(index),
      label,
    });
    y += BUTTON_PX + GAP_PX;
  });
  const height = y + MARGIN - GAP_PX;
  return {
    x: Math.round((320 - WIDTH) / 2),
    y: Math.max(4, Math.round((240 - height) / 2)),
    width: WIDTH,
    height,
    elements,
  };
}

/** The lines `text` takes when wrapped at CHARS_PER_LINE (and at its own line breaks). */
function estimateLines(text: string): number {
  let lines = 0;
  for (const paragraph of text.split("\n")) {
    let line = 0;
    lines++;
    for (const word of paragraph.split(" ")) {
      if (line > 0 && line + 1 + word.length > CHARS_PER_LINE) {
        lines++;
        line = word.length;
      } else line += (line > 0 ? 1 : 0) + word.length;
    }
  }
  return Math.min(lines, 12);
}
