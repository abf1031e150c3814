// The sandbox alone, on the real wasm Lua: what a script reaches, the budget and the memory cap on
// hostile scripts (each stopped, the state usable afterwards), positions in errors, the boundary's
// values, and the same iteration order in two worlds made alike.
import { beforeAll, describe, expect, it } from "vitest";
import { LuaFunctionRef, LuaRuntime, type LuaSandbox, ScriptError } from "./lua-sandbox.js";

let runtime: LuaRuntime;
beforeAll(async () => {
  runtime = await LuaRuntime.load();
});

const BUDGET = 200_000;
const MIB = 1 << 20;

function sandbox(source: string, name = "test.lua", memory = 4 * MIB): LuaSandbox {
  const box = runtime.newSandbox(name, memory);
  box.run(source, `@${name}`, 2_000_000);
  return box;
}

function stopped(box: LuaSandbox, fn: string, args: unknown[] = []): ScriptError {
  try {
    box.callGlobal(fn, args as never[], BUDGET);
  } catch (error) {
    if (error instanceof ScriptError) return error;
    throw error;
  }
  throw new Error(`${fn} was not stopped`);
}

describe("the Lua sandbox", () => {
  it("reaches nothing of the host: no files, clock, process, loading or randomness of its own", () => {
    const box = sandbox(`
      function reach()
        return { io = io == nil, os = os == nil, load = load == nil, loadfile = loadfile == nil,
                 dofile = dofile == nil, require = require == nil, package = package == nil, debug = debug == nil,
                 random = math.random == nil, dump = string.dump == nil, gsub = string.gsub == nil,
                 collect = collectgarbage == nil, print = print == nil, coroutine = coroutine == nil }
      end`);
    const [reached] = box.callGlobal("reach", [], BUDGET)!;
    expect(Object.values(reached as Record<string, boolean>).every((gone) => gone)).toBe(true);
    box.close();
  });

  it("stops an endless loop at the budget, even one that catches errors, and the state goes on", () => {
    const box = sandbox(`
      function spin() while true do end end
      function stubborn() while true do pcall(function() while true do end end) end end
      function add(a, b) return a + b end`);
    const spin = stopped(box, "spin");
    expect(spin.kind).toBe("budget");
    expect(spin.message).toMatch(/instruction budget exceeded/);
    expect(stopped(box, "stubborn").kind).toBe("budget");
    expect(box.callGlobal("add", [2, 3], BUDGET)).toEqual([5]);
    box.close();
  });

  it("counts the same instructions for the same call, every time", () => {
    const box = sandbox(`function work(n) local s = 0 for i = 1, n do s = s + i end return s end`);
    const counts: number[] = [];
    for (let i = 0; i < 4; i++) {
      box.callGlobal("work", [5000], BUDGET);
      counts.push(box.lastSteps);
    }
    expect(new Set(counts).size).toBe(1);
    expect(counts[0]).toBeGreaterThan(5000);
    box.close();
  });

  it("stops memory bombs at the cap and huge strings at once, and the state goes on", () => {
    const box = sandbox(
      `function grow() local t = {} for i = 1, 1e9 do t[i] = i end end
       function double() local s = "x" while true do s = s .. s end end
       function rep() return #string.rep("x", 100 * 1024 * 1024) end
       function ok() return "fine" end`,
      "bomb.lua",
      8 * MIB,
    );
    for (const fn of ["grow", "double", "rep"]) {
      const error = stopped(box, fn);
      expect(["memory", "budget"]).toContain(error.kind);
    }
    expect(box.used).toBeLessThanOrEqual(8 * MIB);
    expect(box.callGlobal("ok", [], BUDGET)).toEqual(["fine"]);
    box.close();
  });

  it("stops deep recursion cleanly", () => {
    const box = sandbox(`function deep(n) return deep(n + 1) + 1 end function ok() return 1 end`, "deep.lua");
    const error = stopped(box, "deep", [1]);
    expect(error.message).toMatch(/stack overflow|not enough memory|budget/);
    expect(box.callGlobal("ok", [], BUDGET)).toEqual([1]);
    box.close();
  });

  it("charges sorting and finding by their input, where no instruction count sees them", () => {
    const box = sandbox(`
      function sorts(n) local t = {} for i = 1, n do t[i] = n - i end table.sort(t) return t[1], t[n] end
      function finds() return string.find("a.b.c", ".", 2) end`);
    expect(box.callGlobal("sorts", [1000], BUDGET)).toEqual([0, 999]);
    expect(box.lastSteps).toBeGreaterThan(1000 * 10 * 2);
    // Plain: a "." is a dot, not a pattern.
    expect(box.callGlobal("finds", [], BUDGET)).toEqual([2, 2]);
    box.close();
  });

  it("names the file and line of an error, a syntax error, and a host function's refusal", () => {
    const box = sandbox(`\nlocal x\nfunction broken()\n  return x.field\nend`, "npc.lua");
    expect(stopped(box, "broken").message).toMatch(/^npc\.lua:4: attempt to index a nil value/);
    let syntax: unknown;
    try {
      runtime.newSandbox("bad.lua", MIB).run("function (\n", "@bad.lua", BUDGET);
    } catch (error) {
      syntax = error;
    }
    expect(syntax).toBeInstanceOf(ScriptError);
    expect((syntax as ScriptError).kind).toBe("syntax");
    expect((syntax as ScriptError).message).toMatch(/^bad\.lua:1:/);
    box.expose("refuse", () => {
      throw new Error("no such item: unicorn horn");
    });
    box.run(`function asks()\n  refuse()\nend`, "@quest.lua", BUDGET);
    expect(stopped(box, "asks").message).toBe("quest.lua:2: no such item: unicorn horn");
    box.close();
  });

  it("carries values both ways: tables as arrays and objects, functions as callbacks", () => {
    const box = sandbox(`
      function echo(v) return v end
      function later(x) return function(y) return x + y end end`);
    const value = { name: "bread", prices: [3, 4, 5], nested: { ok: true } };
    expect(box.callGlobal("echo", [value], BUDGET)).toEqual([value]);
    const [callback] = box.callGlobal("later", [40], BUDGET)!;
    expect(callback).toBeInstanceOf(LuaFunctionRef);
    expect(box.callRef(callback as LuaFunctionRef, [2], BUDGET)).toEqual([42]);
    box.releaseRef(callback as LuaFunctionRef);
    box.expose("wares", () => [[{ item: "bread", price: 3 }]]);
    box.run(`function first() return wares()[1].price end`, "@shop.lua", BUDGET);
    expect(box.callGlobal("first", [], BUDGET)).toEqual([3]);
    box.close();
  });

  it("iterates tables in the same order in two worlds whose states were made in the same order", async () => {
    const order = async () => {
      const world = await LuaRuntime.load();
      const boxes = ["a.lua", "b.lua"].map((name) => world.newSandbox(name, MIB));
      boxes[1].run(
        `function keys() local t = { apple = 1, pear = 2, fig = 3, plum = 4, kiwi = 5, lime = 6 }
           local out = {} for k in pairs(t) do out[#out + 1] = k end return table.concat(out, ",") end`,
        "@b.lua",
        BUDGET,
      );
      return boxes[1].callGlobal("keys", [], BUDGET);
    };
    expect(await order()).toEqual(await order());
  });
});
