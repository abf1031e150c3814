// codec kernels: chunk palette + 6-bit packing, the wide chunk parts and FNV-1a (ABI in docs/wasm-abi.md).
// Only the ABI names are re-exported, so helpers cannot collide with other folders.
export { unpack6, pack6 } from "./pack6";
export { palette_build, palette_expand } from "./palette";
export { chunk_encode, chunk_decode } from "./chunk";
export { fnv1a, FNV_OFFSET } from "./fnv1a";
export { wide_index_bits, wide_rows_fit, wide_encode, wide_decode } from "./wide";
