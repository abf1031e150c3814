// blit kernels: RGB332 framebuffer drawing and RGBA conversion (docs/wasm-abi.md).
// Only the ABI is re-exported; helpers stay module-internal.
export { fb_clear, blit } from "./image";
export { fill_rect, draw_rect, hbar } from "./shapes";
export { draw_tilemap, draw_tilemap_over } from "./tilemap";
export { draw_sprites } from "./sprites";
export { draw_text } from "./text";
export { lut_init, fb_to_rgba } from "./rgba";
export { light_apply } from "./light";
export { light_view, light_bake, fb_to_rgba_lit } from "./light-rgba";
export { weather_draw } from "./weather";
export { light_build } from "./light-sources";
export { fb_resize, fb_address, rgba_address } from "./target";
