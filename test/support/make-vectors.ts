// Writes hosts/vectors.json: golden test vectors for build/core.wasm, computed
// by the JS reference kernels (ts/ref/), the project's oracle — never by wasm.
// Every host (hosts/bun, hosts/c, and Node in test/hosts.test.ts) runs the same
// file with nothing but docs/wasm-abi.md: write bytes into regions named by the
// module's exported globals, call exports with i32 arguments, compare results
// and region bytes.
//
// usage: npx tsx test/support/make-vectors.ts [--check]   (--check: exit 1 if the file is stale)
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { fnv1a, pack6, paletteBuild, paletteExpand, unpack6 } from "../../ts/ref/codec.js";
import { RefBlitter } from "../../ts/ref/blit.js";
import { ACTION_DX, ACTION_DY } from "../../ts/protocol/action.js";
import { type MoveRow, RefGrid } from "../../ts/ref/sim.js";
import { caveWalls, xorshift } from "../../bench/lib/data.js";

/** An argument: an i32, or the address of an exported region global plus a byte offset. */
export type Arg = number | { global: string; offset?: number };
export type Step =
  | { write: string; offset?: number; hex: string }
  | { call: string; args: Arg[]; expect?: number }
  | { check: string; offset?: number; hex: string }
  | { check: string; offset?: number; length: number; fnv1a: number };
export interface Case {
  name: string;
  /** Exports the case calls, so a host that lacks one can say which and skip. */
  exports: string[];
  steps: Step[];
}
export interface VectorFile {
  format: string;
  generatedBy: string;
  conventions: string[];
  cases: Case[];
}

const hex = (bytes: Uint8Array | ArrayBufferView): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
const u16Bytes = (values: ArrayLike<number>) => new Uint8Array(Uint16Array.from(values).buffer);
const i32Bytes = (values: number[]) => new Uint8Array(Int32Array.from(values).buffer);
const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

const bytesOf = (seed: number, length: number) => {
  const random = xorshift(seed);
  return Uint8Array.from({ length }, () => Math.floor(random() * 256));
};

function makeCase(name: string, steps: Step[]): Case {
  const exports = [...new Set(steps.flatMap((step) => ("call" in step ? [step.call] : [])))].sort();
  return { name, exports, steps };
}

function fnvCases(): Case[] {
  const cases: Case[] = [];
  for (const [label, text, known] of [
    ["empty", "", 0x811c9dc5],
    ["a", "a", 0xe40c292c],
    ["foobar", "foobar", 0xbf9cf968],
  ] as const) {
    const bytes = ascii(text);
    const hash = fnv1a(bytes, 0, bytes.length);
    if (hash !== known)
      throw new Error(`reference fnv1a("${text}") = ${hash.toString(16)}, expected ${known.toString(16)}`);
    cases.push(
      makeCase(`fnv1a "${label}"`, [
        ...(bytes.length ? [{ write: "IO", hex: hex(bytes) }] : []),
        { call: "fnv1a", args: [{ global: "IO" }, bytes.length, 0x811c9dc5 | 0], expect: hash | 0 },
      ]),
    );
  }
  const foo = fnv1a(ascii("foo"), 0, 3);
  cases.push(
    makeCase("fnv1a continues a hash (foo, then bar)", [
      { write: "IO", hex: hex(ascii("bar")) },
      { call: "fnv1a", args: [{ global: "IO" }, 3, foo | 0], expect: fnv1a(ascii("foobar"), 0, 6) | 0 },
    ]),
  );
  for (const length of [72, 1200]) {
    const bytes = bytesOf(length, length);
    cases.push(
      makeCase(`fnv1a ${length} random bytes`, [
        { write: "IO", offset: 3, hex: hex(bytes) },
        {
          call: "fnv1a",
          args: [{ global: "IO", offset: 3 }, length, 0x811c9dc5 | 0],
          expect: fnv1a(bytes, 0, length) | 0,
        },
      ]),
    );
  }
  cases.push(
    makeCase("fnv1a len <= 0 returns the hash", [
      { call: "fnv1a", args: [{ global: "IO" }, -5, 12345], expect: 12345 },
    ]),
  );
  return cases;
}

function codecCases(): Case[] {
  const cases: Case[] = [];
  // unpack6: random bytes, the documented first group, all ones.
  const packed = bytesOf(6, 768);
  packed.set([0x40, 0x20, 0x0c, 0x85, 0x71, 0x20], 0);
  const indices = new Uint8Array(1024);
  unpack6(packed, indices);
  if (indices.slice(0, 8).join() !== "0,1,2,3,5,6,7,8") throw new Error("reference unpack6 disagrees with the doc");
  cases.push(
    makeCase("unpack6 random bytes (first groups from the doc)", [
      { write: "CHUNK_PACKED", hex: hex(packed) },
      { call: "unpack6", args: [] },
      { check: "CHUNK_INDICES", hex: hex(indices) },
    ]),
  );
  cases.push(
    makeCase("unpack6 all 0xFF is all 63", [
      { write: "CHUNK_PACKED", hex: "ff".repeat(768) },
      { call: "unpack6", args: [] },
      { check: "CHUNK_INDICES", hex: "3f".repeat(1024) },
    ]),
  );
  // pack6: random indices with bits 6 and 7 set here and there (masked).
  const random = xorshift(66);
  const rawIndices = Uint8Array.from({ length: 1024 }, () => Math.floor(random() * 256));
  const packedOut = new Uint8Array(768);
  pack6(rawIndices, packedOut);
  cases.push(
    makeCase("pack6 masks indices to 6 bits", [
      { write: "CHUNK_INDICES", hex: hex(rawIndices) },
      { call: "pack6", args: [] },
      { check: "CHUNK_PACKED", hex: hex(packedOut) },
    ]),
  );
  // palette_build: a cave-like chunk (few ids), 64 scattered large ids, and 65 distinct ids.
  const cave = Uint16Array.from({ length: 1024 }, (_, i) => {
    const r = random();
    return ((i >> 5) + (i & 31)) % 7 < 2 ? 5 : r < 0.1 ? 2 : r < 0.15 ? 3 : r < 0.17 ? 0xfffe : 1;
  });
  const scattered = Uint16Array.from({ length: 1024 }, (_, i) => 1000 + 977 * (i < 64 ? i : Math.floor(random() * 64)));
  for (const [label, tiles] of [
    ["cave-like chunk", cave],
    ["64 scattered large ids", scattered],
  ] as const) {
    const palette = new Uint16Array(64);
    const out = new Uint8Array(1024);
    const count = paletteBuild(tiles, palette, out);
    cases.push(
      makeCase(`palette_build ${label}`, [
        { write: "CHUNK_TILES", hex: hex(tiles) },
        { call: "palette_build", args: [], expect: count },
        { check: "CHUNK_PALETTE", hex: hex(palette.subarray(0, count)) },
        { check: "CHUNK_INDICES", hex: hex(out) },
      ]),
    );
  }
  const tooMany = Uint16Array.from({ length: 1024 }, (_, i) => i % 65);
  cases.push(
    makeCase("palette_build 65 distinct ids fails", [
      { write: "CHUNK_TILES", hex: hex(tooMany) },
      { call: "palette_build", args: [], expect: paletteBuild(tooMany, new Uint16Array(64), new Uint8Array(1024)) },
    ]),
  );
  // palette_expand: success, and a bad index that must leave CHUNK_TILES untouched.
  const palette = Uint16Array.from([7, 300, 0xfffe, 1]);
  const expandIndices = Uint8Array.from({ length: 1024 }, (_, i) => (i * 7) % 4);
  const expanded = new Uint16Array(1024);
  if (paletteExpand(palette, 4, expandIndices, expanded) !== 0) throw new Error("reference palette_expand failed");
  cases.push(
    makeCase("palette_expand 4 entries", [
      { write: "CHUNK_PALETTE", hex: hex(palette) },
      { write: "CHUNK_INDICES", hex: hex(expandIndices) },
      { call: "palette_expand", args: [4], expect: 0 },
      { check: "CHUNK_TILES", hex: hex(expanded) },
    ]),
  );
  const badIndices = expandIndices.slice();
  badIndices[1000] = 4;
  const before = u16Bytes(Array.from({ length: 1024 }, (_, i) => i));
  cases.push(
    makeCase("palette_expand rejects an index >= count and keeps the tiles", [
      { write: "CHUNK_TILES", hex: hex(before) },
      { write: "CHUNK_PALETTE", hex: hex(palette) },
      { write: "CHUNK_INDICES", hex: hex(badIndices) },
      { call: "palette_expand", args: [4], expect: paletteExpand(palette, 4, badIndices, new Uint16Array(1024)) },
      { call: "palette_expand", args: [65], expect: -1 },
      { check: "CHUNK_TILES", hex: hex(before) },
    ]),
  );
  // chunk_encode / chunk_decode round trip on the cave-like chunk.
  const encPalette = new Uint16Array(64);
  const encIndices = new Uint8Array(1024);
  const count = paletteBuild(cave, encPalette, encIndices);
  const encPacked = new Uint8Array(768);
  pack6(encIndices, encPacked);
  cases.push(
    makeCase("chunk_encode cave-like chunk", [
      { write: "CHUNK_TILES", hex: hex(cave) },
      { call: "chunk_encode", args: [], expect: count },
      { check: "CHUNK_PALETTE", hex: hex(encPalette.subarray(0, count)) },
      { check: "CHUNK_PACKED", hex: hex(encPacked) },
    ]),
  );
  cases.push(
    makeCase("chunk_decode cave-like chunk", [
      { write: "CHUNK_PALETTE", hex: hex(encPalette.subarray(0, count)) },
      { write: "CHUNK_PACKED", hex: hex(encPacked) },
      { call: "chunk_decode", args: [count], expect: 0 },
      { check: "CHUNK_TILES", hex: hex(cave) },
    ]),
  );
  return cases;
}

const FLOOR = 1;
const WALL = 5;

/** A 32×32 chunk: walls around the edge with gaps, pillars, a diagonal gap pattern for corner cutting. */
function stepChunk(): Uint16Array {
  const tiles = new Uint16Array(1024).fill(FLOOR);
  for (let i = 0; i < 32; i++) {
    if (i % 5 !== 2) {
      tiles[i] = WALL;
      tiles[31 * 32 + i] = WALL;
    }
  }
  for (let y = 4; y < 28; y += 3) for (let x = 4; x < 28; x += 4) tiles[y * 32 + x] = WALL;
  tiles[10 * 32 + 10] = WALL; // corner-cutting probes around (11, 11)
  tiles[12 * 32 + 12] = 0xfffe; // TILE_BORDER always collides
  tiles[15 * 32 + 20] = 9; // water: collides via flags
  return tiles;
}

/** Steps that load the step chunk into a 32×32 grid at world origin (originX, originY). */
function gridSteps(chunk: Uint16Array, originX: number, originY: number, flags: Map<number, number>): Step[] {
  const steps: Step[] = [
    { call: "grid_init", args: [32, 32, originX, originY], expect: 1 },
    { call: "flags_reset", args: [] },
  ];
  for (const [id, bits] of flags)
    steps.push({ write: "TILE_FLAGS", offset: id, hex: bits.toString(16).padStart(2, "0") });
  steps.push({ write: "CHUNK_TILES", hex: hex(chunk) });
  steps.push({ call: "grid_put_chunk", args: [Math.floor(originX / 32), Math.floor(originY / 32)] });
  return steps;
}

function simCases(): Case[] {
  const chunk = stepChunk();
  const flags = new Map([
    [WALL, 3],
    [9, 1],
    [FLOOR, 0],
  ]);
  const grid = new RefGrid(32, 32, 0, 0);
  grid.putChunk(0, 0, chunk);
  for (const [id, bits] of flags) grid.flags[id] = bits;
  const cases: Case[] = [];
  const stepCalls: Step[] = [];
  const probes = [
    [11, 11],
    [0, 5],
    [31, 31],
    [2, 1],
    [13, 13],
    [19, 15],
    [21, 14],
    [-1, 3],
    [5, 40],
  ];
  for (const [x, y] of probes) {
    for (let action = 0; action <= 9; action++) {
      stepCalls.push({ call: "step_allowed", args: [x, y, action], expect: grid.stepAllowed(x, y, action) ? 1 : 0 });
    }
    let mask = 0;
    for (let action = 0; action <= 8; action++) if (grid.stepAllowed(x, y, action)) mask |= 1 << action;
    stepCalls.push({ call: "allowed_steps", args: [x, y], expect: mask });
  }
  stepCalls.push({ call: "step_allowed", args: [11, 11, -1], expect: 0 });
  cases.push(
    makeCase("step_allowed on a 32×32 grid (walls, border, water, corner cutting, outside)", [
      ...gridSteps(chunk, 0, 0, flags),
      ...stepCalls,
    ]),
  );

  // The same rule with the grid at a negative origin: world coordinates shift, answers do not.
  const shifted: Step[] = [];
  for (const [x, y] of probes.slice(0, 5)) {
    for (let action = 1; action <= 8; action++) {
      shifted.push({
        call: "step_allowed",
        args: [x - 64, y + 32, action],
        expect: grid.stepAllowed(x, y, action) ? 1 : 0,
      });
    }
  }
  shifted.push({ call: "grid_get_tile", args: [11 - 64, 10 + 32], expect: chunk[10 * 32 + 11] });
  shifted.push({ call: "grid_get_tile", args: [0, 0], expect: 0xffff });
  cases.push(
    makeCase("step_allowed with the grid at world origin (-64, 32)", [...gridSteps(chunk, -64, 32, flags), ...shifted]),
  );

  // replay: pending steps, some already acknowledged, one blocked.
  const pending = [
    { window: 10, action: 2 },
    { window: 11, action: 2 },
    { window: 12, action: 6 },
    { window: 13, action: 1 },
    { window: 14, action: 8 },
    { window: 15, action: 0 },
    { window: 16, action: 4 },
    { window: 17, action: 12 },
  ];
  const replayed = grid.replay(8, 11, 10, pending);
  const pendingBytes = new Uint8Array(pending.length * 8);
  const view = new DataView(pendingBytes.buffer);
  pending.forEach((step, i) => {
    view.setUint32(i * 8, step.window, true);
    pendingBytes[i * 8 + 4] = step.action;
  });
  cases.push(
    makeCase("replay 8 pending steps from (8, 11), ack window 10", [
      ...gridSteps(chunk, 0, 0, flags),
      { write: "PENDING", hex: hex(pendingBytes) },
      { call: "replay", args: [8, 11, 10, pending.length], expect: replayed.moved },
      { check: "RESULT", hex: hex(i32Bytes([replayed.x, replayed.y])) },
    ]),
  );

  // apply_moves: one batch of a movement window, every probe with every code 0..9 and 34 (whose low 5 bits are
  // E's); each row's moved byte starts as 0xFF so the kernel must write it.
  const rows: MoveRow[] = [];
  for (const [x, y] of probes) {
    for (const action of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 34])
      rows.push({ entity: rows.length, x, y, action, moved: false });
  }
  const moveBytes = (moveRows: readonly MoveRow[], moved: (row: MoveRow) => number) => {
    const bytes = new Uint8Array(moveRows.length * 16);
    const moveView = new DataView(bytes.buffer);
    moveRows.forEach((row, i) => {
      moveView.setInt32(i * 16, row.entity, true);
      moveView.setInt32(i * 16 + 4, row.x, true);
      moveView.setInt32(i * 16 + 8, row.y, true);
      bytes[i * 16 + 12] = row.action;
      bytes[i * 16 + 13] = moved(row);
    });
    return bytes;
  };
  const before = moveBytes(rows, () => 0xff);
  const applied = rows.map((row) => ({ ...row }));
  const movedRows = grid.applyMoves(applied);
  cases.push(
    makeCase(`apply_moves over ${rows.length} rows (every code 0..9 and 34 from each probe)`, [
      ...gridSteps(chunk, 0, 0, flags),
      { write: "MOVES", hex: hex(before) },
      { call: "apply_moves", args: [rows.length], expect: movedRows },
      { check: "MOVES", hex: hex(moveBytes(applied, (row) => (row.moved ? 1 : 0))) },
    ]),
  );

  // astar on a 64×64 cave (4 chunks): optimal lengths and exact paths of the reference.
  const size = 64;
  const random = xorshift(4242);
  const wall = caveWalls(size, random, 0.42, 3);
  const caveGrid = new RefGrid(size, size, 0, 0);
  caveGrid.flags[WALL] = 1;
  for (let i = 0; i < size * size; i++) caveGrid.tiles[i] = wall[i] ? WALL : FLOOR;
  const steps: Step[] = [
    { call: "grid_init", args: [size, size, 0, 0], expect: 1 },
    { call: "flags_reset", args: [] },
  ];
  steps.push({ write: "TILE_FLAGS", offset: WALL, hex: "01" });
  for (let cy = 0; cy < size / 32; cy++) {
    for (let cx = 0; cx < size / 32; cx++) {
      const tiles = new Uint16Array(1024);
      for (let y = 0; y < 32; y++)
        for (let x = 0; x < 32; x++) tiles[y * 32 + x] = caveGrid.tiles[(cy * 32 + y) * size + cx * 32 + x];
      steps.push({ write: "CHUNK_TILES", hex: hex(tiles) }, { call: "grid_put_chunk", args: [cx, cy] });
    }
  }
  const free: number[] = [];
  for (let i = 0; i < size * size; i++) if (!wall[i]) free.push(i);
  let found = 0;
  const seen = new Set<number>();
  for (let attempt = 0; attempt < 400 && found < 12; attempt++) {
    const a = free[Math.floor(random() * free.length)];
    const b = free[Math.floor(random() * free.length)];
    const [sx, sy, gx, gy] = [a % size, Math.floor(a / size), b % size, Math.floor(b / size)];
    const result = caveGrid.astar(sx, sy, gx, gy, 1 << 30);
    const kind = result.status > 0 ? 1 : result.status;
    if (kind !== 1 && seen.has(kind)) continue;
    seen.add(kind);
    found++;
    steps.push({ call: "astar", args: [sx, sy, gx, gy, 1 << 30], expect: result.status });
    if (result.status > 0) {
      // The path must follow the rule step by step; the reference promises the wasm path itself.
      let x = sx;
      let y = sy;
      for (const action of result.path) {
        if (!caveGrid.stepAllowed(x, y, action)) throw new Error("reference A* path breaks the rule");
        x += ACTION_DX[action];
        y += ACTION_DY[action];
      }
      if (x !== gx || y !== gy) throw new Error("reference A* path misses the goal");
      steps.push({ check: "PATH_OUT", hex: hex(result.path) });
    }
  }
  const [fx] = free;
  steps.push({
    call: "astar",
    args: [fx % size, Math.floor(fx / size), fx % size, Math.floor(fx / size), 100],
    expect: 0,
  });
  const wallCell = wall.indexOf(1);
  steps.push({
    call: "astar",
    args: [fx % size, Math.floor(fx / size), wallCell % size, Math.floor(wallCell / size), 100],
    expect: -4,
  });
  steps.push({ call: "astar", args: [fx % size, Math.floor(fx / size), size + 3, 0, 100], expect: -4 });
  cases.push(makeCase("astar on a 64×64 cave: lengths, exact paths, endpoints", steps));
  return cases;
}

function seeded(seed: number, length: number, zeroShare: number): Uint8Array {
  const random = xorshift(seed);
  return Uint8Array.from({ length }, () => (random() < zeroShare ? 0 : 1 + Math.floor(random() * 255)));
}

function blitCases(): Case[] {
  const ref = new RefBlitter();
  const tileset = seeded(1, 16 * 2 * 64, 0.02);
  const sprites = seeded(2, 16 * 64, 0.5);
  const font = seeded(3, 16 * 6 * 64, 0.7);
  const steps: Step[] = [
    { write: "ATLAS", hex: hex(tileset) },
    { write: "ATLAS", offset: 0x4000, hex: hex(sprites) },
    { write: "ATLAS", offset: 0x8000, hex: hex(font) },
  ];
  ref.upload(0, tileset);
  ref.upload(0x4000, sprites);
  ref.upload(0x8000, font);
  const look = new Uint16Array(18);
  for (let id = 1; id <= 16; id++) {
    look[id] = id;
    ref.setTileLook(id, id);
  }
  look[17] = 0xffff;
  ref.setTileLook(17, 0xffff);
  steps.push({ write: "TILE_LOOK", hex: hex(look) });
  const window = Uint16Array.from(seeded(5, 31 * 31, 0), (b) => 1 + (b % 17));
  steps.push({ write: "IO", hex: hex(window) });
  const spriteBytes = new Uint8Array(40 * 8);
  const spriteView = new DataView(spriteBytes.buffer);
  const positions = seeded(4, 40 * 3, 0);
  for (let i = 0; i < 40; i++) {
    const sprite = {
      x: positions[3 * i] - 8,
      y: positions[3 * i + 1] - 8,
      tile: positions[3 * i + 2] & 3,
      mode: i % 10 === 0 ? 2 : 1,
      tint: 0xe0,
    };
    ref.setSprite(i, sprite);
    spriteView.setInt16(i * 8, sprite.x, true);
    spriteView.setInt16(i * 8 + 2, sprite.y, true);
    spriteView.setUint16(i * 8 + 4, sprite.tile, true);
    spriteBytes[i * 8 + 6] = sprite.mode;
    spriteBytes[i * 8 + 7] = sprite.tint;
  }
  steps.push({ write: "SPRITES", hex: hex(spriteBytes) });
  const text = ascii("HP 37/100 \u0001~");
  steps.push({ write: "IO", offset: 4096, hex: hex(text) });
  ref.fbClear(0x25);
  ref.drawTilemap(window, 31, 31, 31, -3, -5, 0, 16, 8, 8, 0, 0, 240, 240);
  ref.drawSprites(40, 0x4000, 16, 8, 8, 0, 0, 240, 240);
  ref.fillRect(240, 0, 80, 240, 0x25);
  ref.drawRect(240, 0, 80, 240, 0xff);
  ref.hbar(244, 4, 72, 6, 37, 100, 0xe0, 0x20);
  const pen = ref.drawText(text, 244, 14, 0xfc, 0x8000, 16);
  ref.blit(0x4000, 128, 8, 0, 16, 8, 300, 230, 1, 0);
  steps.push(
    { call: "fb_clear", args: [0x25] },
    {
      call: "draw_tilemap",
      args: [{ global: "IO" }, 31, 31, 31, -3, -5, { global: "ATLAS" }, 16, 8, 8, 0, 0, 240, 240],
    },
    { call: "draw_sprites", args: [40, { global: "ATLAS", offset: 0x4000 }, 16, 8, 8, 0, 0, 240, 240] },
    { call: "fill_rect", args: [240, 0, 80, 240, 0x25] },
    { call: "draw_rect", args: [240, 0, 80, 240, 0xff] },
    { call: "hbar", args: [244, 4, 72, 6, 37, 100, 0xe0, 0x20] },
    {
      call: "draw_text",
      args: [{ global: "IO", offset: 4096 }, text.length, 244, 14, 0xfc, { global: "ATLAS", offset: 0x8000 }, 16],
      expect: pen,
    },
    { call: "blit", args: [{ global: "ATLAS", offset: 0x4000 }, 128, 8, 0, 16, 8, 300, 230, 1, 0] },
    { check: "FRAMEBUFFER", length: 76800, fnv1a: fnv1a(ref.framebuffer, 0, 76800) | 0 },
    { check: "FRAMEBUFFER", offset: 240 * 320, hex: hex(ref.framebuffer.subarray(240 * 320, 240 * 320 + 64)) },
  );
  const cases = [makeCase("blit a frame: tilemap, sprites, panel, bar, text, blit (framebuffer hash)", steps)];

  const lutRef = new RefBlitter();
  // Fresh memory is zero, so only the first 4096 pixels need writing (the rest convert colour 0).
  const pixels = seeded(9, 4096, 0.1);
  lutRef.framebuffer.set(pixels);
  lutRef.lutInit();
  lutRef.fbToRgba();
  const rgba = new Uint8Array(lutRef.rgba.buffer);
  cases.push(
    makeCase("lut_init + fb_to_rgba (RGBA hash)", [
      { write: "FRAMEBUFFER", hex: hex(pixels) },
      { call: "lut_init", args: [] },
      { check: "RGB332_LUT", hex: hex(new Uint8Array(lutRef.lut.buffer)) },
      { call: "fb_to_rgba", args: [] },
      { check: "RGBA", length: rgba.length, fnv1a: fnv1a(rgba, 0, rgba.length) | 0 },
    ]),
  );
  return cases;
}

export function buildVectors(): VectorFile {
  return {
    format: "forgotten-caves core.wasm vectors, version 1",
    generatedBy: "npx tsx test/support/make-vectors.ts — expected values come from the JS reference kernels (ts/ref/)",
    conventions: [
      "Instantiate build/core.wasm afresh for every case (no imports); region names are the module's exported i32 globals.",
      "write: copy hex bytes to global + offset. call: call the export with i32 args; an arg {global, offset} is that global's value + offset.",
      "expect: the call's i32 result (compare as signed 32-bit). check hex: bytes at global + offset must equal hex.",
      "check fnv1a: FNV-1a 32-bit of `length` bytes at global + offset must equal the value (as signed 32-bit).",
      "Steps run in order; a case passes when every expect and check holds.",
    ],
    cases: [...fnvCases(), ...codecCases(), ...simCases(), ...blitCases()],
  };
}

export const VECTORS_PATH = fileURLToPath(new URL("../../hosts/vectors.json", import.meta.url));

/** One case per line: diffs stay readable, the file stays plain JSON. */
export function formatVectors(file: VectorFile): string {
  const { cases: _cases, ...rest } = file;
  void _cases;
  const head = JSON.stringify(rest, null, 1).replace(/\n}$/, "");
  const cases = file.cases.map((c) => " " + JSON.stringify(c)).join(",\n");
  return `${head},\n "cases": [\n${cases}\n ]\n}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = formatVectors(buildVectors());
  if (process.argv.includes("--check")) {
    const current = readFileSync(VECTORS_PATH, "utf8");
    if (current !== text) {
      process.stderr.write("hosts/vectors.json is stale: run npx tsx test/support/make-vectors.ts\n");
      process.exit(1);
    }
  } else {
    writeFileSync(VECTORS_PATH, text);
    process.stderr.write(`wrote ${VECTORS_PATH} (${JSON.parse(text).cases.length} cases)\n`);
  }
}
