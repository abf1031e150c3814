// Which FNV-1a the entity checksum should call in production (issue 11 part 5):
// the broadcast folds each in-view entity's encoded entry (18 bytes, more with
// a name) into the checksum, per client per broadcast, so the kernel is called
// once per entry on a few dozen bytes. This compares, on one run:
//   js           the JS kernel over the entries slab (what production calls)
//   wasm copy    copy the entry into IO, then the wasm kernel (one crossing per entry)
//   wasm slab    the slab already in linear memory, one crossing per entry (best case
//                for wasm: it would need the broadcast's entry slab moved into the module)
// Run: npx tsx bench/micro/entity-checksum-kernel.ts  (note `uptime` beside the figures)
import { fnv1a, FNV_OFFSET } from "../../ts/protocol/fnv1a.js";
import { loadCore } from "../../ts/wasm/node.js";
import { xorshift } from "../lib/data.js";

const ENTITIES = 40;
const ROUNDS = 20_000;
const REPEATS = 9;

const core = await loadCore();
const fnvRaw = core.fn<(ptr: number, len: number, hash: number) => number>("fnv1a");
const { IO, IO_BYTES } = core.layout;
const random = xorshift(11);

// Entries of 18 bytes plus, for a third of them, a name TLV of 6..17 bytes.
const offsets = new Int32Array(ENTITIES);
const lengths = new Int32Array(ENTITIES);
let used = 0;
for (let i = 0; i < ENTITIES; i++) {
  offsets[i] = used;
  lengths[i] = 18 + (i % 3 === 0 ? 6 + Math.floor(random() * 12) : 0);
  used += lengths[i];
}
// The copy lands at IO, the resident slab sits after the largest entry.
const SLAB = IO + 64;
if (64 + used > IO_BYTES) throw new Error("slab does not fit IO");
const slab = new Uint8Array(used);
for (let i = 0; i < used; i++) slab[i] = Math.floor(random() * 256);
core.u8.set(slab, SLAB);

function foldJs(): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < ENTITIES; i++) h = fnv1a(slab, offsets[i], offsets[i] + lengths[i], h);
  return h;
}

function foldWasmCopy(): number {
  const u8 = core.u8;
  let h = FNV_OFFSET;
  for (let i = 0; i < ENTITIES; i++) {
    const start = offsets[i];
    const length = lengths[i];
    // A byte loop rather than set(subarray): no allocation per entry, like the hot path would need.
    for (let k = 0; k < length; k++) u8[IO + k] = slab[start + k];
    h = fnvRaw(IO, length, h);
  }
  return h >>> 0;
}

function foldWasmSlab(): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < ENTITIES; i++) h = fnvRaw(SLAB + offsets[i], lengths[i], h);
  return h >>> 0;
}

const expected = foldJs();
if (foldWasmCopy() !== expected || foldWasmSlab() !== expected) throw new Error("kernels disagree");

const kernels: [string, () => number][] = [
  ["js", foldJs],
  ["wasm copy", foldWasmCopy],
  ["wasm slab", foldWasmSlab],
];
const samples = new Map<string, number[]>(kernels.map(([name]) => [name, []]));
let sink = 0;
for (let repeat = 0; repeat < REPEATS; repeat++) {
  // Interleaved, so load changes on the shared machine hit every kernel alike.
  for (const [name, fold] of kernels) {
    const start = performance.now();
    for (let round = 0; round < ROUNDS; round++) sink ^= fold();
    samples.get(name)!.push(((performance.now() - start) * 1e6) / (ROUNDS * ENTITIES));
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const base = median(samples.get("js")!);
console.log(`${ENTITIES} entries, ${used} bytes per fold; ns per entry, median of ${REPEATS} (sink ${sink & 1})`);
for (const [name] of kernels) {
  const ns = median(samples.get(name)!);
  console.log(`${name.padEnd(10)} ${ns.toFixed(1).padStart(6)} ns   ×${(ns / base).toFixed(2)} of js`);
}
