// The re-send clock of the server's reliable messages (chat, dialogs): a
// timeout that starts short and doubles while the client stays silent, so a
// client that never answers — one that lost its link, or an older build that
// does not know the packet — costs a few datagrams per second at most instead
// of a steady stream. Any progress from the client resets it.

/** First re-send timeout: above a loopback or LAN round trip, below what a player notices. */
export const RETRANSMIT_INITIAL_MS = 250;
/** Longest timeout the back-off reaches. */
export const RETRANSMIT_MAX_MS = 2000;

export class RetransmitTimer {
  private timeoutMs = RETRANSMIT_INITIAL_MS;
  private dueAtMs = Number.POSITIVE_INFINITY;

  /** Something was (re)sent at `nowMs`: the next re-send is due one timeout later. */
  sent(nowMs: number): void {
    this.dueAtMs = nowMs + this.timeoutMs;
  }

  /** Whether a re-send is scheduled at all. */
  get armed(): boolean {
    return this.dueAtMs !== Number.POSITIVE_INFINITY;
  }

  /** Whether a re-send is due at `nowMs`. */
  due(nowMs: number): boolean {
    return nowMs >= this.dueAtMs;
  }

  /** The client stayed silent through a timeout: wait twice as long next time. */
  backOff(): void {
    this.timeoutMs = Math.min(this.timeoutMs * 2, RETRANSMIT_MAX_MS);
  }

  /** The client made progress: back to the short timeout. */
  reset(): void {
    this.timeoutMs = RETRANSMIT_INITIAL_MS;
  }

  /** Nothing is outstanding. */
  stop(): void {
    this.dueAtMs = Number.POSITIVE_INFINITY;
  }

  get currentTimeoutMs(): number {
    return this.timeoutMs;
  }
}
