// The line under the game: loading, joining, connection state, failures.
// Written only when its text or level changes, since it is updated every frame.
import type { StatusLevel } from "./connection-status.js";

export class StatusLine {
  private text = "";
  private level = "";

  constructor(private readonly element: HTMLElement) {}

  set(text: string, level: StatusLevel | "info" = "info"): void {
    if (text === this.text && level === this.level) return;
    this.text = text;
    this.level = level;
    this.element.textContent = text;
    this.element.dataset.level = level;
  }
}
