// WorldClockPacket (type 23, 19 bytes, server → client): the time of day and the
// weather (docs/protocol.md § 18.4). State, not an event: sent when the weather
// changes (three times, a quarter second apart) and once a second to everyone,
// so a client that joins, reconnects or lost one knows both within a second.
import { readU32, writeU32 } from "./bytes.js";
import { type DecodeResult, EncodeError, checkRoom, checkU32, failure, isIntegerIn } from "./errors.js";
import { HEADER_BYTES, PACKET_WORLD_CLOCK, encodeHeader, readClientType } from "./header.js";
import { enumField, int, layout } from "./layout.js";
import { WEATHER_STATES } from "../world-time.js";

export const WORLD_CLOCK_BYTES = 19;

/** docs/protocol.md § WorldClockPacket. */
export const WORLD_CLOCK_LAYOUT = layout("world_clock", HEADER_BYTES, WORLD_CLOCK_BYTES, [
  int("tick", "u32", "tick"),
  int("day_ticks", "u32", "dayTicks"),
  int("day_tick", "u32", "dayTick"),
  enumField("weather", 1, "weather", WEATHER_STATES),
]);
const TICK_AT = WORLD_CLOCK_LAYOUT.offset.tick;
const DAY_TICKS_AT = WORLD_CLOCK_LAYOUT.offset.day_ticks;
const DAY_TICK_AT = WORLD_CLOCK_LAYOUT.offset.day_tick;
const WEATHER_AT = WORLD_CLOCK_LAYOUT.offset.weather;

export interface WorldClockPacket {
  type: "world_clock";
  clientType: number;
  /** The server tick this describes. */
  tick: number;
  /** Ticks in one in-game day (≥ 1). */
  dayTicks: number;
  /** Ticks into the day at `tick`: 0 is midnight, dayTicks / 2 noon (< dayTicks). */
  dayTick: number;
  /** Index into WEATHER_STATES. */
  weather: number;
}

/** Writes a WorldClockPacket at `offset`; returns WORLD_CLOCK_BYTES. Throws EncodeError on bad input. */
export function encodeWorldClock(packet: WorldClockPacket, out: Uint8Array, offset = 0): number {
  checkU32("tick", packet.tick);
  checkU32("day_ticks", packet.dayTicks);
  checkU32("day_tick", packet.dayTick);
  if (packet.dayTicks === 0 || packet.dayTick >= packet.dayTicks) {
    throw new EncodeError("out_of_range", "day_ticks must be at least 1 and day_tick below it");
  }
  if (!isIntegerIn(packet.weather, 0, WEATHER_STATES.length - 1)) {
    throw new EncodeError("out_of_range", `weather must be 0..${WEATHER_STATES.length - 1}, got ${packet.weather}`);
  }
  checkRoom(out, offset, WORLD_CLOCK_BYTES);
  encodeHeader(PACKET_WORLD_CLOCK, packet.clientType, out, offset);
  writeU32(out, offset + TICK_AT, packet.tick);
  writeU32(out, offset + DAY_TICKS_AT, packet.dayTicks);
  writeU32(out, offset + DAY_TICK_AT, packet.dayTick);
  out[offset + WEATHER_AT] = packet.weather;
  return WORLD_CLOCK_BYTES;
}

/** Decodes the body of a datagram whose header checkHeader accepted with type 23. */
export function decodeWorldClockBody(bytes: Uint8Array): DecodeResult<WorldClockPacket> {
  if (bytes.length < WORLD_CLOCK_BYTES) {
    return failure("truncated", bytes.length, `WorldClockPacket needs ${WORLD_CLOCK_BYTES} bytes`);
  }
  if (bytes.length > WORLD_CLOCK_BYTES) {
    return failure("trailing_bytes", WORLD_CLOCK_BYTES, `WorldClockPacket is ${WORLD_CLOCK_BYTES} bytes`);
  }
  const dayTicks = readU32(bytes, DAY_TICKS_AT);
  const dayTick = readU32(bytes, DAY_TICK_AT);
  if (dayTicks === 0) return failure("bad_clock", DAY_TICKS_AT, "day_ticks 0 is no day");
  if (dayTick >= dayTicks)
    return failure("bad_clock", DAY_TICK_AT, `day_tick ${dayTick} is past the day's ${dayTicks}`);
  const weather = bytes[WEATHER_AT];
  if (weather >= WEATHER_STATES.length) return failure("bad_status", WEATHER_AT, `weather ${weather} is not defined`);
  return {
    ok: true,
    packet: {
      type: "world_clock",
      clientType: readClientType(bytes),
      tick: readU32(bytes, TICK_AT),
      dayTicks,
      dayTick,
      weather,
    },
  };
}
