// Where the message log goes on the page (issue 42): never over the map near the
// player. It lay over the bottom quarter of the view, a dark band a fight could
// happen under, while the HUD column beside the view stood empty below its last
// row. Now it takes the largest free place of these, each kept clear of the
// page's own buttons (the Bag, Sound, who's online, the touch controls, the
// status line):
// - "column": the HUD column under the HUD's fullest depth (a desktop window);
// - "right" / "left": beside the view, where the page has room (a wide window, a
//   phone held sideways);
// - "below": under the view (a phone held upright);
// and only when none of them has room for a few lines, "over": the bottom of the
// view, as before. DOM-free: the page measures, this decides (log-dock-view.ts).
import type { Screen } from "../render/layout.js";

/** A box in CSS pixels of the page (getBoundingClientRect's coordinates). */
export interface PageBox {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

export type DockPlace = "column" | "right" | "left" | "below" | "over";

export interface LogDock {
  readonly place: DockPlace;
  readonly box: PageBox;
}

export interface DockInput {
  readonly page: { readonly width: number; readonly height: number };
  /** The game canvas's CSS box (the whole framebuffer, also where a stacked layout crops it). */
  readonly canvas: PageBox;
  /** What of the canvas is shown (the view's clip: the canvas itself, or the crop of a stacked or HUD-bar layout). */
  readonly shown: PageBox;
  /** The framebuffer's size, view and panel. */
  readonly screen: Screen;
  /** Whether the framebuffer's HUD panel is shown beside the view (else the page shows the HUD elsewhere). */
  readonly panelShown: boolean;
  /** Framebuffer rows of the panel the HUD may draw in (hud.ts HUD_LAYOUT.depthPx). */
  readonly hudDepthPx: number;
  /** The page's own controls the log must not cover (empty boxes are ignored). */
  readonly obstacles: readonly PageBox[];
}

/** Space kept between the log and the page's edges, the view and the controls. */
export const DOCK_GAP_PX = 4;
/** The smallest dock worth taking: the tabs and about four lines of a dozen words. */
export const DOCK_MIN_WIDTH_PX = 160;
export const DOCK_MIN_HEIGHT_PX = 80;
/** "over": the share of the view's height the log covers at its bottom (as it always did). */
const OVER_SHARE = 0.27;

/** Where the log goes for the page `input` describes. */
export function logDock(input: DockInput): LogDock {
  let best: LogDock | null = null;
  for (const [place, box] of candidates(input)) {
    const free = clearOf(box, input.obstacles);
    if (free === null || free.width < DOCK_MIN_WIDTH_PX || free.height < DOCK_MIN_HEIGHT_PX) continue;
    if (best === null || area(free) > area(best.box)) best = { place, box: free };
  }
  return best ?? { place: "over", box: overView(input) };
}

/** The view's CSS box: the framebuffer's view rectangle on the canvas, cut to what is shown. */
export function viewBox(input: Pick<DockInput, "canvas" | "shown" | "screen">): PageBox {
  const px = input.canvas.width / input.screen.width;
  const view = input.screen.view;
  return intersect(
    {
      left: input.canvas.left + view.x * px,
      top: input.canvas.top + view.y * px,
      width: view.w * px,
      height: view.h * px,
    },
    input.shown,
  ) as PageBox;
}

function candidates(input: DockInput): [DockPlace, PageBox][] {
  const { page, canvas, shown, screen } = input;
  const px = canvas.width / screen.width;
  const out: [DockPlace, PageBox][] = [];
  const gap = DOCK_GAP_PX;
  if (input.panelShown) {
    const panel = screen.panel;
    const top = canvas.top + Math.min(screen.height, panel.y + input.hudDepthPx) * px + gap;
    out.push([
      "column",
      {
        left: canvas.left + panel.x * px + gap,
        top,
        width: panel.w * px - 2 * gap,
        height: canvas.top + screen.height * px - gap - top,
      },
    ]);
  }
  const right = shown.left + shown.width + gap;
  out.push(["right", { left: right, top: gap, width: page.width - gap - right, height: page.height - 2 * gap }]);
  out.push(["left", { left: gap, top: gap, width: shown.left - 2 * gap, height: page.height - 2 * gap }]);
  const below = shown.top + shown.height + gap;
  out.push(["below", { left: gap, top: below, width: page.width - 2 * gap, height: page.height - gap - below }]);
  // Never past the page's edges.
  return out
    .map(([place, box]) => [place, intersect(box, { left: 0, top: 0, width: page.width, height: page.height })])
    .filter((entry): entry is [DockPlace, PageBox] => entry[1] !== null);
}

/**
 * `box` with every obstacle it meets cut away: of the parts above, below, left and right of the
 * obstacle, the largest is kept. Null when nothing is left.
 */
export function clearOf(box: PageBox, obstacles: readonly PageBox[]): PageBox | null {
  let free: PageBox | null = box;
  for (const obstacle of obstacles) {
    if (free === null) return null;
    if (obstacle.width <= 0 || obstacle.height <= 0 || intersect(free, obstacle) === null) continue;
    const f: PageBox = free;
    const gap = DOCK_GAP_PX;
    const parts: PageBox[] = [
      { ...f, height: obstacle.top - gap - f.top },
      {
        ...f,
        top: obstacle.top + obstacle.height + gap,
        height: f.top + f.height - (obstacle.top + obstacle.height + gap),
      },
      { ...f, width: obstacle.left - gap - f.left },
      {
        ...f,
        left: obstacle.left + obstacle.width + gap,
        width: f.left + f.width - (obstacle.left + obstacle.width + gap),
      },
    ].filter((part) => part.width > 0 && part.height > 0);
    free = parts.reduce<PageBox | null>((a, b) => (a === null || area(b) > area(a) ? b : a), null);
  }
  return free;
}

/** The fallback: over the bottom of the view, across its width. */
function overView(input: DockInput): PageBox {
  const view = viewBox(input);
  const height = Math.round(view.height * OVER_SHARE);
  return { left: view.left, top: view.top + view.height - height, width: view.width, height };
}

function area(box: PageBox): number {
  return box.width * box.height;
}

/** Where two boxes overlap, or null (touching edges do not overlap). */
export function intersect(a: PageBox, b: PageBox): PageBox | null {
  const left = Math.max(a.left, b.left);
  const top = Math.max(a.top, b.top);
  const right = Math.min(a.left + a.width, b.left + b.width);
  const bottom = Math.min(a.top + a.height, b.top + b.height);
  return right > left && bottom > top ? { left, top, width: right - left, height: bottom - top } : null;
}
