// Mouse (and pen/touch) over the canvas: remembers the framebuffer pixel under
// the pointer and turns the primary button into ClickSteering presses and
// releases. The pointer is captured while pressed, so steering keeps working
// when it strays off the canvas, and a lost capture counts as a release. A press
// on the side panel goes to `onPanelPress` (the log's tabs) instead. A touch tap
// ends with the pointer leaving the canvas, often before the next frame aimed
// at it: its pixel is kept until the frame loop aimed the press (settle()), so
// a tap always walks, or attacks, like a click.
import type { ClickSteering } from "../ui/click-steering.js";
import { DEFAULT_SCREEN, type Screen, contains } from "../render/layout.js";
import { framebufferPixelAt, framebufferPixelIn, type Point } from "../render/picking.js";

export class PointerInput {
  /** The framebuffer pixel under the pointer, or null when it is off the canvas. */
  pixel: Point | null = null;
  /** The pointer left while a press was still to be aimed: forget its pixel once it is (settle). */
  private left = false;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly steering: ClickSteering,
    private readonly onPanelPress: (pixel: Point) => void = () => {},
    /** The stacked layout's panel canvas (it shows the framebuffer's PANEL): a press there is a panel press too. */
    panel: HTMLCanvasElement | null = null,
    /** The framebuffer shown (CanvasView.screen): its size maps the pointer, its view tells steering from the panel. */
    private readonly screenOf: () => Screen = () => DEFAULT_SCREEN,
  ) {
    panel?.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      const pixel = framebufferPixelIn(
        event.clientX,
        event.clientY,
        panel.getBoundingClientRect(),
        this.screenOf().panel,
      );
      if (pixel !== null) this.onPanelPress(pixel);
    });
    canvas.addEventListener("pointerdown", (event) => this.down(event));
    canvas.addEventListener("pointermove", (event) => this.track(event));
    canvas.addEventListener("pointerup", () => steering.release());
    canvas.addEventListener("pointercancel", () => steering.release());
    canvas.addEventListener("lostpointercapture", () => steering.release());
    canvas.addEventListener("pointerleave", () => {
      if (steering.steering) return;
      if (steering.aimPending) this.left = true;
      else this.pixel = null;
    });
    canvas.addEventListener("contextmenu", (event) => event.preventDefault());
  }

  /** Called by the frame loop after it aimed: a pointer that left during a tap is forgotten now. */
  settle(): void {
    if (!this.left || this.steering.aimPending) return;
    this.left = false;
    if (!this.steering.steering) this.pixel = null;
  }

  private track(event: PointerEvent): void {
    this.left = false;
    this.pixel = framebufferPixelAt(event.clientX, event.clientY, this.canvas.getBoundingClientRect(), this.screenOf());
  }

  private down(event: PointerEvent): void {
    if (event.button !== 0) return;
    this.track(event);
    this.canvas.focus();
    if (this.pixel === null) return;
    if (!contains(this.screenOf().view, this.pixel.x, this.pixel.y)) {
      this.onPanelPress(this.pixel);
      return;
    }
    event.preventDefault();
    this.canvas.setPointerCapture(event.pointerId);
    this.steering.press();
  }
}
