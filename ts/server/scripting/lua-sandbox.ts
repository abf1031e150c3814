// The sandbox host-written content runs in (docs/content.md, docs/scripting.md): Lua 5.4 compiled to
// WebAssembly (wasmoon), driven through its raw C API. Chosen by measurement over QuickJS
// (docs/scripting.md § Why Lua): its instruction count is exact and reset per call, so a budget is
// deterministic; its memory cap is exact and a script that hits it leaves its state usable; a new state
// costs ~100 µs and ~30 KiB.
//
// What a script can reach: base (without load, loadfile, dofile, collectgarbage, print), table, string
// (without dump and the pattern functions, whose backtracking no count can see), math (without random),
// utf8, and the functions the content API exposes. No file system, network, process, clock or timer.
//
// Metering: every call into a script runs under an instruction budget (a count hook every HOOK_EVERY
// VM instructions; past the budget every further instruction errors, so pcall cannot swallow it) and
// its state under a memory cap (the allocator refuses past it: "not enough memory"). Allocation is
// charged to the same budget (one instruction per BYTES_PER_STEP bytes), which covers the C functions
// that allocate (string.rep, table.concat); table.sort and string.find are charged by their input's size.
//
// Determinism: the states of one world live in one module instance and are created in a fixed order
// (the host sorts its files), with the clock stubbed while a state is made (Lua seeds its string hash
// from it), so a world run twice iterates its tables alike.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { LuaWasm } from "wasmoon";

type LuaState = number;
type Module = LuaWasm["module"];

const LUA_OK = 0;
const LUA_ERRMEM = 4;
const LUA_MASKCOUNT = 8;
const LUA_REGISTRYINDEX = -1001000;
const LUA_MULTRET = -1;
const T_NIL = 0;
const T_BOOLEAN = 1;
const T_NUMBER = 3;
const T_STRING = 4;
const T_TABLE = 5;
const T_FUNCTION = 6;

/** VM instructions between two looks at the budget. */
export const HOOK_EVERY = 1000;
/**
 * Allocations are charged to the instruction budget: ALLOCATION_STEPS for each (the allocator is a call
 * into the host, ~2 µs measured, the cost of some 200 VM instructions) plus one per BYTES_PER_STEP bytes.
 */
export const ALLOCATION_STEPS = 64;
export const BYTES_PER_STEP = 16;
/** Tables a script hands the host are read at most this deep, and this many entries in all. */
export const MAX_TABLE_DEPTH = 8;
export const MAX_TABLE_ENTRIES = 4096;

/**
 * Where wasmoon's compiled Lua is: named by path, relative to this file as the repository lays it out (the
 * single file's bundle maps that onto its unpacked tree, docs/packaging.md), else where npm resolves it.
 */
function gluePath(): string {
  const beside = fileURLToPath(new URL("../../../node_modules/wasmoon/dist/glue.wasm", import.meta.url));
  if (existsSync(beside)) return beside;
  return join(dirname(createRequire(import.meta.url).resolve("wasmoon")), "glue.wasm");
}

/** What a script stopped on, with where: "npc.lua:12: attempt to index a nil value". */
export class ScriptError extends Error {
  override name = "ScriptError";
  constructor(
    message: string,
    /** Why: a runtime or syntax error, the budget, or memory. */
    readonly kind: "error" | "syntax" | "budget" | "memory",
  ) {
    super(message);
  }
}

/** A Lua function a script handed the host (a callback): call it with LuaSandbox.callRef, release it when done. */
export class LuaFunctionRef {
  constructor(
    readonly sandbox: LuaSandbox,
    readonly ref: number,
  ) {}
}

/** A value crossing the boundary: Lua tables arrive as plain objects (arrays when their keys are 1 … n). */
export type LuaValue = null | boolean | number | string | LuaFunctionRef | LuaValue[] | { [key: string]: LuaValue };

/** A host function: it gets the script's arguments and returns the values the script gets back. */
export type HostFunction = (args: LuaValue[]) => LuaValue | LuaValue[] | void;

/** One wasm module instance: the states of one world. Loaded once (compiling the module is async). */
export class LuaRuntime {
  private readonly sandboxes = new Map<number, LuaSandbox>();
  private nextId = 1;
  /** The sandbox whose code runs now (calls are synchronous; a callback's call nests). */
  current: LuaSandbox | null = null;
  readonly allocPointer: number;
  readonly hookPointer: number;

  private constructor(readonly lua: LuaWasm) {
    const M = lua.module;
    this.allocPointer = M.addFunction((ud: number, ptr: number, oldSize: number, newSize: number) => {
      const sandbox = this.sandboxes.get(ud);
      if (sandbox === undefined) return 0;
      return sandbox.allocate(ptr, oldSize, newSize);
    }, "iiiii");
    this.hookPointer = M.addFunction((L: LuaState) => {
      this.current?.onHook(L);
    }, "vii");
  }

  /** Compiles and instantiates a fresh module: one per world, so its states are made in the world's order. */
  static async load(): Promise<LuaRuntime> {
    return new LuaRuntime(await LuaWasm.initialize(gluePath()));
  }

  /** A new state with the safe libraries and `memoryLimitBytes` of memory. */
  newSandbox(name: string, memoryLimitBytes: number): LuaSandbox {
    const id = this.nextId++;
    const sandbox = new LuaSandbox(this, id, name, memoryLimitBytes);
    this.sandboxes.set(id, sandbox);
    sandbox.open();
    return sandbox;
  }

  /** Forgets a closed sandbox. */
  release(id: number): void {
    this.sandboxes.delete(id);
  }
}

export class LuaSandbox {
  /** Bytes the state holds now, and the most it may. */
  used = 0;
  /** Instructions (and allocation charges) spent in the current call, and its budget. */
  private steps = 0;
  private budget = Number.POSITIVE_INFINITY;
  private tripped = false;
  /** Instructions the last call spent (what the think budget is charged). */
  lastSteps = 0;
  private L: LuaState = 0;
  private readonly pointers: number[] = [];
  private closed = false;
  private readonly lua: LuaWasm;
  private readonly M: Module;

  constructor(
    private readonly runtime: LuaRuntime,
    readonly id: number,
    /** The file it runs, for messages. */
    readonly name: string,
    readonly memoryLimitBytes: number,
  ) {
    this.lua = runtime.lua;
    this.M = runtime.lua.module;
  }

  /** Makes the state (clock stubbed: Lua seeds its string hash from it) and opens the safe libraries. */
  open(): void {
    const lua = this.lua;
    const realNow = Date.now;
    Date.now = () => 0;
    try {
      this.L = lua.lua_newstate(this.runtime.allocPointer, this.id);
    } finally {
      Date.now = realNow;
    }
    if (!this.L) throw new ScriptError(`${this.name}: no memory for a new state`, "memory");
    const L = this.L;
    lua.luaopen_base(L);
    lua.lua_settop(L, 0);
    const libraries: [string, (L: LuaState) => number][] = [
      ["table", lua.luaopen_table],
      ["string", lua.luaopen_string],
      ["math", lua.luaopen_math],
      ["utf8", lua.luaopen_utf8],
    ];
    for (const [name, openLibrary] of libraries) {
      openLibrary(L);
      lua.lua_setglobal(L, name);
    }
    for (const name of ["dofile", "loadfile", "load", "collectgarbage", "print", "require"]) {
      lua.lua_pushnil(L);
      lua.lua_setglobal(L, name);
    }
    // The C functions no count sees, charged by their input (string.find plain only), and the rest removed.
    this.expose("__charge", ([steps]) => {
      this.charge(typeof steps === "number" && steps > 0 ? steps : 0);
    });
    this.expose("__find", ([text, pattern, init]) => {
      if (typeof text !== "string" || typeof pattern !== "string") throw new Error("string.find takes two strings");
      this.charge(text.length / BYTES_PER_STEP + 1);
      const from = typeof init === "number" && init > 0 ? Math.floor(init) - 1 : 0;
      const at = text.indexOf(pattern, from);
      return at < 0 ? null : [at + 1, at + pattern.length];
    });
    this.run(
      `local charge, find, sort = __charge, __find, table.sort
       __charge, __find = nil, nil
       math.random, math.randomseed = nil, nil
       string.dump, string.match, string.gmatch, string.gsub = nil, nil, nil, nil
       string.find = function(s, p, init) return find(s, p, init) end
       table.sort = function(t, comp)
         local n = #t
         if n > 1 then charge(n * math.ceil(math.log(n, 2)) * 2) end
         sort(t, comp)
       end`,
      "=sandbox",
      100_000,
    );
  }

  /** The allocator of this state: the cap, and allocation charged to the running call's budget. */
  allocate(ptr: number, oldSize: number, newSize: number): number {
    const M = this.M;
    if (newSize === 0) {
      if (ptr) {
        this.used -= oldSize;
        M._free(ptr);
      }
      return 0;
    }
    const delta = ptr ? newSize - oldSize : newSize;
    if (delta > 0 && this.used + delta > this.memoryLimitBytes) return 0;
    const out = M._realloc(ptr, newSize);
    if (out) this.used += delta;
    if (delta > 0 && this.runtime.current === this) this.charge(ALLOCATION_STEPS + delta / BYTES_PER_STEP);
    return out;
  }

  /** Adds `steps` to the running call's count; past the budget, the next instruction errors. */
  private charge(steps: number): void {
    this.steps += steps;
    if (this.steps > this.budget && !this.tripped) {
      this.tripped = true;
      this.lua.lua_sethook(this.L, this.runtime.hookPointer, LUA_MASKCOUNT, 1);
    }
  }

  /** The count hook: every HOOK_EVERY instructions, and after the budget ran out at every one. */
  onHook(L: LuaState): void {
    if (!this.tripped) this.steps += this.lua.lua_gethookcount(L);
    if (this.steps > this.budget) {
      if (!this.tripped) {
        this.tripped = true;
        this.lua.lua_sethook(L, this.runtime.hookPointer, LUA_MASKCOUNT, 1);
      }
      // Where the script was when its budget ran out (the hook runs in the frame of the Lua function that
      // triggered it: level 0), so the log names the file and line of the loop.
      this.lua.luaL_where(L, 0);
      this.lua.lua_pushstring(L, "instruction budget exceeded");
      this.lua.lua_concat(L, 2);
      this.lua.lua_error(L);
    }
  }

  /**
   * A host function the script calls as global `name` (a dotted name sets a field of a global table:
   * "quest.start"). A JS exception becomes a Lua error at the script's line; it never unwinds Lua.
   */
  expose(name: string, fn: HostFunction): void {
    const lua = this.lua;
    const pointer = this.M.addFunction((L: LuaState) => {
      let results: LuaValue[];
      try {
        const args: LuaValue[] = [];
        const count = lua.lua_gettop(L);
        for (let index = 1; index <= count; index++) args.push(this.read(L, index, 0, { entries: 0 }));
        const returned = fn(args);
        // An array is several results; a host function returns a list as one value by wrapping it: [list].
        results = returned === undefined ? [] : Array.isArray(returned) ? returned : [returned];
      } catch (error) {
        lua.luaL_where(L, 1);
        lua.lua_pushstring(L, error instanceof Error ? error.message : String(error));
        lua.lua_concat(L, 2);
        return lua.lua_error(L);
      }
      for (const value of results) this.push(L, value);
      return results.length;
    }, "ii");
    this.pointers.push(pointer);
    const dot = name.indexOf(".");
    if (dot < 0) {
      lua.lua_pushcclosure(this.L, pointer, 0);
      lua.lua_setglobal(this.L, name);
      return;
    }
    const table = name.slice(0, dot);
    if (lua.lua_getglobal(this.L, table) !== T_TABLE) {
      lua.lua_settop(this.L, 0);
      lua.lua_createtable(this.L, 0, 8);
      lua.lua_pushvalue(this.L, -1);
      lua.lua_setglobal(this.L, table);
    }
    lua.lua_pushcclosure(this.L, pointer, 0);
    lua.lua_setfield(this.L, -2, name.slice(dot + 1));
    lua.lua_settop(this.L, 0);
  }

  /** Compiles `source` as file `chunkName` (text only, never bytecode) and runs it within `budget` instructions. */
  run(source: string, chunkName: string, budget: number): void {
    const lua = this.lua;
    const L = this.L;
    const status = lua.luaL_loadbufferx(L, source, this.M.lengthBytesUTF8(source), chunkName, "t");
    if (status !== LUA_OK) {
      const message = lua.lua_tolstring(L, -1, null);
      lua.lua_settop(L, 0);
      throw new ScriptError(message, status === LUA_ERRMEM ? "memory" : "syntax");
    }
    this.protectedCall(0, budget);
  }

  /** Calls global function `name` with `args` within `budget`; its results. Undefined when there is no such function. */
  callGlobal(name: string, args: LuaValue[], budget: number): LuaValue[] | undefined {
    const lua = this.lua;
    if (lua.lua_getglobal(this.L, name) !== T_FUNCTION) {
      lua.lua_settop(this.L, 0);
      return undefined;
    }
    for (const arg of args) this.push(this.L, arg);
    return this.protectedCall(args.length, budget);
  }

  /** Calls a callback the script handed over, with `args`, within `budget`. */
  callRef(fn: LuaFunctionRef, args: LuaValue[], budget: number): LuaValue[] {
    if (fn.sandbox !== this) throw new Error("a callback of another sandbox");
    this.lua.lua_rawgeti(this.L, LUA_REGISTRYINDEX, BigInt(fn.ref));
    for (const arg of args) this.push(this.L, arg);
    return this.protectedCall(args.length, budget);
  }

  /** Lets go of a callback (the registry entry is freed). */
  releaseRef(fn: LuaFunctionRef): void {
    if (!this.closed && fn.sandbox === this) this.lua.luaL_unref(this.L, LUA_REGISTRYINDEX, fn.ref);
  }

  /**
   * The function below its `argCount` arguments on the stack, called under the budget; the results, read.
   * Calls never nest: a host function that must reach a script again queues an event instead (the room
   * dispatches from the top), so each call's count is its own.
   */
  private protectedCall(argCount: number, budget: number): LuaValue[] {
    const lua = this.lua;
    const L = this.L;
    if (this.runtime.current !== null) throw new Error("a script call inside a script call");
    const base = lua.lua_gettop(L) - argCount; // the function's slot
    this.steps = 0;
    this.budget = budget;
    this.tripped = false;
    lua.lua_sethook(L, this.runtime.hookPointer, LUA_MASKCOUNT, HOOK_EVERY);
    this.runtime.current = this;
    let status: number;
    try {
      status = lua.lua_pcallk(L, argCount, LUA_MULTRET, 0, 0, null);
    } finally {
      this.runtime.current = null;
      this.lastSteps = this.steps;
      lua.lua_sethook(L, null, 0, 0);
    }
    if (status !== LUA_OK) {
      const message = status === LUA_ERRMEM ? "not enough memory" : lua.lua_tolstring(L, -1, null) || "error";
      lua.lua_settop(L, base - 1);
      const kind =
        status === LUA_ERRMEM || /not enough memory/.test(message) ? "memory" : this.tripped ? "budget" : "error";
      throw new ScriptError(message, kind);
    }
    const top = lua.lua_gettop(L);
    const results: LuaValue[] = [];
    try {
      for (let index = base; index <= top; index++) results.push(this.read(L, index, 0, { entries: 0 }));
    } finally {
      lua.lua_settop(L, base - 1);
    }
    return results;
  }

  /** Reads stack slot `index` into a JS value (tables depth- and size-limited; functions as refs). */
  private read(L: LuaState, index: number, depth: number, counted: { entries: number }): LuaValue {
    const lua = this.lua;
    switch (lua.lua_type(L, index)) {
      case T_NIL:
        return null;
      case T_BOOLEAN:
        return lua.lua_toboolean(L, index) !== 0;
      case T_NUMBER:
        return lua.lua_isinteger(L, index)
          ? Number(lua.lua_tointegerx(L, index, null))
          : lua.lua_tonumberx(L, index, null);
      case T_STRING:
        return lua.lua_tolstring(L, index, null);
      case T_FUNCTION:
        lua.lua_pushvalue(L, index);
        return new LuaFunctionRef(this, lua.luaL_ref(L, LUA_REGISTRYINDEX));
      case T_TABLE:
        return this.readTable(L, index, depth, counted);
      default:
        throw new Error(`a ${lua.lua_typename(L, lua.lua_type(L, index))} cannot cross to the host`);
    }
  }

  private readTable(L: LuaState, index: number, depth: number, counted: { entries: number }): LuaValue {
    const lua = this.lua;
    if (depth >= MAX_TABLE_DEPTH) throw new Error(`tables nest deeper than ${MAX_TABLE_DEPTH}`);
    const at = index < 0 ? lua.lua_gettop(L) + index + 1 : index;
    const entries: [string | number, LuaValue][] = [];
    lua.lua_pushnil(L);
    while (lua.lua_next(L, at) !== 0) {
      if (++counted.entries > MAX_TABLE_ENTRIES) {
        lua.lua_settop(L, at);
        throw new Error(`a table of more than ${MAX_TABLE_ENTRIES} entries cannot cross to the host`);
      }
      const keyType = lua.lua_type(L, -2);
      let key: string | number;
      if (keyType === T_STRING) key = lua.lua_tolstring(L, -2, null);
      else if (keyType === T_NUMBER && lua.lua_isinteger(L, -2)) key = Number(lua.lua_tointegerx(L, -2, null));
      else {
        lua.lua_settop(L, at);
        throw new Error("a table key must be a string or an integer");
      }
      entries.push([key, this.read(L, -1, depth + 1, counted)]);
      lua.lua_settop(L, -2);
    }
    // A sequence 1 … n is an array; anything else an object (integer keys as strings).
    const isArray = entries.every(([key]) => typeof key === "number") && entries.length > 0;
    if (isArray) {
      const array: LuaValue[] = new Array<LuaValue>(entries.length).fill(null);
      let sequence = true;
      for (const [key, value] of entries) {
        if ((key as number) < 1 || (key as number) > entries.length) sequence = false;
        else array[(key as number) - 1] = value;
      }
      if (sequence) return array;
    }
    const object: { [key: string]: LuaValue } = {};
    for (const [key, value] of entries) object[String(key)] = value;
    return object;
  }

  /** Pushes a JS value as Lua. */
  private push(L: LuaState, value: LuaValue | undefined): void {
    const lua = this.lua;
    if (value === null || value === undefined) lua.lua_pushnil(L);
    else if (typeof value === "boolean") lua.lua_pushboolean(L, value ? 1 : 0);
    else if (typeof value === "number") {
      if (Number.isSafeInteger(value)) lua.lua_pushinteger(L, BigInt(value));
      else lua.lua_pushnumber(L, value);
    } else if (typeof value === "string") lua.lua_pushstring(L, value);
    else if (value instanceof LuaFunctionRef) lua.lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(value.ref));
    else if (Array.isArray(value)) {
      lua.lua_createtable(L, value.length, 0);
      value.forEach((item, index) => {
        this.push(L, item);
        lua.lua_rawseti(L, -2, BigInt(index + 1));
      });
    } else {
      const keys = Object.keys(value);
      lua.lua_createtable(L, 0, keys.length);
      for (const key of keys) {
        this.push(L, value[key]);
        lua.lua_setfield(L, -2, key);
      }
    }
  }

  /** Closes the state and frees its host functions. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.lua.lua_close(this.L);
    for (const pointer of this.pointers) this.M.removeFunction(pointer);
    this.runtime.release(this.id);
  }
}
