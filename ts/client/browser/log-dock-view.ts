// Puts the message log where ui/log-dock.ts says: measures the page (the canvas,
// the view's clip, the page's own controls), asks logDock, and writes the box
// onto the log's element. Measured again every DOCK_CHECK_MS from the frame loop
// rather than on events only: the Bag button comes after the join, the touch
// controls with the first touch, the status line changes height on a resize.
import { HUD_LAYOUT } from "../render/hud.js";
import { type DockPlace, logDock, type PageBox } from "../ui/log-dock.js";
import type { CanvasView } from "./canvas-view.js";

const DOCK_CHECK_MS = 250;
/** The page's own controls, fixed to its edges: the log keeps clear of each that is shown. */
const OBSTACLES = [
  "[data-testid='status']",
  "[data-testid='hud-bar']",
  "[data-testid='bag-button']",
  "[data-testid='sound']",
  "[data-testid='who-button']",
  "[data-testid='quest-button']",
  "[data-testid='dpad']",
  ".touch-buttons",
];

export class LogDockView {
  private lastCheckMs = -Infinity;
  private written = "";

  constructor(
    private readonly log: HTMLElement,
    private readonly view: CanvasView,
    private readonly clip: HTMLElement,
  ) {}

  /** Places the log if DOCK_CHECK_MS passed since the last look (or `force`). */
  update(nowMs: number, force = false): void {
    if (!force && nowMs - this.lastCheckMs < DOCK_CHECK_MS) return;
    this.lastCheckMs = nowMs;
    const doc = this.log.ownerDocument;
    const obstacles: PageBox[] = [];
    for (const selector of OBSTACLES) {
      for (const element of doc.querySelectorAll<HTMLElement>(selector)) obstacles.push(boxOf(element));
    }
    const layout = this.view.layout;
    const dock = logDock({
      page: { width: doc.documentElement.clientWidth, height: doc.documentElement.clientHeight },
      canvas: boxOf(this.view.canvas),
      shown: boxOf(this.clip),
      screen: this.view.screen,
      panelShown: layout !== null && layout.mode === "side" && layout.hud === "panel",
      hudDepthPx: HUD_LAYOUT.depthPx,
      obstacles,
    });
    this.apply(dock.place, dock.box);
  }

  private apply(place: DockPlace, box: PageBox): void {
    const key = `${place} ${box.left} ${box.top} ${box.width} ${box.height}`;
    if (key === this.written) return;
    this.written = key;
    const style = this.log.style;
    // Held by its bottom edge: collapsed, the tabs stay where the box ended.
    style.left = `${box.left}px`;
    style.bottom = `${this.log.ownerDocument.documentElement.clientHeight - (box.top + box.height)}px`;
    style.width = `${box.width}px`;
    style.setProperty("--dock-height", `${box.height}px`);
    this.log.dataset.dock = place;
  }
}

function boxOf(element: Element): PageBox {
  const rect = element.getBoundingClientRect();
  return { left: rect.left, top: rect.top, width: rect.width, height: rect.height };
}
