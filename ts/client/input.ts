// Keyboard input: one binding table from physical keys (KeyboardEvent.code) to
// movement directions and named commands, a DOM-free InputState that turns the
// set of held keys into one movement action code, and a thin DOM shell.
//
// Held directions combine as a vector: N + E walks NE, opposite directions
// cancel (N + S is no movement), and a numpad diagonal counts as its two
// cardinals, so Numpad9 + Numpad1 cancel too. A key held twice through two
// bindings (ArrowUp and KeyW) counts once. `code` names the physical key, so
// WASD stays in the same place on AZERTY or Dvorak layouts.

// Movement action codes: the wire's own (ts/protocol/action.ts), under the names this module uses.
import {
  ACTION_E as MOVE_E,
  ACTION_N as MOVE_N,
  ACTION_NE as MOVE_NE,
  ACTION_NOOP as MOVE_NONE,
  ACTION_NW as MOVE_NW,
  ACTION_S as MOVE_S,
  ACTION_SE as MOVE_SE,
  ACTION_SW as MOVE_SW,
  ACTION_W as MOVE_W,
  actionFromDelta,
} from "../protocol/action.js";

export { MOVE_E, MOVE_N, MOVE_NE, MOVE_NONE, MOVE_NW, MOVE_S, MOVE_SE, MOVE_SW, MOVE_W };

/** Named commands that are not movement. */
export type InputCommand =
  | "debug-toggle"
  | "chat"
  | "cancel"
  | "interact"
  | "log-tab"
  | "inventory"
  | "take-all"
  | "minimap"
  | "who-online"
  | "quests"
  | "name-tags"
  | "sound";

export type KeyBinding =
  | { readonly kind: "move"; readonly dx: -1 | 0 | 1; readonly dy: -1 | 0 | 1 }
  | { readonly kind: "command"; readonly command: InputCommand };

const move = (dx: -1 | 0 | 1, dy: -1 | 0 | 1): KeyBinding => ({ kind: "move", dx, dy });
const command = (name: InputCommand): KeyBinding => ({ kind: "command", command: name });

/** Every key the game reacts to. North is y - 1. */
export const KEY_BINDINGS: Readonly<Record<string, KeyBinding>> = {
  ArrowUp: move(0, -1),
  ArrowRight: move(1, 0),
  ArrowDown: move(0, 1),
  ArrowLeft: move(-1, 0),
  KeyW: move(0, -1),
  KeyD: move(1, 0),
  KeyS: move(0, 1),
  KeyA: move(-1, 0),
  Numpad8: move(0, -1),
  Numpad6: move(1, 0),
  Numpad2: move(0, 1),
  Numpad4: move(-1, 0),
  Numpad9: move(1, -1),
  Numpad3: move(1, 1),
  Numpad1: move(-1, 1),
  Numpad7: move(-1, -1),
  F3: command("debug-toggle"),
  Enter: command("chat"),
  NumpadEnter: command("chat"),
  Escape: command("cancel"),
  KeyE: command("interact"),
  KeyL: command("log-tab"),
  KeyI: command("inventory"),
  KeyT: command("take-all"),
  KeyM: command("minimap"),
  KeyO: command("who-online"),
  KeyJ: command("quests"),
  KeyN: command("name-tags"),
  KeyV: command("sound"),
};

/** Action code for a step (dx, dy) with each component in -1..1; (0, 0) is MOVE_NONE (the protocol's inverse table). */
export { actionFromDelta };

/** Which keys are held and which commands were pressed; fed with key codes, read by the game loop. */
export class InputState {
  private readonly held = new Set<string>();
  private readonly commands: InputCommand[] = [];
  private movePressed = false;
  /** The movement action the held keys made at the latest movement key-down since the last takeMovePress. */
  private pressedAction = MOVE_NONE;

  constructor(private readonly bindings: Readonly<Record<string, KeyBinding>> = KEY_BINDINGS) {}

  /**
   * A key went down. Returns true when the key is bound (the DOM shell then suppresses the
   * browser's default, e.g. arrow keys scrolling). Auto-repeat (a down for a held key) changes nothing.
   */
  keyDown(code: string): boolean {
    const binding = this.bindings[code];
    if (binding === undefined) return false;
    if (this.held.has(code)) return true;
    this.held.add(code);
    if (binding.kind === "command") this.commands.push(binding.command);
    else {
      this.movePressed = true;
      // Kept until read: a tap released before the game loop looks still moves (Steering.pressAction).
      this.pressedAction = this.moveAction();
    }
    return true;
  }

  /** A key went up. Returns true when the key is bound. */
  keyUp(code: string): boolean {
    this.held.delete(code);
    return this.bindings[code] !== undefined;
  }

  /** Forget every held key: the page lost focus, so their key-ups will never arrive. */
  releaseAll(): void {
    this.held.clear();
  }

  isHeld(code: string): boolean {
    return this.held.has(code);
  }

  /** The movement action of the held keys right now (MOVE_NONE when nothing or only opposites are held). */
  moveAction(): number {
    let north = false;
    let east = false;
    let south = false;
    let west = false;
    for (const code of this.held) {
      const binding = this.bindings[code];
      if (binding?.kind !== "move") continue;
      if (binding.dy < 0) north = true;
      if (binding.dy > 0) south = true;
      if (binding.dx > 0) east = true;
      if (binding.dx < 0) west = true;
    }
    return actionFromDelta(Number(east) - Number(west), Number(south) - Number(north));
  }

  /** True once after any movement key went down since the last call (keyboard overrides click-to-move). */
  takeMovePressed(): boolean {
    const pressed = this.movePressed;
    this.movePressed = false;
    return pressed;
  }

  /**
   * The movement action of the latest movement key press since the last call — what the held keys
   * made at that key-down, even if they are up again — or MOVE_NONE when there was none (or only
   * opposites were held). The game owes each such press one step.
   */
  takeMovePress(): number {
    const action = this.pressedAction;
    this.pressedAction = MOVE_NONE;
    return action;
  }

  /** Commands pressed since the last call, oldest first. */
  takeCommands(): InputCommand[] {
    return this.commands.splice(0, this.commands.length);
  }
}

/** The slice of the DOM the shell needs: an element or window that emits keyboard and focus events. */
export interface KeyEventTarget {
  addEventListener(type: string, listener: (event: Event) => void): void;
  removeEventListener(type: string, listener: (event: Event) => void): void;
}

export interface AttachKeyboardOptions {
  /** When this returns true (e.g. the chat box has focus) keys pass through to the page untouched. */
  isTextEntryActive?: () => boolean;
}

/**
 * Feeds `state` from the target's keydown/keyup events and releases everything on blur.
 * Returns a function that detaches the listeners.
 */
export function attachKeyboard(
  target: KeyEventTarget,
  state: InputState,
  options: AttachKeyboardOptions = {},
): () => void {
  const onKeyDown = (event: Event): void => {
    const key = event as KeyboardEvent;
    if (options.isTextEntryActive?.() || key.ctrlKey || key.metaKey || key.altKey) return;
    if (state.keyDown(key.code)) key.preventDefault();
  };
  // Key-ups always count, even while typing, so that a key held before the chat opened is released.
  const onKeyUp = (event: Event): void => {
    const key = event as KeyboardEvent;
    if (state.keyUp(key.code) && !options.isTextEntryActive?.()) key.preventDefault();
  };
  const onBlur = (): void => state.releaseAll();
  target.addEventListener("keydown", onKeyDown);
  target.addEventListener("keyup", onKeyUp);
  target.addEventListener("blur", onBlur);
  return () => {
    target.removeEventListener("keydown", onKeyDown);
    target.removeEventListener("keyup", onKeyUp);
    target.removeEventListener("blur", onBlur);
  };
}
