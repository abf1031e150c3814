// The world's time of day and weather as this client knows them (docs/protocol.md
// § 18.4): the newest WorldClockPacket (by its tick), from which the time at any
// later server tick follows — the clock runs by itself between packets, which
// come once a second. Before the first one the world is in daylight and clear.
import type { WorldClockPacket } from "../../protocol/world-clock.js";
import { WEATHER_STATES, type Weather } from "../../world-time.js";

export class WorldClockView {
  private latest: WorldClockPacket | null = null;
  /** Packets received (copies of a change included). */
  received = 0;

  /** Whether a WorldClockPacket has arrived this session. */
  get known(): boolean {
    return this.latest !== null;
  }

  get weather(): Weather {
    return this.latest === null ? "clear" : WEATHER_STATES[this.latest.weather];
  }

  /** 0 … 1 (0 midnight, 0.5 noon) at server tick `tick`; noon before anything is known. */
  timeOfDay(tick: number): number {
    const clock = this.latest;
    if (clock === null) return 0.5;
    const elapsed = tick - clock.tick;
    const dayTick = (((clock.dayTick + elapsed) % clock.dayTicks) + clock.dayTicks) % clock.dayTicks;
    return dayTick / clock.dayTicks;
  }

  receive(packet: WorldClockPacket): void {
    this.received++;
    // An older copy (reordered) is ignored: the newest tick is the truth.
    if (this.latest !== null && packet.tick < this.latest.tick) return;
    this.latest = { ...packet };
  }

  /** A new session began (reconnect): its server's clock comes anew. */
  reset(): void {
    this.latest = null;
  }
}
