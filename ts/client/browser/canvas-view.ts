// Puts the framebuffer on the page: the wasm RGBA region straight into an
// ImageData (no copy until putImageData), and the canvas sized to the largest
// whole multiple of the framebuffer (320×240, or larger for a map's larger
// tiles) in device pixels that fits, so every framebuffer
// pixel is the same square of screen pixels (image-rendering: pixelated).
// The page's layout (render/layout.ts pageLayout) decides the scale: on a
// portrait screen the view is cropped to fill the width and the panel is shown
// by a second canvas under it (the same ImageData, its panel rectangle only).
import type { WasmBlitter } from "../../wasm/blit.js";
import { DEFAULT_SCREEN, type PageLayout, pageLayout, type Screen } from "../render/layout.js";

/** The narrowest margin beside the view the HUD bar moves into (CSS px): its parts wrap to four rows there. */
const HUD_MARGIN_MIN_CSS_PX = 200;

/** The page around the canvas that the layout arranges; without them the canvas is only sized (as in tests). */
export interface LayoutParts {
  /** The box around the canvas and what lies over it (dialogs, chat, debug overlay): the view's clip. */
  readonly screen: HTMLElement;
  /** The second canvas that shows the panel in the stacked layout. */
  readonly panel: HTMLCanvasElement;
  /** The status line: its height is taken from the page unless it lies over the view. */
  readonly status: HTMLElement;
}

export interface CanvasFit {
  /** Device pixels per framebuffer pixel (≥ 1). */
  scale: number;
  cssWidth: number;
  cssHeight: number;
}

/** The largest whole scale at which the framebuffer (of `screen`'s size) fits the space, in device pixels. */
export function fitCanvas(
  availableCssWidth: number,
  availableCssHeight: number,
  devicePixelRatio: number,
  screen: { width: number; height: number } = DEFAULT_SCREEN,
): CanvasFit {
  const ratio = devicePixelRatio > 0 ? devicePixelRatio : 1;
  const scale = Math.max(
    1,
    Math.floor(Math.min((availableCssWidth * ratio) / screen.width, (availableCssHeight * ratio) / screen.height)),
  );
  return { scale, cssWidth: (screen.width * scale) / ratio, cssHeight: (screen.height * scale) / ratio };
}

export class CanvasView {
  private readonly context: CanvasRenderingContext2D;
  private image: ImageData | null = null;
  private imageSource: Uint8ClampedArray | null = null;
  private readonly panelContext: CanvasRenderingContext2D | null = null;
  /** The layout last applied (null without LayoutParts). */
  layout: PageLayout | null = null;
  /** The framebuffer shown: its size, view and panel (FrameRenderer.screen). */
  private shown: Screen = DEFAULT_SCREEN;

  constructor(
    readonly canvas: HTMLCanvasElement,
    private readonly space: HTMLElement,
    private readonly blitter: WasmBlitter,
    private readonly parts: LayoutParts | null = null,
  ) {
    const context = canvas.getContext("2d", { alpha: false });
    if (!context) throw new Error("this browser cannot draw on a canvas");
    this.context = context;
    if (parts) {
      parts.panel.width = DEFAULT_SCREEN.panel.w;
      parts.panel.height = DEFAULT_SCREEN.panel.h;
      this.panelContext = parts.panel.getContext("2d", { alpha: false });
    }
    this.fit();
    window.addEventListener("resize", () => this.fit());
    // A zoom or a move to another screen changes devicePixelRatio without a resize.
    matchMedia(`(resolution: ${devicePixelRatio}dppx)`).addEventListener("change", () => this.fit(), { once: true });
  }

  /** The framebuffer's size, view and panel as shown now. */
  get screen(): Screen {
    return this.shown;
  }

  /**
   * Shows a framebuffer of another size (a map drawn with larger tiles, FrameRenderer.screen): the
   * canvas gets its pixel size and is fitted again, still a whole number of device pixels per pixel.
   */
  setScreen(screen: Screen): void {
    if (screen === this.shown) return;
    this.shown = screen;
    this.canvas.width = screen.width;
    this.canvas.height = screen.height;
    this.image = null;
    this.imageSource = null;
    this.fit();
  }

  /** The stacked layout's panel canvas, or null without LayoutParts. */
  get panelCanvas(): HTMLCanvasElement | null {
    return this.parts?.panel ?? null;
  }

  /** Sizes the canvas to the space around it. */
  fit(): void {
    if (this.parts) return this.arrange(this.parts);
    const fit = fitCanvas(this.space.clientWidth, this.space.clientHeight, devicePixelRatio, this.shown);
    this.canvas.style.width = `${fit.cssWidth}px`;
    this.canvas.style.height = `${fit.cssHeight}px`;
  }

  /** Applies pageLayout to the page: the canvas's size, the view's clip, the panel canvas, the status line. */
  private arrange(parts: LayoutParts): void {
    const doc = this.canvas.ownerDocument;
    const page = doc.documentElement;
    const statusHeight = parts.status.offsetHeight;
    const layout = pageLayout(page.clientWidth, page.clientHeight, statusHeight, devicePixelRatio, this.shown);
    this.layout = layout;
    const px = layout.cssPerPixel;
    doc.body.dataset.layout = layout.mode;
    doc.body.dataset.status = layout.statusOverlay ? "overlay" : "row";
    this.canvas.style.width = `${this.shown.width * px}px`;
    this.canvas.style.height = `${this.shown.height * px}px`;
    const screen = parts.screen.style;
    screen.setProperty("--fb-css", `${px}px`);
    screen.setProperty("--crop-left", `${-layout.viewLeft * px}px`);
    screen.setProperty("--crop-top", `${-layout.viewTop * px}px`);
    screen.setProperty("--canvas-width", `${this.shown.width * px}px`);
    doc.body.dataset.hud = layout.hud;
    doc.body.dataset.logRoom = String(layout.logRoom);
    const stacked = layout.mode === "stacked";
    // The HUD as a bar over the view (issue 42): the framebuffer's panel is not shown, the clip ends at the view.
    const bar = layout.hud === "bar";
    screen.width = stacked || bar ? `${layout.viewColumns * px}px` : "";
    screen.height = stacked || bar ? `${layout.viewRows * px}px` : "";
    parts.panel.hidden = !stacked || bar;
    // Sideways (a phone held so): the bar goes in the margin beside the view when it is wide enough, so the
    // view's few rows stay clear; upright, or without such a margin, over the view's top.
    const margin = (page.clientWidth - layout.viewColumns * px) / 2;
    // What a crop leaves of the framebuffer's panel is not shown: the clip ends at the view (above).
    doc.body.dataset.hudPlace = bar && !stacked && margin >= HUD_MARGIN_MIN_CSS_PX ? "margin" : "view";
    doc.body.style.setProperty("--hud-margin-width", `${Math.floor(margin)}px`);
    parts.panel.style.width = `${(this.shown.panel.w * layout.panelScale) / devicePixelRatio}px`;
    parts.panel.style.height = `${(this.shown.panel.h * layout.panelScale) / devicePixelRatio}px`;
    // Over the view's bottom edge, never the panel: the player stands in the middle of the view.
    const status = parts.status.style;
    if (layout.statusOverlay) {
      const box = this.canvas.getBoundingClientRect();
      status.left = `${box.left + this.shown.view.x * px}px`;
      status.width = `${this.shown.view.w * px}px`;
    } else {
      status.left = "";
      status.width = "";
    }
  }

  /** Shows the RGBA region (fb_to_rgba has run). */
  present(): void {
    const rgba = this.blitter.rgba();
    if (rgba !== this.imageSource) {
      // A new view means wasm memory grew; ImageData must wrap the new buffer.
      this.imageSource = rgba;
      this.image = new ImageData(rgba as Uint8ClampedArray<ArrayBuffer>, this.blitter.width, this.blitter.height);
    }
    this.context.putImageData(this.image!, 0, 0);
    // Only the panel's rectangle, from the same ImageData (no copy of the view).
    if (this.panelContext && this.layout?.mode === "stacked") {
      this.panelContext.putImageData(
        this.image!,
        -this.shown.panel.x,
        -this.shown.panel.y,
        this.shown.panel.x,
        this.shown.panel.y,
        this.shown.panel.w,
        this.shown.panel.h,
      );
    }
  }
}
