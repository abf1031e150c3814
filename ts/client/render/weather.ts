// Weather on the screen (docs/world-time.md § In the client): which weather_draw code a
// weather is, and which frame number a moment is — frames count 1/60 s from the page's
// clock, so rain falls at the same speed at any refresh rate and a frame number always
// gives the same picture (the kernel is deterministic per frame).
import { WEATHER_STATES, type Weather } from "../../world-time.js";

/** One weather_draw frame: 1/60 s. */
export const WEATHER_FRAME_MS = 1000 / 60;

/** weather_draw's code for a weather: the WorldClockPacket's (0 clear, 1 rain, 2 fog, 3 storm). */
export function weatherCode(weather: Weather): number {
  return WEATHER_STATES.indexOf(weather);
}

/** The weather frame number at `nowMs` (performance.now()), wrapped to u32 like the kernel reads it. */
export function weatherFrameAt(nowMs: number): number {
  return Math.floor(nowMs / WEATHER_FRAME_MS) >>> 0;
}
