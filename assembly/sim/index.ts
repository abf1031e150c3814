// sim kernels: the grid, THE movement rule, per-window moves and prediction replay (docs/wasm-abi.md).
export {
  grid_init,
  grid_tiles,
  grid_width,
  grid_height,
  grid_origin_x,
  grid_origin_y,
  grid_put_chunk,
  grid_fill_chunk,
  grid_set_tile,
  grid_get_tile,
  flags_reset,
} from "./grid";
export { ACTION_MAX, step_allowed, allowed_steps, action_dx, action_dy } from "./step";
export { apply_moves } from "./moves";
export { replay } from "./replay";
