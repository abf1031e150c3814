// Whether the own character lies dead, and how long until it stands again
// (issue 13): the death screen's state. The truth is the own entity's hp in
// the entity updates — 0 from the killing blow until the respawn, which the
// protocol guarantees is seen (docs/protocol.md § CombatPacket) — so the
// screen comes and goes with it. The countdown runs PLAYER_RESPAWN_SECONDS
// from the kill notice's tick when that arrived (the server counts from that
// tick), else from when hp 0 was first seen; it never goes below 0 (the server
// decides the moment, and the screen waits for the hp to come back).
import { PLAYER_RESPAWN_SECONDS } from "../../combat-rules.js";

export interface DeathState {
  readonly dead: boolean;
  /** Whole seconds until the respawn (rounded up), 0 once it is due. */
  readonly secondsLeft: number;
  /** Who killed us, as the kill notice named them; "" when no notice arrived. */
  readonly killer: string;
}

const ALIVE: DeathState = { dead: false, secondsLeft: 0, killer: "" };

export class DeathWatch {
  private deadSince = NaN;
  private respawnAtMs = NaN;
  private killer = "";
  /** A kill notice that came before the update showing hp 0: kept until that update. */
  private pending: { respawnAtMs: number; killer: string } | null = null;

  /**
   * The own entity's hp from the latest update (hpMax 0, or no own entity: nothing known).
   * Returns true when this call saw the death begin.
   */
  observe(hp: number, hpMax: number, nowMs: number): boolean {
    if (hpMax <= 0 || hp > 0) {
      this.deadSince = NaN;
      this.respawnAtMs = NaN;
      this.killer = "";
      // A notice older than the respawn it announced is spent.
      if (this.pending !== null && nowMs > this.pending.respawnAtMs) this.pending = null;
      return false;
    }
    if (!Number.isNaN(this.deadSince)) return false;
    this.deadSince = nowMs;
    if (this.pending !== null) {
      this.respawnAtMs = this.pending.respawnAtMs;
      this.killer = this.pending.killer;
      this.pending = null;
    } else this.respawnAtMs = nowMs + PLAYER_RESPAWN_SECONDS * 1000;
    return true;
  }

  /**
   * A kill notice with the own player as its victim: `killTick` is its tick, `serverTick` the
   * client's estimate of the server's tick now (NaN when unknown: counted from now).
   */
  killed(killer: string, killTick: number, serverTick: number, tickHz: number, nowMs: number): void {
    const elapsedMs =
      Number.isFinite(serverTick) && tickHz > 0 ? Math.max(0, ((serverTick - killTick) / tickHz) * 1000) : 0;
    const respawnAtMs = nowMs + PLAYER_RESPAWN_SECONDS * 1000 - elapsedMs;
    if (Number.isNaN(this.deadSince)) this.pending = { respawnAtMs, killer };
    else {
      this.respawnAtMs = respawnAtMs;
      this.killer = killer;
    }
  }

  state(nowMs: number): DeathState {
    if (Number.isNaN(this.deadSince)) return ALIVE;
    const secondsLeft = Math.max(0, Math.ceil((this.respawnAtMs - nowMs) / 1000));
    return { dead: true, secondsLeft, killer: this.killer };
  }

  get dead(): boolean {
    return !Number.isNaN(this.deadSince);
  }

  reset(): void {
    this.deadSince = NaN;
    this.respawnAtMs = NaN;
    this.killer = "";
    this.pending = null;
  }
}

/** The death screen's words: "You died", who did it, and the countdown. */
export function deathScreenText(state: DeathState): { title: string; detail: string; countdown: string } {
  return {
    title: "You died",
    detail: state.killer ? `${state.killer} killed you.` : "",
    countdown: state.secondsLeft > 0 ? `Back on your feet in ${state.secondsLeft} s` : "Getting up...",
  };
}
