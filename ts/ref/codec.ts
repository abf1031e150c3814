// The codec oracle: what the wasm kernels (assembly/codec/) are tested against
// and benchmarked against. It is the production JS kernels themselves — the
// chunk kernels (ts/protocol/chunk-kernels.ts) and FNV-1a
// (ts/protocol/fnv1a.ts) — an implementation independent of the AssemblyScript
// one, kept in the protocol library because production calls them (each says
// by which measurement). Only tests and benchmarks import this module.
export { pack6, paletteBuild, paletteExpand, unpack6 } from "../protocol/chunk-kernels.js";
export { firstBadIndex, wideDecode, wideEncode, wideIndexBits, wideRowsFit } from "../protocol/chunk-wide-kernels.js";
export { FNV_OFFSET, FNV_PRIME, fnv1a, requireRange } from "../protocol/fnv1a.js";
