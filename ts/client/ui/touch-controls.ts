// On-screen controls for touch screens (issue 18 item 4): a d-pad steered by
// dragging a thumb over it (eight directions and a dead centre), and buttons for
// use, chat and the map (the bag has its Bag button already, ui/item-panels.ts). They press the game's own keys — a KeyboardEvent with
// the bound `code` (input.ts KEY_BINDINGS) dispatched on the window — so every
// listener (movement, chat, use, the bag, the minimap) treats a touch exactly
// as its key: one binding table, no second path to keep in step. Holding the
// pad is holding the key (walking on); a tap is a key tap (exactly one step).
// Shown on a coarse pointer, or from the first touch anywhere on the page.
import { KEY_BINDINGS } from "../input.js";

/** The numpad key of each of the eight directions, row-major from north-west; the centre is none. */
const DIRECTION_KEYS: readonly (string | null)[] = [
  "Numpad7",
  "Numpad8",
  "Numpad9",
  "Numpad4",
  null,
  "Numpad6",
  "Numpad1",
  "Numpad2",
  "Numpad3",
];

/** Inside this fraction of the pad's radius a thumb steers nowhere (it rests). */
export const DPAD_DEAD_ZONE = 0.25;

/**
 * The key for a thumb at (dx, dy) from the pad's centre, the pad `radius` wide: the nearest of eight 45° sectors,
 * or null in the dead centre. y grows downwards (south), as on the page.
 */
export function dpadKeyAt(dx: number, dy: number, radius: number): string | null {
  if (!(radius > 0) || Math.hypot(dx, dy) < radius * DPAD_DEAD_ZONE) return null;
  // Sector 0 is east, counting clockwise on the page (y down): E, SE, S, SW, W, NW, N, NE.
  const sector = ((Math.round(Math.atan2(dy, dx) / (Math.PI / 4)) % 8) + 8) % 8;
  const column = [2, 2, 1, 0, 0, 0, 1, 2][sector];
  const row = [1, 2, 2, 2, 1, 0, 0, 0][sector];
  return DIRECTION_KEYS[row * 3 + column];
}

/** A touch button and the key it presses. */
export interface TouchButton {
  readonly label: string;
  readonly code: string;
  readonly testId: string;
}

export const TOUCH_BUTTONS: readonly TouchButton[] = [
  { label: "Use", code: "KeyE", testId: "touch-use" },
  { label: "Chat", code: "Enter", testId: "touch-chat" },
  { label: "Map", code: "KeyM", testId: "touch-map" },
];

export class TouchControls {
  private readonly pad: HTMLElement;
  /** The key the pad holds down, and the pointer holding it. */
  private heldKey: string | null = null;
  private padPointer: number | null = null;

  constructor(
    private readonly root: HTMLElement,
    /** Where the keys are dispatched (the window, where the game's keyboard listeners are). */
    private readonly keys: EventTarget,
    /** Focus goes back here before a key is pressed, so the game (not a button) has it. */
    private readonly home: HTMLElement,
  ) {
    const doc = root.ownerDocument;
    for (const button of TOUCH_BUTTONS) {
      if (KEY_BINDINGS[button.code] === undefined)
        throw new Error(`touch button ${button.label}: ${button.code} is not bound`);
    }
    this.pad = doc.createElement("div");
    this.pad.className = "touch-dpad";
    this.pad.dataset.testid = "dpad";
    this.pad.setAttribute("aria-label", "Walk: drag a thumb over the pad");
    for (const arrow of ["↖", "↑", "↗", "←", "", "→", "↙", "↓", "↘"]) {
      const cell = doc.createElement("span");
      cell.textContent = arrow;
      this.pad.append(cell);
    }
    this.pad.addEventListener("pointerdown", (event) => this.padDown(event));
    this.pad.addEventListener("pointermove", (event) => {
      if (event.pointerId === this.padPointer) this.steer(event);
    });
    for (const type of ["pointerup", "pointercancel", "lostpointercapture"]) {
      this.pad.addEventListener(type, (event) => {
        if ((event as PointerEvent).pointerId === this.padPointer) this.padUp();
      });
    }
    const buttons = doc.createElement("div");
    buttons.className = "touch-buttons";
    for (const button of TOUCH_BUTTONS) {
      const element = doc.createElement("button");
      element.type = "button";
      element.tabIndex = -1;
      element.textContent = button.label;
      element.dataset.testid = button.testId;
      // Not a focus of its own: the key must reach the game as if typed on it.
      element.addEventListener("pointerdown", (event) => event.preventDefault());
      element.addEventListener("click", () => this.tap(button.code));
      buttons.append(element);
    }
    root.replaceChildren(this.pad, buttons);
    root.addEventListener("contextmenu", (event) => event.preventDefault());
    const coarse = doc.defaultView?.matchMedia("(pointer: coarse)");
    if (coarse?.matches) this.show();
    doc.addEventListener("pointerdown", (event) => {
      if (event.pointerType === "touch") this.show();
    });
  }

  get shown(): boolean {
    return !this.root.hidden;
  }

  show(): void {
    this.root.hidden = false;
  }

  private padDown(event: PointerEvent): void {
    event.preventDefault();
    if (this.padPointer !== null) return;
    this.padPointer = event.pointerId;
    this.pad.setPointerCapture(event.pointerId);
    this.steer(event);
  }

  private steer(event: PointerEvent): void {
    const box = this.pad.getBoundingClientRect();
    const key = dpadKeyAt(
      event.clientX - (box.left + box.width / 2),
      event.clientY - (box.top + box.height / 2),
      Math.min(box.width, box.height) / 2,
    );
    if (key === this.heldKey) return;
    if (this.heldKey !== null) this.press("keyup", this.heldKey);
    this.heldKey = key;
    this.pad.dataset.held = key ?? "";
    if (key !== null) this.press("keydown", key);
  }

  private padUp(): void {
    this.padPointer = null;
    if (this.heldKey !== null) this.press("keyup", this.heldKey);
    this.heldKey = null;
    this.pad.dataset.held = "";
  }

  private tap(code: string): void {
    this.press("keydown", code);
    this.press("keyup", code);
  }

  private press(type: "keydown" | "keyup", code: string): void {
    if (type === "keydown") this.home.focus({ preventScroll: true });
    this.keys.dispatchEvent(new KeyboardEvent(type, { code, bubbles: true, cancelable: true }));
  }
}
