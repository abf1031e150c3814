// One action table: the wasm module's (action_dx / action_dy / ACTION_MAX) is
// the source, and the loader refuses to run with a TS table that differs from
// it. These tests run the real check against the real module: with the
// protocol's table it passes, with any drifted entry or bound it throws.
import { beforeAll, describe, expect, it } from "vitest";
import { ACTION_DX, ACTION_DY, ACTION_MAX } from "../ts/protocol/action.js";
import { type ActionTable, Core, CoreError, checkActionTable } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { WasmSim } from "../ts/wasm/sim.js";

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});

const PROTOCOL: ActionTable = { max: ACTION_MAX, dx: ACTION_DX, dy: ACTION_DY };

describe("the action table", () => {
  it("is the module's: ts/protocol/action.ts agrees with action_dx/action_dy for every code and on ACTION_MAX", () => {
    expect(() => checkActionTable(core.instance.exports)).not.toThrow();
    const sim = new WasmSim(core);
    const exported = core.instance.exports.ACTION_MAX as WebAssembly.Global;
    expect(exported.value).toBe(ACTION_MAX);
    for (let action = 0; action <= ACTION_MAX; action++) {
      expect([sim.actionDx(action), sim.actionDy(action)]).toEqual([ACTION_DX[action], ACTION_DY[action]]);
    }
    // Codes beyond the table do not move (the rule rejects them too).
    for (const action of [ACTION_MAX + 1, 255, -1])
      expect([sim.actionDx(action), sim.actionDy(action)]).toEqual([0, 0]);
  });

  it("fails loudly on any drifted entry, naming the action", () => {
    for (let action = 0; action <= ACTION_MAX; action++) {
      for (const axis of ["dx", "dy"] as const) {
        const drifted = [...PROTOCOL[axis]];
        drifted[action] = drifted[action] === 1 ? 0 : drifted[action] + 1;
        const table = { ...PROTOCOL, [axis]: drifted };
        expect(() => checkActionTable(core.instance.exports, table)).toThrow(
          new RegExp(`^core module moves action ${action} by`),
        );
      }
    }
  });

  it("fails loudly when ACTION_MAX or the table's length differ", () => {
    expect(() => checkActionTable(core.instance.exports, { ...PROTOCOL, max: ACTION_MAX + 1 })).toThrow(CoreError);
    expect(() => checkActionTable(core.instance.exports, { ...PROTOCOL, dx: [...ACTION_DX, 0] })).toThrow(
      /must have 9 entries/,
    );
  });

  it("is checked when the core is instantiated: a module whose action_dx drifted is refused", () => {
    // The real module's exports with one function replaced, as a module built from a changed step.ts would be.
    const exports = { ...core.instance.exports, action_dx: (action: number) => (action === 2 ? -1 : 0) };
    expect(() => new Core({ exports } as WebAssembly.Instance)).toThrow(
      /moves action 2 by \(-1, 0\), ts\/protocol\/action.ts by \(1, 0\)/,
    );
    expect(() => new Core(core.instance)).not.toThrow();
  });
});
