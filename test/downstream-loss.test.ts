// The server's count of a session's pongs lost on the way down (ts/server/sessions/downstream-loss.ts), from the
// counts its client reports in each Ping (docs/protocol.md § 12.4): a steady delay is no loss, a repeated or
// reordered report changes nothing, the client's counts may wrap, and the window is bounded.
import { describe, expect, it } from "vitest";
import { DOWNSTREAM_REPORTS, DownstreamLoss } from "../ts/server/sessions/downstream-loss.js";

/** Drives `loss` as the server does for `pings` Pings: a report (if any), then the Pong. */
function exchange(loss: DownstreamLoss, reports: [pingsSent: number, pongsReceived: number][]): void {
  for (const [sent, received] of reports) {
    loss.report(sent, received);
    loss.pongSent();
  }
}

describe("DownstreamLoss", () => {
  it("has no figure before two reports", () => {
    const loss = new DownstreamLoss();
    expect(loss.figures()).toBeNull();
    exchange(loss, [[1, 0]]);
    expect(loss.figures()).toBeNull();
    exchange(loss, [[2, 1]]);
    expect(loss.figures()).toEqual({ sent: 1, lost: 0 });
  });

  it("counts the pongs that never came, and a steady delay as none", () => {
    const lossy = new DownstreamLoss();
    // Every third pong lost: at ping n the client has n - 1 - floor((n - 1) / 3) of them.
    exchange(
      lossy,
      Array.from({ length: 10 }, (_, i): [number, number] => [i + 1, i - Math.floor(i / 3)]),
    );
    expect(lossy.figures()).toEqual({ sent: 9, lost: 3 });
    // Pongs that take two ping intervals: each report is one pong short, at both ends of the window (the
    // client's counts run ahead of this server's: it pinged before, as a session handed here from another
    // region has).
    const slow = new DownstreamLoss();
    exchange(
      slow,
      Array.from({ length: 10 }, (_, i): [number, number] => [i + 3, i + 1]),
    );
    expect(slow.figures()).toEqual({ sent: 9, lost: 0 });
  });

  it("ignores a repeated or older report, and reads counts that wrapped at 2^32", () => {
    const loss = new DownstreamLoss();
    const top = 0xffffffff;
    exchange(loss, [
      [top - 1, top - 2],
      [top, top - 1],
      [top, 0], // repeated
      [top - 5, 0], // older
      [0, top], // wrapped
      [1, 0],
    ]);
    // Six Pongs went (one per Ping that came); four reports counted, from the first to the last.
    expect(loss.figures()).toEqual({ sent: 5, lost: 2 });
  });

  it("looks back over the last DOWNSTREAM_REPORTS reports only", () => {
    const loss = new DownstreamLoss();
    // Ten pongs lost at first, none after: once they leave the window, none is counted.
    exchange(
      loss,
      Array.from({ length: 10 }, (_, i): [number, number] => [i + 1, 0]),
    );
    expect(loss.figures()!.lost).toBe(9);
    exchange(
      loss,
      Array.from({ length: DOWNSTREAM_REPORTS }, (_, i): [number, number] => [11 + i, 10 + i]),
    );
    expect(loss.figures()).toEqual({ sent: DOWNSTREAM_REPORTS - 1, lost: 0 });
  });
});
