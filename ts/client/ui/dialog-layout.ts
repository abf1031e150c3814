// The DOM-free part of drawing a server-driven dialog as HTML over the canvas
// (docs/client.md § Dialogs): boxes in framebuffer pixels, turned into CSS
// lengths that scale with the canvas (var(--fb-px) is one framebuffer pixel in
// CSS pixels), the image scale, and keeping a text input within its byte limit.
import type { DialogElement } from "../../protocol/dialog.js";
import { utf8ByteLength } from "../../protocol/text.js";
import { CELL_SIZE_PX } from "../assets/sheets.js";

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** CSS length of `pixels` framebuffer pixels. */
export function fbLength(pixels: number): string {
  return `calc(var(--fb-px) * ${pixels})`;
}

/** Absolute position and size of a box, in scaling CSS lengths. */
export function boxStyle(box: Box): Record<"left" | "top" | "width" | "height", string> {
  return { left: fbLength(box.x), top: fbLength(box.y), width: fbLength(box.width), height: fbLength(box.height) };
}

/** A rectangle of the page in CSS pixels (what getBoundingClientRect gives). */
export interface PageRect {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/**
 * The part of a `fbWidth` × `fbHeight` framebuffer, shown by a canvas at `canvas` on the page, that the page
 * shows through the box `clip` around it, in framebuffer pixels; null when nothing of it is shown (not laid out).
 */
export function shownPart(canvas: PageRect, clip: PageRect, fbWidth: number, fbHeight: number): Box | null {
  const px = canvas.width / fbWidth;
  if (!(px > 0)) return null;
  const left = Math.max(0, (clip.left - canvas.left) / px);
  const top = Math.max(0, (clip.top - canvas.top) / px);
  const right = Math.min(fbWidth, (clip.left + clip.width - canvas.left) / px);
  const bottom = Math.min(fbHeight, (clip.top + clip.height - canvas.top) / px);
  return right > left && bottom > top ? { x: left, y: top, width: right - left, height: bottom - top } : null;
}

/** Where a dialog lies on the page: its top-left in framebuffer pixels, and a factor it is shrunk by (1: none). */
export interface DialogPlacement {
  readonly x: number;
  readonly y: number;
  readonly shrink: number;
}

/**
 * Where dialog `box` lies so the page shows all of it: inside `clip`, the part of the framebuffer the page shows
 * (the whole of it, or on a portrait phone the view cropped to fill the width: 195 of 320 columns on a 390-px
 * screen). The server lays dialogs out on the whole 320 × 240 screen (a conversation is 224 wide, centred on
 * it), so on a crop one would lose its sides — the close box, the ends of its buttons — and focusing its
 * first button would scroll the view inside its clip. A box that fits keeps its place, moved inside the clip
 * when it crosses an edge; one that does not is shrunk (never grown) until it fits.
 */
export function placeInClip(box: Box, clip: Box): DialogPlacement {
  const shrink = Math.min(1, clip.width / box.width, clip.height / box.height);
  const place = (at: number, size: number, from: number, room: number) =>
    Math.max(from, Math.min(at, from + room - size));
  return {
    x: place(box.x, box.width * shrink, clip.x, clip.width),
    y: place(box.y, box.height * shrink, clip.y, clip.height),
    shrink,
  };
}

/** Protocol: an image is the 8×8 atlas tile scaled by the largest whole factor that fits its box (at least 1). */
export function imageScale(box: Box): number {
  return Math.max(1, Math.floor(Math.min(box.width, box.height) / CELL_SIZE_PX));
}

/**
 * `value` made fit for a text input of `maxBytes`: control characters become
 * spaces (a paste may carry tabs or line breaks; a value is one line) and whole
 * characters are cut from the end until it fits.
 */
export function fitInput(value: string, maxBytes: number): string {
  let text = value.replace(/[\u0000-\u001f\u007f-\u009f]/gu, " ");
  while (utf8ByteLength(text) > maxBytes || utf8ByteLength(text) < 0) text = Array.from(text).slice(0, -1).join("");
  return text;
}

/** The button Enter presses in a text input: the dialog's first button, or null. */
export function defaultButton(elements: readonly DialogElement[]): Extract<DialogElement, { kind: "button" }> | null {
  for (const element of elements) if (element.kind === "button") return element;
  return null;
}

/** A short name for the dialog (its first non-empty text), for screen readers. */
export function dialogTitle(elements: readonly DialogElement[]): string {
  for (const element of elements) if (element.kind === "text" && element.text.trim() !== "") return element.text.trim();
  return "Dialog";
}
