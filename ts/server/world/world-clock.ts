// The world's clock and weather (issue 15, docs/world-time.md): the time of day
// follows the tick (one in-game day per `dayMinutes` real minutes), the weather
// follows a seeded schedule — each state holds 3 … 10 minutes, then the next is
// drawn from a transition table — and every player is told both every 4 seconds,
// once a second for its first 3 seconds, and at once when the weather or the time
// changes (five times over 2 seconds) (docs/protocol.md § 18.4, P-20). Nothing
// here allocates per player: one datagram per tick goes to every session due.
import { encodeWorldClock, WORLD_CLOCK_BYTES } from "../../protocol/world-clock.js";
import { mulberry32 } from "../../random.js";
import { WEATHER_STATES, type Weather } from "../../world-time.js";
import type { Egress } from "../edge/egress.js";
import type { Session } from "../sessions/session.js";

export interface WorldClockOptions {
  dayMinutes: number;
  /** Where the first day starts, 0 … 1 (0 midnight, 0.5 noon). */
  startTimeOfDay: number;
  weatherSeed: number;
  tickHz: number;
}

/** How long one weather state holds, in minutes. */
const WEATHER_MINUTES_MIN = 3;
const WEATHER_MINUTES_MAX = 10;
/** After a change the packet goes out again these many ticks later (¼, ½, 1 and 2 s at 24 Hz). */
const CHANGE_REPEATS = [6, 12, 24, 48];
/** The steady repeat for everyone, in seconds: the clock moves by itself between packets. */
const STEADY_EVERY_SECONDS = 4;
/** A session that has just bound hears the clock every second for this many seconds. */
const FRESH_SECONDS = 3;

/** What follows each state, with its weight: storms come out of rain, fog lifts to clear. */
const NEXT: Readonly<Record<Weather, readonly [Weather, number][]>> = {
  clear: [
    ["clear", 2],
    ["rain", 3],
    ["fog", 3],
    ["storm", 1],
  ],
  rain: [
    ["clear", 5],
    ["storm", 3],
    ["fog", 2],
  ],
  fog: [
    ["clear", 7],
    ["rain", 3],
  ],
  storm: [
    ["rain", 6],
    ["clear", 4],
  ],
};

export class WorldClock {
  readonly dayTicks: number;
  private startDayTick: number;
  private readonly random: () => number;
  private weatherCode = 0;
  /** The tick the current weather ends (the schedule draws the next one then). */
  private weatherUntil: number;
  /** Ticks at which to send again after a change. */
  private readonly repeats: number[] = [];
  /** Sessions bound in the last FRESH_SECONDS, and the tick until which they hear the clock every second. */
  private readonly fresh = new Map<Session, number>();
  readonly stats = { weatherChanges: 0, packetsSent: 0 };

  constructor(
    private readonly options: WorldClockOptions,
    private readonly egress: Egress,
    /** Whether a session is still in the game (a fresh one may leave within its first seconds). */
    private readonly isLive: (session: Session) => boolean = () => true,
  ) {
    this.dayTicks = Math.max(1, Math.round(options.dayMinutes * 60 * options.tickHz));
    this.startDayTick = Math.floor((((options.startTimeOfDay % 1) + 1) % 1) * this.dayTicks);
    this.random = mulberry32(options.weatherSeed ^ 0x77e4);
    this.weatherUntil = this.holdTicks();
  }

  get weather(): Weather {
    return WEATHER_STATES[this.weatherCode];
  }

  /** Ticks into the day at `tick`. */
  dayTickAt(tick: number): number {
    return (this.startDayTick + tick) % this.dayTicks;
  }

  /** 0 … 1 at `tick`: 0 midnight, 0.5 noon. */
  timeOfDay(tick: number): number {
    return this.dayTickAt(tick) / this.dayTicks;
  }

  /** Sets the weather now (operators, tests); it holds for a scheduled while, then the schedule goes on. */
  setWeather(weather: Weather, tick: number): void {
    this.change(WEATHER_STATES.indexOf(weather), tick);
  }

  /** Sets the time of day now (operators, tests): 0 … 1, 0 midnight; everyone is told at once. */
  setTimeOfDay(timeOfDay: number, tick: number): void {
    const wanted = Math.floor((((timeOfDay % 1) + 1) % 1) * this.dayTicks);
    this.startDayTick = (((wanted - tick) % this.dayTicks) + this.dayTicks) % this.dayTicks;
    this.repeatFrom(tick);
  }

  /**
   * End of a tick: the schedule, and the packet to those it is due to — everyone after a change; each
   * session's steady repeat on its own tick of the period (its entity id's place in it), so a 2000-player
   * world sends ~21 a tick instead of 2000 in one: that round cost its tick ~5 ms every 4 s — 1 % of
   * ticks, right at the tick p99 — where spread it costs nothing to see.
   */
  endTick(tick: number, sessions: Iterable<Session>): void {
    if (tick >= this.weatherUntil) this.change(this.drawNext(), tick);
    const repeatDue = this.repeats.length > 0 && this.repeats[0] <= tick;
    if (repeatDue) this.repeats.shift();
    const steadyTicks = this.options.tickHz * STEADY_EVERY_SECONDS;
    const steadyPhase = tick % steadyTicks;
    /** Whether this tick's round reaches `session`: a weather change's repeat reaches all, the steady rate its own tick. */
    const reached = (session: Session) => repeatDue || session.entity.id % steadyTicks === steadyPhase;
    let out: Uint8Array | null = null;
    for (const session of sessions) {
      if (!reached(session)) continue;
      out ??= this.datagram(tick);
      this.sendDatagram(session, out);
    }
    if (tick % this.options.tickHz !== 0) return;
    // The once-a-second round is for sessions that joined lately (unless this tick's round reached them).
    for (const [session, until] of this.fresh) {
      if (tick >= until || !this.isLive(session)) this.fresh.delete(session);
      else if (!reached(session)) {
        out ??= this.datagram(tick);
        this.sendDatagram(session, out);
      }
    }
  }

  /**
   * A session's first packet of the clock, sent when it binds (so a join knows
   * it before the next round); then once a second for FRESH_SECONDS, so a lost
   * first one is repaired within a second as before the steady rate slowed.
   */
  sendTo(session: Session, tick: number): void {
    if (session.peer === null) return;
    this.sendDatagram(session, this.datagram(tick));
    this.fresh.set(session, tick + FRESH_SECONDS * this.options.tickHz + 1);
  }

  private sendDatagram(session: Session, out: Uint8Array): void {
    if (session.peer === null) return;
    this.egress.send(session, out);
    this.stats.packetsSent++;
  }

  private repeatFrom(tick: number): void {
    this.repeats.length = 0;
    this.repeats.push(tick);
    for (const after of CHANGE_REPEATS) this.repeats.push(tick + after);
  }

  /** The clock at `tick` as one datagram (fresh: a transport may hold on to what it is given). */
  private datagram(tick: number): Uint8Array {
    const out = new Uint8Array(WORLD_CLOCK_BYTES);
    encodeWorldClock(
      {
        type: "world_clock",
        clientType: 0,
        tick,
        dayTicks: this.dayTicks,
        dayTick: this.dayTickAt(tick),
        weather: this.weatherCode,
      },
      out,
    );
    return out;
  }

  private change(code: number, tick: number): void {
    this.weatherUntil = tick + this.holdTicks();
    if (code === this.weatherCode) return;
    this.weatherCode = code;
    this.stats.weatherChanges++;
    // Now (this tick's send) and four times more within 2 s: a change is not missed for long.
    this.repeatFrom(tick);
  }

  private drawNext(): number {
    const choices = NEXT[this.weather];
    let total = 0;
    for (const [, weight] of choices) total += weight;
    let pick = this.random() * total;
    for (const [weather, weight] of choices) {
      pick -= weight;
      if (pick < 0) return WEATHER_STATES.indexOf(weather);
    }
    return WEATHER_STATES.indexOf(choices[choices.length - 1][0]);
  }

  private holdTicks(): number {
    const minutes = WEATHER_MINUTES_MIN + this.random() * (WEATHER_MINUTES_MAX - WEATHER_MINUTES_MIN);
    return Math.round(minutes * 60 * this.options.tickHz);
  }
}
