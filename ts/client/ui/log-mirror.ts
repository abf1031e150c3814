// The side panel's message log, mirrored as text in the page: the framebuffer is
// invisible to screen readers (and to tests), so the same lines go to a visually
// hidden live region, newest last. Rewritten only when the log changed.
import type { HudLine } from "../render/hud.js";

export class LogMirror {
  private shownVersion = -1;

  constructor(private readonly element: HTMLElement) {}

  show(lines: readonly HudLine[], version: number): void {
    if (version === this.shownVersion) return;
    this.shownVersion = version;
    const doc = this.element.ownerDocument;
    this.element.replaceChildren(
      ...lines.map((line) => {
        const paragraph = doc.createElement("p");
        paragraph.textContent = line.text;
        return paragraph;
      }),
    );
  }
}
