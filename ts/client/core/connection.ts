// The connection's life: "connecting" until the first StatePacket, "playing"
// while they keep coming, "disconnected" after DISCONNECT_AFTER_MS without one
// (the server evicts a silent session after the same 10 s, so the old session
// is gone by then) or when the transport reports that it closed. With a
// reconnect factory the client then rejoins on its own ("reconnecting"): at
// once after a link that played, with exponential backoff after a failed
// rejoin or a link that never got a StatePacket. "closed" is final.

export type ConnectionState = "connecting" | "playing" | "reconnecting" | "disconnected" | "closed";

export const DISCONNECT_AFTER_MS = 10_000;
export const RECONNECT_BACKOFF_MIN_MS = 1000;
export const RECONNECT_BACKOFF_MAX_MS = 10_000;

export class ConnectionMonitor {
  private current: ConnectionState = "connecting";
  private lastSignMs: number;
  private reconnectAtMs = NaN;
  private backoffMs = RECONNECT_BACKOFF_MIN_MS;
  /** Whether the current link has delivered a StatePacket. */
  private played = false;
  /** Why the link was last considered lost. */
  lastLoss = "";
  /** Rejoins tried since the link last played (the page says "attempt N"). */
  attempts = 0;

  constructor(
    nowMs: number,
    readonly disconnectAfterMs = DISCONNECT_AFTER_MS,
  ) {
    this.lastSignMs = nowMs;
  }

  get state(): ConnectionState {
    return this.current;
  }

  /** A fresh transport and session are in place. */
  linkStarted(nowMs: number): void {
    if (this.current === "closed") return;
    this.current = "connecting";
    this.lastSignMs = nowMs;
    this.played = false;
  }

  /** A StatePacket arrived. */
  stateReceived(nowMs: number): void {
    if (this.current !== "connecting" && this.current !== "playing") return;
    this.current = "playing";
    this.lastSignMs = nowMs;
    this.played = true;
    this.backoffMs = RECONNECT_BACKOFF_MIN_MS;
    this.attempts = 0;
  }

  /** While disconnected: how long until the next rejoin is tried (0: due now); NaN in any other state. */
  retryInMs(nowMs: number): number {
    return this.current === "disconnected" ? Math.max(0, this.reconnectAtMs - nowMs) : NaN;
  }

  /** How long since the last StatePacket (or the link's start). */
  silentMs(nowMs: number): number {
    return nowMs - this.lastSignMs;
  }

  /** Moves to "disconnected" when the link has been silent too long; returns true when it just did. */
  checkTimeout(nowMs: number): boolean {
    if (this.current !== "connecting" && this.current !== "playing") return false;
    if (nowMs - this.lastSignMs < this.disconnectAfterMs) return false;
    this.lose(nowMs, `no StatePacket for ${Math.round(nowMs - this.lastSignMs)} ms`);
    return true;
  }

  /** The link is gone (transport closed, or the timeout). */
  lose(nowMs: number, reason: string): void {
    if (this.current === "closed" || this.current === "disconnected" || this.current === "reconnecting") return;
    this.current = "disconnected";
    this.lastLoss = reason;
    if (this.played) {
      this.reconnectAtMs = nowMs;
    } else {
      this.backOff(nowMs); // the server never answered this link: do not hammer it with joins
    }
  }

  reconnectDue(nowMs: number): boolean {
    return this.current === "disconnected" && nowMs >= this.reconnectAtMs;
  }

  reconnectStarted(): void {
    if (this.current !== "disconnected") return;
    this.current = "reconnecting";
    this.attempts++;
  }

  reconnectFailed(nowMs: number, reason: string): void {
    if (this.current !== "reconnecting") return;
    this.current = "disconnected";
    this.lastLoss = reason;
    this.backOff(nowMs);
  }

  private backOff(nowMs: number): void {
    this.reconnectAtMs = nowMs + this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, RECONNECT_BACKOFF_MAX_MS);
  }

  close(): void {
    this.current = "closed";
  }
}
