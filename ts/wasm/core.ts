// Instantiates build/core.wasm with the plain WebAssembly API (no loader
// library) and exposes its exports, its memory layout and typed views over
// linear memory. Works in Node and in the browser: the caller supplies bytes.
import * as C from "../constants.js";
import { ACTION_DX, ACTION_DY, ACTION_MAX } from "../protocol/action.js";

/** Region offsets and sizes read from the module's exported globals. */
export interface Layout {
  RESULT: number;
  CHUNK_TILES: number;
  CHUNK_INDICES: number;
  CHUNK_PALETTE: number;
  CHUNK_PACKED: number;
  WIDE_PALETTE: number;
  WIDE_PACKED: number;
  WIDE_SLOTS: number;
  PENDING: number;
  PENDING_MAX: number;
  PATH_OUT: number;
  PATH_MAX: number;
  RGB332_LUT: number;
  MOVES: number;
  MOVES_MAX: number;
  IO: number;
  IO_BYTES: number;
  TILE_FLAGS: number;
  FRAMEBUFFER: number;
  RGBA: number;
  ATLAS: number;
  ATLAS_BYTES: number;
  TILE_LOOK: number;
  SPRITES: number;
  SPRITES_MAX: number;
  LIGHT_TABLES: number;
  LIGHT_LEVELS: number;
  LIGHT_MAP: number;
  LIGHT_MAP_MAX: number;
  LIGHT_BAKED: number;
  MAP_ATLAS: number;
  MAP_ATLAS_BYTES: number;
  TILE_OVER_LOOK: number;
  TILE_LIGHT: number;
  LIGHT_SOURCES: number;
  LIGHT_SOURCES_MAX: number;
  LIGHT_WORK: number;
  LIGHT_WORK_MAX: number;
  LIGHT_RADIUS_MAX: number;
  FRAMEBUFFER_LARGE: number;
  RGBA_LARGE: number;
  FIXED_END: number;
}

const LAYOUT_NAMES: (keyof Layout)[] = [
  "RESULT",
  "CHUNK_TILES",
  "CHUNK_INDICES",
  "CHUNK_PALETTE",
  "CHUNK_PACKED",
  "WIDE_PALETTE",
  "WIDE_PACKED",
  "WIDE_SLOTS",
  "PENDING",
  "PENDING_MAX",
  "PATH_OUT",
  "PATH_MAX",
  "RGB332_LUT",
  "MOVES",
  "MOVES_MAX",
  "IO",
  "IO_BYTES",
  "TILE_FLAGS",
  "FRAMEBUFFER",
  "RGBA",
  "ATLAS",
  "ATLAS_BYTES",
  "TILE_LOOK",
  "SPRITES",
  "SPRITES_MAX",
  "LIGHT_TABLES",
  "LIGHT_LEVELS",
  "LIGHT_MAP",
  "LIGHT_MAP_MAX",
  "LIGHT_BAKED",
  "MAP_ATLAS",
  "MAP_ATLAS_BYTES",
  "TILE_OVER_LOOK",
  "TILE_LIGHT",
  "LIGHT_SOURCES",
  "LIGHT_SOURCES_MAX",
  "LIGHT_WORK",
  "LIGHT_WORK_MAX",
  "LIGHT_RADIUS_MAX",
  "FRAMEBUFFER_LARGE",
  "RGBA_LARGE",
  "FIXED_END",
];

/** Constants that exist both in assembly/layout.ts and ts/constants.ts. */
const SHARED_CONSTANTS = [
  "CHUNK_SIZE",
  "CHUNK_TILE_COUNT",
  "CHUNK_PACKED_BYTES",
  "PALETTE_MAX",
  "WIDE_PALETTE_MAX",
  "WIDE_PACKED_MAX_BYTES",
  "FB_WIDTH",
  "FB_HEIGHT",
  "FB_MAX_WIDTH",
  "FB_MAX_HEIGHT",
  "TILE_UNKNOWN",
  "TILE_BORDER",
  "TILE_FLAG_COLLIDES",
  "TILE_FLAG_OPAQUE",
] as const;

export class CoreError extends Error {}

/** The action table as ts/protocol/action.ts states it: dx/dy per code 0..max. */
export interface ActionTable {
  readonly max: number;
  readonly dx: readonly number[];
  readonly dy: readonly number[];
}

const PROTOCOL_ACTIONS: ActionTable = { max: ACTION_MAX, dx: ACTION_DX, dy: ACTION_DY };

type ActionOffsetFn = (action: number) => number;

/**
 * Throws CoreError unless the module's movement table (its ACTION_MAX global
 * and action_dx / action_dy for every code 0..ACTION_MAX) equals `table`. The
 * wasm module is the one source: the rule that decides a step and the offsets
 * that apply it live there, and every TS user of ACTION_DX/ACTION_DY is held to
 * them by this check at instantiation.
 */
export function checkActionTable(exports: WebAssembly.Exports, table: ActionTable = PROTOCOL_ACTIONS): void {
  const max = readGlobal(exports, "ACTION_MAX");
  if (max !== table.max) {
    throw new CoreError(`core module's ACTION_MAX is ${max}, ts/protocol/action.ts says ${table.max}`);
  }
  if (table.dx.length !== max + 1 || table.dy.length !== max + 1) {
    throw new CoreError(`ts/protocol/action.ts's ACTION_DX/ACTION_DY must have ${max + 1} entries`);
  }
  const dx = exports.action_dx;
  const dy = exports.action_dy;
  if (typeof dx !== "function" || typeof dy !== "function") {
    throw new CoreError("core module lacks action_dx/action_dy");
  }
  for (let action = 0; action <= max; action++) {
    const wasmDx = (dx as ActionOffsetFn)(action);
    const wasmDy = (dy as ActionOffsetFn)(action);
    if (wasmDx !== table.dx[action] || wasmDy !== table.dy[action]) {
      throw new CoreError(
        `core module moves action ${action} by (${wasmDx}, ${wasmDy}), ts/protocol/action.ts by (${table.dx[action]}, ${table.dy[action]})`,
      );
    }
  }
}

/** An instantiated core module. Views are refreshed whenever memory grows. */
export class Core {
  readonly instance: WebAssembly.Instance;
  readonly memory: WebAssembly.Memory;
  readonly layout: Layout;
  private buffer: ArrayBuffer | null = null;
  private view8!: Uint8Array;
  private view16!: Uint16Array;
  private view32!: Uint32Array;
  private viewI32!: Int32Array;

  constructor(instance: WebAssembly.Instance) {
    this.instance = instance;
    const exports = instance.exports;
    if (!(exports.memory instanceof WebAssembly.Memory)) throw new CoreError("core module exports no memory");
    this.memory = exports.memory;
    const layout = {} as Layout;
    for (const name of LAYOUT_NAMES) layout[name] = readGlobal(exports, name);
    this.layout = layout;
    for (const name of SHARED_CONSTANTS) {
      const inWasm = readGlobal(exports, name);
      if (inWasm !== C[name]) {
        throw new CoreError(`core module disagrees with ts/constants.ts on ${name}: wasm ${inWasm}, ts ${C[name]}`);
      }
    }
    checkActionTable(exports);
  }

  /** An exported function by name; throws if the module lacks it. */
  fn<F extends (...args: never[]) => unknown>(name: string): F {
    const value = this.instance.exports[name];
    if (typeof value !== "function") throw new CoreError(`core module has no exported function ${name}`);
    return value as unknown as F;
  }

  private refresh(): void {
    const buffer = this.memory.buffer as ArrayBuffer;
    if (buffer === this.buffer) return;
    this.buffer = buffer;
    this.view8 = new Uint8Array(buffer);
    this.view16 = new Uint16Array(buffer);
    this.view32 = new Uint32Array(buffer);
    this.viewI32 = new Int32Array(buffer);
  }

  /** Whole linear memory as bytes (re-created after memory.grow). */
  get u8(): Uint8Array {
    this.refresh();
    return this.view8;
  }
  get u16(): Uint16Array {
    this.refresh();
    return this.view16;
  }
  get u32(): Uint32Array {
    this.refresh();
    return this.view32;
  }
  get i32(): Int32Array {
    this.refresh();
    return this.viewI32;
  }
}

function readGlobal(exports: WebAssembly.Exports, name: string): number {
  const value = exports[name];
  if (!(value instanceof WebAssembly.Global)) throw new CoreError(`core module does not export global ${name}`);
  return Number(value.value);
}

/**
 * Instantiates the core from its bytes or a compiled module. The release build
 * has no imports; the debug build imports env.abort, which is supplied here.
 */
export async function instantiateCore(source: BufferSource | WebAssembly.Module): Promise<Core> {
  let memoryRef: WebAssembly.Memory | null = null;
  const imports = {
    env: {
      abort(messagePtr: number, filePtr: number, line: number, column: number): never {
        const text = memoryRef ? `${readAsString(memoryRef, messagePtr)} at ${readAsString(memoryRef, filePtr)}` : "";
        throw new CoreError(`core module aborted: ${text}:${line}:${column}`);
      },
    },
  };
  const module = source instanceof WebAssembly.Module ? source : await WebAssembly.compile(source);
  const instance = await WebAssembly.instantiate(module, imports);
  const core = new Core(instance);
  memoryRef = core.memory;
  return core;
}

/** Reads an AssemblyScript string (UTF-16, byte length stored 4 bytes before it). */
function readAsString(memory: WebAssembly.Memory, ptr: number): string {
  if (ptr === 0) return "";
  const bytes = new Uint8Array(memory.buffer);
  const length = new Uint32Array(memory.buffer, ptr - 4, 1)[0] >>> 1;
  let text = "";
  for (let i = 0; i < length; i++) text += String.fromCharCode(bytes[ptr + 2 * i] | (bytes[ptr + 2 * i + 1] << 8));
  return text;
}
