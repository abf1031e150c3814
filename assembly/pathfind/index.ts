// pathfind kernels: A* click-to-move over the grid (docs/wasm-abi.md).
export { astar } from "./bucket";
export { astar_heap } from "./heap";
export { astar_expanded, astar_path } from "./search";
export { grid_changed } from "./step-mask";
