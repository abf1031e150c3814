// The loss on a session's way down, for the operators' console (docs/server.md § Admin; docs/protocol.md
// § 12.4). Acknowledgements are cumulative and sparse, so a lost broadcast leaves no trace the server could
// count; but every Ping is answered with a Pong, and the networking core says in each Ping how many pongs it
// has received. Between two of its reports, the pongs this server sent and the pongs the client got differ by
// those lost on the way down (or dropped by this server's own egress budget: loss as the client sees it).
// A figure to look at, like the inbound one: a Ping carries no tag, so nothing is decided by it.

/** The reports the figure looks back over: one a second, the last 20 s (the client's PING_LOSS_WINDOW). */
export const DOWNSTREAM_REPORTS = 21;

interface Report {
  /** The client's counts (each wrapping at 2^32). */
  readonly pingsSent: number;
  readonly pongsReceived: number;
  /** This server's pongs to the session before the reporting Ping was answered. */
  readonly pongsSent: number;
}

export class DownstreamLoss {
  private pongsSent = 0;
  private readonly reports: Report[] = [];

  /**
   * A reporting Ping arrived, about to be answered. A report not newer than the last (a repeated or
   * reordered Ping) is ignored. The Pong of the ping before it may still be on its way: a steady delay
   * cancels out between the window's two ends, so only its change is counted as loss.
   */
  report(pingsSent: number, pongsReceived: number): void {
    const last = this.reports.at(-1);
    if (last !== undefined) {
      const ahead = (pingsSent - last.pingsSent) >>> 0;
      if (ahead === 0 || ahead >= 0x80000000) return;
    }
    this.reports.push({ pingsSent, pongsReceived, pongsSent: this.pongsSent });
    if (this.reports.length > DOWNSTREAM_REPORTS) this.reports.shift();
  }

  /** A Pong went to the session. */
  pongSent(): void {
    this.pongsSent++;
  }

  /**
   * Pongs sent and lost over the window (the oldest report kept to the newest), or null before two reports —
   * a client that sends none (the spec's own) has none.
   */
  figures(): { sent: number; lost: number } | null {
    if (this.reports.length < 2) return null;
    const first = this.reports[0];
    const last = this.reports[this.reports.length - 1];
    const sent = last.pongsSent - first.pongsSent;
    const received = (last.pongsReceived - first.pongsReceived) >>> 0;
    return { sent, lost: Math.max(0, sent - Math.min(received, sent)) };
  }
}
