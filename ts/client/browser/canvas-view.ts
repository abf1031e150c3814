// Puts the framebuffer on the page: the wasm RGBA region straight into an
// ImageData (no copy until putImageData), and the canvas sized to the largest
// whole multiple of 320×240 device pixels that fits, so every framebuffer
// pixel is the same square of screen pixels (image-rendering: pixelated).
import { FB_HEIGHT, FB_WIDTH } from "../../constants.js";
import type { WasmBlitter } from "../../wasm/blit.js";

export interface CanvasFit {
  /** Device pixels per framebuffer pixel (≥ 1). */
  scale: number;
  cssWidth: number;
  cssHeight: number;
}

/** The largest whole scale at which the framebuffer fits the space, in device pixels. */
export function fitCanvas(availableCssWidth: number, availableCssHeight: number, devicePixelRatio: number): CanvasFit {
  const ratio = devicePixelRatio > 0 ? devicePixelRatio : 1;
  const scale = Math.max(
    1,
    Math.floor(Math.min((availableCssWidth * ratio) / FB_WIDTH, (availableCssHeight * ratio) / FB_HEIGHT)),
  );
  return { scale, cssWidth: (FB_WIDTH * scale) / ratio, cssHeight: (FB_HEIGHT * scale) / ratio };
}

export class CanvasView {
  private readonly context: CanvasRenderingContext2D;
  private image: ImageData | null = null;
  private imageSource: Uint8ClampedArray | null = null;

  constructor(
    readonly canvas: HTMLCanvasElement,
    private readonly space: HTMLElement,
    private readonly blitter: WasmBlitter,
  ) {
    const context = canvas.getContext("2d", { alpha: false });
    if (!context) throw new Error("this browser cannot draw on a canvas");
    this.context = context;
    this.fit();
    window.addEventListener("resize", () => this.fit());
    // A zoom or a move to another screen changes devicePixelRatio without a resize.
    matchMedia(`(resolution: ${devicePixelRatio}dppx)`).addEventListener("change", () => this.fit(), { once: true });
  }

  /** Sizes the canvas to the space around it. */
  fit(): void {
    const fit = fitCanvas(this.space.clientWidth, this.space.clientHeight, devicePixelRatio);
    this.canvas.style.width = `${fit.cssWidth}px`;
    this.canvas.style.height = `${fit.cssHeight}px`;
  }

  /** Shows the RGBA region (fb_to_rgba has run). */
  present(): void {
    const rgba = this.blitter.rgba();
    if (rgba !== this.imageSource) {
      // A new view means wasm memory grew; ImageData must wrap the new buffer.
      this.imageSource = rgba;
      this.image = new ImageData(rgba as Uint8ClampedArray<ArrayBuffer>, FB_WIDTH, FB_HEIGHT);
    }
    this.context.putImageData(this.image!, 0, 0);
  }
}
