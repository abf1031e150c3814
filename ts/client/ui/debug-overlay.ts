// The F3 overlay over the canvas (HTML, so it is readable at any scale and by
// tests). Refreshed a few times per second, not every frame: the numbers move
// too fast to read otherwise, and the DOM write is the costly part.
const REFRESH_MS = 250;

export class DebugOverlay {
  private lastRefreshMs = -Infinity;

  constructor(
    private readonly element: HTMLElement,
    visible = false,
  ) {
    element.hidden = !visible;
  }

  get visible(): boolean {
    return !this.element.hidden;
  }

  toggle(): void {
    this.element.hidden = !this.element.hidden;
    this.lastRefreshMs = -Infinity;
  }

  /** Shows `lines()` if visible and due; `lines` is only called then. */
  refresh(nowMs: number, lines: () => string[]): void {
    if (this.element.hidden || nowMs - this.lastRefreshMs < REFRESH_MS) return;
    this.lastRefreshMs = nowMs;
    this.element.textContent = lines().join("\n");
  }
}
