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
    if (free === null) continue;
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
 * The largest part of `box` that meets no obstacle and is at least `minWidth` × `minHeight`, or null. Each
 * obstacle it meets is cut away by keeping what lies above, below, left or right of it; every choice is
 * tried (only the obstacles met branch, and a page has a handful), since the largest part at one cut can
 * be too narrow once the next is made.
 */
export function clearOf(
  box: PageBox,
  obstacles: readonly PageBox[],
  minWidth = DOCK_MIN_WIDTH_PX,
  minHeight = DOCK_MIN_HEIGHT_PX,
): PageBox | null {
  if (box.width < minWidth || box.height < minHeight) return null;
  const index = obstacles.findIndex((o) => o.width > 0 && o.height > 0 && intersect(box, o) !== null);
  if (index < 0) return box;
  const obstacle = obstacles[index];
  const rest = obstacles.slice(index + 1);
  const gap = DOCK_GAP_PX;
  const bottom = box.top + box.height;
  const right = box.left + box.width;
  const below = obstacle.top + obstacle.height + gap;
  const beyond = obstacle.left + obstacle.width + gap;
  let best: PageBox | null = null;
  for (const part of [
    { ...box, height: obstacle.top - gap - box.top },
    { ...box, top: below, height: bottom - below },
    { ...box, width: obstacle.left - gap - box.left },
    { ...box, left: beyond, width: right - beyond },
  ]) {
    const free = clearOf(part, rest, minWidth, minHeight);
    if (free !== null && (best === null || area(free) > area(best))) best = free;
  }
  return best;
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
