// Keyboard map: bindings, combinations of held keys, releases, commands and the DOM shell.
// The action codes are checked against THE movement rule in wasm, not against
// themselves: MOVE_* are aliases of the protocol's ACTION_* codes, so only the
// rule can tell whether a key moves the way its binding says.
import { beforeAll, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import {
  actionFromDelta,
  attachKeyboard,
  InputState,
  KEY_BINDINGS,
  MOVE_E,
  MOVE_N,
  MOVE_NE,
  MOVE_NONE,
  MOVE_NW,
  MOVE_S,
  MOVE_SE,
  MOVE_SW,
  MOVE_W,
  type KeyEventTarget,
} from "../ts/client/input.js";
import { loadCore } from "../ts/wasm/node.js";
import { WasmSim } from "../ts/wasm/sim.js";

let sim: WasmSim;
beforeAll(async () => {
  sim = new WasmSim(await loadCore());
  // A 3×3 open floor (tile 1, no flags) around (1, 1): every step from the centre is allowed.
  expect(sim.initGrid(3, 3, 0, 0)).toBe(true);
  sim.resetFlags();
  for (let y = 0; y < 3; y++) for (let x = 0; x < 3; x++) sim.setTile(x, y, 1);
});

/** Where THE movement rule takes an entity from (1, 1) by one step `action`, as (dx, dy). */
function ruleStep(action: number): [number, number] {
  const { x, y } = sim.replay(1, 1, 0, [{ window: 1, action }]);
  return [x - 1, y - 1];
}

/** Action codes and their (dx, dy) from the brief's shared vocabulary. */
const DELTAS: Record<number, [number, number]> = {
  [MOVE_NONE]: [0, 0],
  [MOVE_N]: [0, -1],
  [MOVE_E]: [1, 0],
  [MOVE_S]: [0, 1],
  [MOVE_W]: [-1, 0],
  [MOVE_NE]: [1, -1],
  [MOVE_SE]: [1, 1],
  [MOVE_SW]: [-1, 1],
  [MOVE_NW]: [-1, -1],
};

function held(...codes: string[]): number {
  const state = new InputState();
  for (const code of codes) state.keyDown(code);
  return state.moveAction();
}

describe("action codes", () => {
  it("match the wire vocabulary 0..8", () => {
    expect([MOVE_NONE, MOVE_N, MOVE_E, MOVE_S, MOVE_W, MOVE_NE, MOVE_SE, MOVE_SW, MOVE_NW]).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8,
    ]);
    for (const [action, [dx, dy]] of Object.entries(DELTAS)) expect(actionFromDelta(dx, dy)).toBe(Number(action));
  });

  it("move by the (dx, dy) the movement rule in wasm moves them", () => {
    for (const [action, delta] of Object.entries(DELTAS))
      expect(ruleStep(Number(action)), `action ${action}`).toEqual(delta);
  });

  it("make every movement key step the way its binding points, through the rule", () => {
    const moves = Object.entries(KEY_BINDINGS).filter(([, binding]) => binding.kind === "move");
    expect(moves.length).toBeGreaterThanOrEqual(8);
    for (const [code, binding] of moves) {
      if (binding.kind !== "move") continue;
      expect(ruleStep(held(code)), code).toEqual([binding.dx, binding.dy]);
    }
  });
});

describe("InputState", () => {
  it.each([
    [["ArrowUp"], MOVE_N],
    [["KeyW"], MOVE_N],
    [["Numpad8"], MOVE_N],
    [["ArrowRight"], MOVE_E],
    [["KeyD"], MOVE_E],
    [["Numpad6"], MOVE_E],
    [["ArrowDown"], MOVE_S],
    [["KeyS"], MOVE_S],
    [["Numpad2"], MOVE_S],
    [["ArrowLeft"], MOVE_W],
    [["KeyA"], MOVE_W],
    [["Numpad4"], MOVE_W],
    [["Numpad9"], MOVE_NE],
    [["Numpad3"], MOVE_SE],
    [["Numpad1"], MOVE_SW],
    [["Numpad7"], MOVE_NW],
    [["ArrowUp", "ArrowRight"], MOVE_NE],
    [["KeyS", "KeyD"], MOVE_SE],
    [["ArrowDown", "KeyA"], MOVE_SW],
    [["Numpad8", "Numpad4"], MOVE_NW],
    [["ArrowUp", "ArrowDown"], MOVE_NONE],
    [["KeyA", "KeyD"], MOVE_NONE],
    [["ArrowUp", "ArrowRight", "ArrowDown"], MOVE_E],
    [["ArrowUp", "ArrowRight", "ArrowDown", "ArrowLeft"], MOVE_NONE],
    [["Numpad9", "Numpad1"], MOVE_NONE],
    [["Numpad9", "ArrowDown"], MOVE_E],
    [["ArrowUp", "KeyW"], MOVE_N],
    [["KeyQ"], MOVE_NONE],
    [[], MOVE_NONE],
  ])("held %j -> %i", (codes, action) => {
    expect(held(...codes)).toBe(action);
  });

  it("releasing one of two keys leaves the other's direction", () => {
    const state = new InputState();
    state.keyDown("ArrowUp");
    state.keyDown("ArrowRight");
    expect(state.moveAction()).toBe(MOVE_NE);
    state.keyUp("ArrowUp");
    expect(state.moveAction()).toBe(MOVE_E);
    state.keyUp("ArrowRight");
    expect(state.moveAction()).toBe(MOVE_NONE);
  });

  it("a direction held through two keys stays held until both are up", () => {
    const state = new InputState();
    state.keyDown("ArrowUp");
    state.keyDown("KeyW");
    state.keyUp("ArrowUp");
    expect(state.moveAction()).toBe(MOVE_N);
    state.keyUp("KeyW");
    expect(state.moveAction()).toBe(MOVE_NONE);
  });

  it("releasing the cancelling key restores the other direction", () => {
    const state = new InputState();
    state.keyDown("KeyA");
    state.keyDown("KeyD");
    expect(state.moveAction()).toBe(MOVE_NONE);
    state.keyUp("KeyA");
    expect(state.moveAction()).toBe(MOVE_E);
  });

  it("matches the vector sum of held directions, clamped per axis, for any press/release sequence", () => {
    const codes = Object.keys(KEY_BINDINGS);
    const events = fc.array(fc.tuple(fc.boolean(), fc.constantFrom(...codes, "KeyQ")), { maxLength: 40 });
    fc.assert(
      fc.property(events, (sequence) => {
        const state = new InputState();
        const down = new Set<string>();
        for (const [press, code] of sequence) {
          if (press) {
            state.keyDown(code);
            down.add(code);
          } else {
            state.keyUp(code);
            down.delete(code);
          }
          let north = false;
          let south = false;
          let east = false;
          let west = false;
          for (const key of down) {
            const binding = KEY_BINDINGS[key];
            if (binding?.kind !== "move") continue;
            north ||= binding.dy < 0;
            south ||= binding.dy > 0;
            east ||= binding.dx > 0;
            west ||= binding.dx < 0;
          }
          const [dx, dy] = DELTAS[state.moveAction()];
          expect([dx, dy]).toEqual([Number(east) - Number(west), Number(south) - Number(north)]);
        }
      }),
      { seed: 0x1297, numRuns: 300 },
    );
  });

  it("queues named commands once per press, ignoring auto-repeat", () => {
    const state = new InputState();
    state.keyDown("F3");
    state.keyDown("F3");
    state.keyUp("F3");
    state.keyDown("Enter");
    state.keyDown("Escape");
    state.keyDown("NumpadEnter");
    expect(state.takeCommands()).toEqual(["debug-toggle", "chat", "cancel", "chat"]);
    expect(state.takeCommands()).toEqual([]);
    state.keyUp("F3");
    state.keyDown("F3");
    expect(state.takeCommands()).toEqual(["debug-toggle"]);
  });

  it("reports fresh movement presses once, for the click-to-move override", () => {
    const state = new InputState();
    expect(state.takeMovePressed()).toBe(false);
    state.keyDown("KeyW");
    expect(state.takeMovePressed()).toBe(true);
    expect(state.takeMovePressed()).toBe(false);
    state.keyDown("KeyW"); // auto-repeat
    expect(state.takeMovePressed()).toBe(false);
    state.keyDown("F3");
    expect(state.takeMovePressed()).toBe(false);
  });

  it("keeps the action of a press until read, even when the key is already up (a tap between frames)", () => {
    const state = new InputState();
    expect(state.takeMovePress()).toBe(MOVE_NONE);
    state.keyDown("ArrowRight");
    state.keyUp("ArrowRight"); // a 30 ms tap, over before the game loop looks
    expect(state.moveAction()).toBe(MOVE_NONE);
    expect(state.takeMovePress()).toBe(MOVE_E);
    expect(state.takeMovePress()).toBe(MOVE_NONE);
    state.keyDown("ArrowUp");
    state.keyDown("ArrowRight"); // the latest press counts, with what is held with it
    expect(state.takeMovePress()).toBe(MOVE_NE);
    state.keyDown("ArrowRight"); // auto-repeat is no press
    expect(state.takeMovePress()).toBe(MOVE_NONE);
  });

  it("tells bound keys from unbound ones and forgets everything on releaseAll", () => {
    const state = new InputState();
    expect(state.keyDown("KeyQ")).toBe(false);
    expect(state.keyDown("ArrowLeft")).toBe(true);
    expect(state.keyUp("KeyQ")).toBe(false);
    state.keyDown("ArrowUp");
    state.releaseAll();
    expect(state.moveAction()).toBe(MOVE_NONE);
    expect(state.isHeld("ArrowLeft")).toBe(false);
  });

  it("accepts a custom binding table", () => {
    const state = new InputState({ KeyI: { kind: "move", dx: 0, dy: -1 } });
    state.keyDown("ArrowUp");
    state.keyDown("KeyI");
    expect(state.moveAction()).toBe(MOVE_N);
    state.keyUp("KeyI");
    expect(state.moveAction()).toBe(MOVE_NONE);
  });
});

/** A stand-in for a DOM element: records listeners and dispatches hand-made events. */
class FakeTarget implements KeyEventTarget {
  readonly listeners = new Map<string, Set<(event: Event) => void>>();
  addEventListener(type: string, listener: (event: Event) => void): void {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)!.add(listener);
  }
  removeEventListener(type: string, listener: (event: Event) => void): void {
    this.listeners.get(type)?.delete(listener);
  }
  dispatch(type: string, init: { code?: string; ctrlKey?: boolean } = {}): { preventDefault: () => void } {
    const event = { type, code: init.code ?? "", ctrlKey: init.ctrlKey ?? false, preventDefault: vi.fn() };
    for (const listener of this.listeners.get(type) ?? []) listener(event as unknown as Event);
    return event;
  }
}

describe("attachKeyboard", () => {
  it("feeds the state and suppresses the browser default only for bound keys", () => {
    const target = new FakeTarget();
    const state = new InputState();
    attachKeyboard(target, state);
    const arrow = target.dispatch("keydown", { code: "ArrowDown" });
    expect(arrow.preventDefault).toHaveBeenCalled();
    expect(state.moveAction()).toBe(MOVE_S);
    const other = target.dispatch("keydown", { code: "KeyQ" });
    expect(other.preventDefault).not.toHaveBeenCalled();
    target.dispatch("keyup", { code: "ArrowDown" });
    expect(state.moveAction()).toBe(MOVE_NONE);
  });

  it("lets browser shortcuts and text entry through, but still sees key-ups", () => {
    const target = new FakeTarget();
    const state = new InputState();
    let typing = false;
    attachKeyboard(target, state, { isTextEntryActive: () => typing });
    expect(target.dispatch("keydown", { code: "KeyW", ctrlKey: true }).preventDefault).not.toHaveBeenCalled();
    expect(state.moveAction()).toBe(MOVE_NONE);
    target.dispatch("keydown", { code: "KeyD" });
    typing = true;
    expect(target.dispatch("keydown", { code: "KeyW" }).preventDefault).not.toHaveBeenCalled();
    expect(state.moveAction()).toBe(MOVE_E);
    target.dispatch("keyup", { code: "KeyD" });
    expect(state.moveAction()).toBe(MOVE_NONE);
  });

  it("releases everything on blur and detaches cleanly", () => {
    const target = new FakeTarget();
    const state = new InputState();
    const detach = attachKeyboard(target, state);
    target.dispatch("keydown", { code: "ArrowUp" });
    target.dispatch("blur");
    expect(state.moveAction()).toBe(MOVE_NONE);
    detach();
    expect([...target.listeners.values()].every((set) => set.size === 0)).toBe(true);
    target.dispatch("keydown", { code: "ArrowUp" });
    expect(state.moveAction()).toBe(MOVE_NONE);
  });
});
