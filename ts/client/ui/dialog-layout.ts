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
