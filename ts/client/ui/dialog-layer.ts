// Server-driven dialogs as HTML over the canvas (docs/client.md § Dialogs). Each
// shown dialog is an opaque panel placed in framebuffer pixels × the canvas's
// scale, its elements clipped to it: text (wrapped to its box, clipped to its
// height), a tileset image, buttons, single-line text inputs; plus a close box
// that dismisses. HTML rather than framebuffer drawing because text inputs need
// the browser's editing (IME, selection, paste) and buttons its focus and
// keyboard handling, and because the panel lies over the canvas and takes the
// pointer, so a click on a button never walks the player. A button press or Enter in a text input answers
// the dialog; Escape dismisses it. Where the page shows only part of the
// framebuffer (a portrait phone crops the view), a dialog is moved, and if
// need be shrunk, into that part (dialog-layout.ts placeInClip).
import type { ShownDialog } from "../core/dialogs.js";
import { CELL_SIZE_PX } from "../assets/sheets.js";
import {
  type Box,
  boxStyle,
  defaultButton,
  dialogTitle,
  fbLength,
  fitInput,
  imageScale,
  placeInClip,
} from "./dialog-layout.js";
import type { TileImages } from "./tile-images.js";

export interface DialogActions {
  /** A button was pressed, with the text inputs' values in element order. */
  reply(dialogId: number, returnCode: number, values: string[]): void;
  dismiss(dialogId: number): void;
}

interface DialogView {
  readonly root: HTMLElement;
  /** Where the server put it, in framebuffer pixels. */
  readonly box: Box;
  readonly inputs: HTMLInputElement[];
  readonly firstFocus: HTMLElement | null;
}

export class DialogLayer {
  private readonly views = new Map<number, DialogView>();
  private scale = 0;
  /** The part of the framebuffer the page shows, or null for all of it. */
  private clip: Box | null = null;

  constructor(
    private readonly layer: HTMLElement,
    private readonly tiles: TileImages,
    private readonly actions: DialogActions,
    /** Where focus goes when the last dialog holding it closes (the canvas). */
    private readonly home: HTMLElement,
  ) {}

  /** Ids shown, oldest first. */
  get ids(): number[] {
    return [...this.views.keys()];
  }

  /** One framebuffer pixel is `cssPixels` CSS pixels (the canvas's scale). */
  setScale(cssPixels: number): void {
    if (cssPixels === this.scale) return;
    this.scale = cssPixels;
    this.layer.style.setProperty("--fb-px", `${cssPixels}px`);
  }

  /** The page shows `clip` of the framebuffer (framebuffer pixels; null: all of it): dialogs are kept inside it. */
  setClip(clip: Box | null): void {
    const same =
      clip === this.clip ||
      (clip !== null &&
        this.clip !== null &&
        clip.x === this.clip.x &&
        clip.y === this.clip.y &&
        clip.width === this.clip.width &&
        clip.height === this.clip.height);
    if (same) return;
    this.clip = clip;
    for (const view of this.views.values()) this.position(view);
  }

  /** Makes the DOM show exactly `shown`: new dialogs appear (newest on top), closed ones go. */
  sync(shown: ReadonlyMap<number, ShownDialog>): void {
    for (const [id, view] of this.views) {
      if (shown.has(id)) continue;
      const hadFocus = view.root.contains(view.root.ownerDocument.activeElement);
      view.root.remove();
      this.views.delete(id);
      if (hadFocus) this.focusTopmost();
    }
    for (const dialog of shown.values()) {
      if (this.views.has(dialog.id)) continue;
      const view = this.build(dialog);
      this.views.set(dialog.id, view);
      this.position(view);
      this.layer.append(view.root);
      // A player typing in a field of the page (the chat box: "/offer 3 gold" while a trade window is
      // shown again with the other's new offer) keeps the keys: the new window does not take them, so the
      // Enter that sends the line cannot press the window's first button.
      const active = view.root.ownerDocument.activeElement;
      if (active instanceof HTMLInputElement && !this.layer.contains(active)) continue;
      // Placed inside the shown part already: focusing must not scroll the view's clip (it is the player's view).
      view.firstFocus?.focus({ preventScroll: true });
    }
  }

  /** Dismisses the newest dialog; false when none is shown. */
  dismissTopmost(): boolean {
    const id = this.ids.at(-1);
    if (id === undefined) return false;
    this.actions.dismiss(id);
    return true;
  }

  private focusTopmost(): void {
    const top = this.ids.at(-1);
    const target = top === undefined ? this.home : (this.views.get(top)!.firstFocus ?? this.home);
    target.focus({ preventScroll: true });
  }

  /** Puts a dialog where the server placed it, moved (and shrunk, if it must be) into the part shown. */
  private position(view: DialogView): void {
    const style = view.root.style;
    const { x, y, shrink } = this.clip ? placeInClip(view.box, this.clip) : { ...view.box, shrink: 1 };
    style.left = fbLength(x);
    style.top = fbLength(y);
    style.transform = shrink < 1 ? `scale(${shrink})` : "";
    style.transformOrigin = "0 0";
  }

  private build(dialog: ShownDialog): DialogView {
    const doc = this.layer.ownerDocument;
    const root = doc.createElement("div");
    root.className = "dialog";
    root.setAttribute("role", "dialog");
    root.setAttribute("aria-label", dialogTitle(dialog.elements));
    root.dataset.testid = "dialog";
    root.dataset.dialogId = String(dialog.id);
    place(root, dialog); // its size; sync() positions it
    const inputs: HTMLInputElement[] = [];
    let firstButton: HTMLButtonElement | null = null;
    const values = () => inputs.map((input) => input.value);
    const press = (returnCode: number) => this.actions.reply(dialog.id, returnCode, values());

    for (const element of dialog.elements) {
      switch (element.kind) {
        case "text": {
          const text = doc.createElement("div");
          text.className = "dialog-text";
          text.textContent = element.text;
          place(text, element);
          root.append(text);
          break;
        }
        case "image": {
          const factor = imageScale(element);
          const image = this.tiles.cell(doc, element.atlasIndex);
          image.className = "dialog-image";
          image.setAttribute("aria-hidden", "true");
          const frame = doc.createElement("div");
          frame.className = "dialog-image-box";
          place(frame, element);
          image.style.width = fbLength(CELL_SIZE_PX * factor);
          image.style.height = fbLength(CELL_SIZE_PX * factor);
          frame.append(image);
          root.append(frame);
          break;
        }
        case "button": {
          const button = doc.createElement("button");
          button.type = "button";
          button.className = "dialog-button";
          button.textContent = element.label;
          button.dataset.returnCode = String(element.returnCode);
          place(button, element);
          button.addEventListener("click", () => press(element.returnCode));
          firstButton ??= button;
          root.append(button);
          break;
        }
        case "text_input": {
          const input = doc.createElement("input");
          input.className = "dialog-input";
          input.value = fitInput(element.text, element.maxBytes);
          input.spellcheck = false;
          input.autocomplete = "off";
          input.setAttribute("aria-label", dialogTitle(dialog.elements));
          place(input, element);
          input.addEventListener("input", () => {
            const fitted = fitInput(input.value, element.maxBytes);
            if (fitted !== input.value) input.value = fitted;
          });
          root.append(input);
          inputs.push(input);
          break;
        }
      }
    }

    const close = doc.createElement("button");
    close.type = "button";
    close.className = "dialog-close";
    close.textContent = "×";
    close.title = "Close (Esc)";
    close.setAttribute("aria-label", "Close");
    close.dataset.testid = "dialog-close";
    close.addEventListener("click", () => this.actions.dismiss(dialog.id));
    root.append(close);

    // Enter and Escape are the dialog's: the page's own keys (Enter opens the chat, Escape drops the
    // route) must not see them, and the play session's keyboard would cancel a button's own Enter.
    root.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" && event.key !== "Enter") return;
      event.preventDefault();
      event.stopPropagation();
      if (event.key === "Escape") this.actions.dismiss(dialog.id);
      else if (event.target instanceof HTMLButtonElement) event.target.click();
      else if (event.target instanceof HTMLInputElement && !event.isComposing) {
        const button = defaultButton(dialog.elements);
        if (button) press(button.returnCode);
      }
    });
    const box = { x: dialog.x, y: dialog.y, width: dialog.width, height: dialog.height };
    return { root, box, inputs, firstFocus: inputs[0] ?? firstButton };
  }
}

function place(element: HTMLElement, box: Box): void {
  Object.assign(element.style, boxStyle(box));
}
