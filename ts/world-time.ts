// The world's clock and weather as both hosts read them (issue 15, docs/world-time.md):
// the weather states by wire code, the parts of a day, and the daylight curve — one
// source for the server (what creatures notice, what it tells clients) and the
// client (how dark it draws the world, what the HUD says).

/** Weather states by wire code (WorldClockPacket `weather`). */
export const WEATHER_STATES = ["clear", "rain", "fog", "storm"] as const;
export type Weather = (typeof WEATHER_STATES)[number];

/** One in-game day by default: 20 real minutes (a Minecraft day, long enough to notice, short enough to see turn). */
export const DEFAULT_DAY_MINUTES = 20;
export const DAY_MINUTES_MIN = 1;
export const DAY_MINUTES_MAX = 24 * 60;

/**
 * Daylight at `timeOfDay` (0 = midnight, 0.25 = 6:00, 0.5 = noon, 0.75 = 18:00), 0 … 1: full day
 * from 7:00 to 17:00, full night from 20:00 to 4:00, and dawn and dusk as smooth ramps between.
 */
export function daylight(timeOfDay: number): number {
  const hours = (((timeOfDay % 1) + 1) % 1) * 24;
  if (hours >= 7 && hours <= 17) return 1;
  if (hours >= 20 || hours <= 4) return 0;
  const ramp = hours < 12 ? (hours - 4) / 3 : (20 - hours) / 3;
  return ramp * ramp * (3 - 2 * ramp); // smoothstep
}

/** "night", "dawn", "day", "dusk": what the HUD says. */
export function partOfDay(timeOfDay: number): "night" | "dawn" | "day" | "dusk" {
  const hours = (((timeOfDay % 1) + 1) % 1) * 24;
  if (hours >= 7 && hours < 17) return "day";
  if (hours >= 4 && hours < 7) return "dawn";
  if (hours >= 17 && hours < 20) return "dusk";
  return "night";
}

/** "14:05": the clock face of a time of day. */
export function clockText(timeOfDay: number): string {
  // The epsilon keeps 14:30 from printing as 14:29 when 14.5 / 24 does not round-trip exactly.
  const minutes = Math.floor((((timeOfDay % 1) + 1) % 1) * 24 * 60 + 1e-6) % (24 * 60);
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

/** Light levels the client draws with (ts/blit-layout.ts LIGHT_LEVELS): 0 darkest night, 15 full day. */
export const FULL_LIGHT = 15;

/** How much of the daylight each weather lets through. */
const WEATHER_LIGHT: Readonly<Record<Weather, number>> = { clear: 1, rain: 0.8, fog: 0.85, storm: 0.6 };

/** The ambient light level, 0 … FULL_LIGHT, at `timeOfDay` under `weather`. */
export function ambientLevel(timeOfDay: number, weather: Weather): number {
  return Math.round(FULL_LIGHT * daylight(timeOfDay) * WEATHER_LIGHT[weather]);
}

/**
 * How far creatures notice in each weather, as a share of their radius (docs/world-time.md):
 * fog hides a player most, a storm's noise and dark a good deal, rain a little.
 */
export const WEATHER_PERCEPTION: Readonly<Record<Weather, number>> = { clear: 1, rain: 0.85, fog: 0.5, storm: 0.75 };

/**
 * A creature's perception radius now: its night radius between dusk and dawn (partOfDay "night"),
 * its day radius otherwise, shortened by the weather; at least 1 for a creature that notices at all.
 */
export function perceptionRadius(dayRadius: number, nightRadius: number, night: boolean, weather: Weather): number {
  const radius = night ? nightRadius : dayRadius;
  if (radius === 0) return 0;
  return Math.max(1, Math.round(radius * WEATHER_PERCEPTION[weather]));
}
