// The client shell's DOM-free logic: click-and-hold steering, the presence
// log, refusal texts, status words, the debug overlay's fixed lines, the
// whole-number canvas fit, and the title cave.
import { describe, expect, it } from "vitest";
import { fitCanvas } from "../ts/client/browser/canvas-view.js";
import { ConnectionMonitor } from "../ts/client/core/connection.js";
import type { Outage } from "../ts/client/core/readout.js";
import type { ClientStats } from "../ts/client/core/stats.js";
import { SessionError } from "../ts/client/core/session-api.js";
import { TILE_CELL_COUNT } from "../ts/client/assets/sheets.js";
import { titleCaveTiles } from "../ts/client/render/title-scene.js";
import { TransportError } from "../ts/client/transport/websocket.js";
import { ClickSteering } from "../ts/client/ui/click-steering.js";
import { connectionStatus } from "../ts/client/ui/connection-status.js";
import { debugLines } from "../ts/client/ui/debug-text.js";
import { PresenceWatch } from "../ts/client/ui/presence.js";
import { explainJoinError } from "../ts/client/ui/refusal.js";

/** Records setGoal calls and answers like GameClient.setGoal. */
class GoalRecorder {
  calls: { x: number; y: number; steering: boolean }[] = [];
  answer: string = "planned";
  setGoal(x: number, y: number, options: { steering?: boolean } = {}): string {
    this.calls.push({ x, y, steering: options.steering === true });
    return this.answer;
  }
}

describe("click steering", () => {
  it("aims once per press, then only when the tile under the pointer changes", () => {
    const steering = new ClickSteering();
    const client = new GoalRecorder();
    steering.frame({ x: 1, y: 1 }, client);
    expect(client.calls).toEqual([]); // no button, no goal

    steering.press();
    steering.frame({ x: 5, y: 6 }, client);
    steering.frame({ x: 5, y: 6 }, client);
    steering.frame({ x: 5, y: 6 }, client);
    expect(client.calls).toEqual([{ x: 5, y: 6, steering: false }]);

    // The pointer (or the camera under it) moves on: steer toward the new tile, once.
    steering.frame({ x: 6, y: 6 }, client);
    steering.frame({ x: 6, y: 6 }, client);
    steering.frame(null, client); // off the viewport: nothing
    steering.frame({ x: 5, y: 6 }, client);
    expect(client.calls.slice(1)).toEqual([
      { x: 6, y: 6, steering: true },
      { x: 5, y: 6, steering: true },
    ]);

    steering.release();
    steering.frame({ x: 9, y: 9 }, client);
    expect(client.calls).toHaveLength(3);
  });

  it("still aims for a click shorter than a frame", () => {
    const steering = new ClickSteering();
    const client = new GoalRecorder();
    steering.press();
    steering.release();
    steering.frame({ x: 3, y: 4 }, client);
    steering.frame({ x: 4, y: 4 }, client);
    expect(client.calls).toEqual([{ x: 3, y: 4, steering: false }]);
  });

  it("retries while the client is not ready, and stops when a key takes over", () => {
    const steering = new ClickSteering();
    const client = new GoalRecorder();
    client.answer = "not-ready";
    steering.press();
    steering.frame({ x: 3, y: 4 }, client);
    client.answer = "planned";
    steering.frame({ x: 3, y: 4 }, client);
    expect(client.calls.map((call) => call.steering)).toEqual([false, false]);
    steering.cancel();
    steering.frame({ x: 7, y: 4 }, client);
    expect(client.calls).toHaveLength(2);
    expect(steering.steering).toBe(false);
  });
});

describe("who is near", () => {
  const player = (id: number) => ({ id, typeId: 0 });

  it("lists named players in view in the order they came, never the own entity or non-players", () => {
    const watch = new PresenceWatch();
    const names = new Map<number, string>([
      [1, "Me"],
      [3, "Bob"],
    ]);
    const view = new Map([
      [1, player(1)],
      [2, player(2)],
      [3, player(3)],
      [4, { id: 4, typeId: 1 }],
    ]);
    watch.update(view, names, 1);
    expect(watch.present).toEqual(["Bob"]);
    names.set(2, "Cy"); // the name query came back
    watch.update(view, names, 1);
    expect(watch.present).toEqual(["Bob", "Cy"]);
    view.delete(3);
    watch.update(view, names, 1);
    expect(watch.present).toEqual(["Cy"]);
    watch.clear();
    expect(watch.present).toEqual([]);
  });
});

describe("refusals in plain words", () => {
  const server = "http://127.0.0.1:8080";

  it("explains every way a join fails", () => {
    expect(explainJoinError(new SessionError("join: nick must not be empty", 400), server)).toBe(
      "The server did not accept that nick: Nick must not be empty.",
    );
    expect(explainJoinError(new SessionError("join: server full", 503), server)).toMatch(/^The server is full/);
    expect(explainJoinError(new SessionError("join: server speaks protocol 2, this client 1", 0), server)).toBe(
      "This page is out of date: the server speaks protocol version 2, this page version 1. " +
        "Reload the page to get the current game.",
    );
    expect(explainJoinError(new SessionError("join: TypeError: Failed to fetch", 0), server)).toBe(
      "Cannot reach the game server at http://127.0.0.1:8080. Is it running? (TypeError: Failed to fetch)",
    );
    expect(explainJoinError(new SessionError("join: boom", 500), server)).toBe(
      "The server could not let you in (HTTP 500): Boom.",
    );
    expect(explainJoinError(new TransportError("websocket", "not open after 5000 ms"), server)).toMatch(
      /^Joined, but no connection to the game could be opened \(websocket: not open after 5000 ms\)/,
    );
    expect(explainJoinError(new Error("odd"), server)).toBe("Something went wrong while joining: odd");
  });
});

describe("connection status", () => {
  it("says reconnecting the way the page promises, and keeps the HUD word short and ASCII", () => {
    expect(connectionStatus("reconnecting", "webrtc", "Ada").line).toBe("Disconnected — reconnecting…");
    expect(connectionStatus("disconnected", "webrtc", "Ada").line).toBe("Disconnected — reconnecting…");
    expect(connectionStatus("playing", "websocket", "Ada").line).toBe("Playing as Ada via websocket");
    // A spectator's page watches: it says so, not "Playing as a spectator".
    expect(connectionStatus("playing", "webrtc", "a spectator", undefined, true)).toMatchObject({
      line: "Watching the world via webrtc",
      short: "watching",
    });
    for (const state of ["connecting", "playing", "reconnecting", "disconnected", "closed"] as const) {
      const short = connectionStatus(state, "webrtc", "Ada").short;
      expect(short.length).toBeLessThanOrEqual(12);
      expect(/^[\x20-\x7e]+$/.test(short)).toBe(true);
    }
  });

  it("counts an outage down: a quiet server while playing, then the wait before each rejoin with its attempt", () => {
    const outage = (fields: Partial<Outage>): Outage => ({
      silentMs: 0,
      disconnectAfterMs: 10_000,
      retryInMs: NaN,
      attempts: 0,
      lastLoss: "",
      ...fields,
    });
    expect(connectionStatus("playing", "udp", "Ada", outage({ silentMs: 500 })).line).toBe("Playing as Ada via udp");
    expect(connectionStatus("playing", "udp", "Ada", outage({ silentMs: 3200 }))).toEqual({
      line: "No word from the server for 3 s — reconnecting in 7 s if it stays quiet",
      short: "quiet",
      level: "busy",
    });
    expect(connectionStatus("disconnected", "udp", "Ada", outage({ retryInMs: 3400, attempts: 2 })).line).toBe(
      "Connection lost — trying again in 4 s (attempt 3)",
    );
    expect(connectionStatus("disconnected", "udp", "Ada", outage({ retryInMs: 0 })).line).toBe(
      "Disconnected — reconnecting…",
    );
    expect(connectionStatus("reconnecting", "udp", "Ada", outage({ attempts: 3 })).line).toBe(
      "Reconnecting… (attempt 3)",
    );
    for (const short of [
      connectionStatus("disconnected", "udp", "Ada", outage({ retryInMs: 9999 })).short,
      connectionStatus("playing", "udp", "Ada", outage({ silentMs: 9000 })).short,
    ]) {
      expect(short.length).toBeLessThanOrEqual(12);
    }
  });

  it("the connection monitor counts rejoins since the link last played and says when the next one is due", () => {
    const monitor = new ConnectionMonitor(0);
    expect(Number.isNaN(monitor.retryInMs(0))).toBe(true);
    monitor.stateReceived(100);
    monitor.lose(200, "closed");
    expect(monitor.retryInMs(200)).toBe(0); // a link that played: at once
    monitor.reconnectStarted();
    monitor.reconnectFailed(300, "refused");
    expect(monitor.attempts).toBe(1);
    expect(monitor.retryInMs(300)).toBe(1000);
    expect(monitor.retryInMs(800)).toBe(500);
    monitor.reconnectStarted();
    monitor.reconnectFailed(1400, "refused");
    expect(monitor.retryInMs(1400)).toBe(2000);
    expect(monitor.attempts).toBe(2);
    monitor.reconnectStarted();
    monitor.linkStarted(3500);
    monitor.stateReceived(3600);
    expect(monitor.attempts).toBe(0);
  });
});

describe("debug overlay text", () => {
  const stats: ClientStats = {
    state: "playing",
    transport: "webrtc",
    datagramsIn: 100,
    datagramsOut: 20,
    bytesIn: 5000,
    bytesOut: 600,
    datagramsInPerSecond: 24,
    datagramsOutPerSecond: 6.25,
    bytesInPerSecond: 2048,
    bytesOutPerSecond: 300,
    lossPercent: 1.25,
    lossFrom: "pings",
    stateLossPercent: 0.4,
    statesReceived: 80,
    statesMissed: 1,
    rttMs: 42.4,
    rttVarianceMs: 3,
    serverTick: 1234.7,
    serverTickHz: 24,
    ackTick: 1232,
    confirmed: { x: -3, y: 17 },
    predicted: { x: -2, y: 17 },
    pendingSteps: 1,
    stepsSent: 9,
    retractions: 0,
    chunksCached: 9,
    chunkRequests: 1,
    chunkRetransmits: 0,
    keepAlives: 0,
    corrections: 0,
    replans: 0,
    pingsSent: 3,
    pongsReceived: 3,
    queriesSent: 1,
    decodeErrors: 0,
    reconnects: 0,
    gatewayMoves: 0,
  };

  it("has the fixed `transport NAME` and `pos X,Y` lines and every number the overlay promises", () => {
    const lines = debugLines(stats, { entitiesInView: 2, framesPerSecond: 59.6 });
    expect(lines).toContain("transport webrtc");
    expect(lines).toContain("pos -3,17");
    expect(lines).toContain("pred -2,17");
    expect(lines).toContain("rtt 42 ms");
    expect(lines).toContain("tick 1234 (ack 1232)");
    expect(lines).toContain("pending 1");
    expect(lines).toContain("chunks 9");
    expect(lines).toContain("entities 2");
    expect(lines).toContain("in 24 dg/s 2.0 KiB/s");
    expect(lines).toContain("out 6.3 dg/s 300 B/s");
    expect(lines).toContain("loss 1.3% (pings; states 0.4%)");
    expect(
      debugLines({ ...stats, gatewayMoves: 2, reconnects: 1 }, { entitiesInView: 0, framesPerSecond: 0 }),
    ).toContain("links moved 2 rejoined 1");
    const before = debugLines(
      { ...stats, confirmed: null, serverTick: NaN },
      { entitiesInView: 0, framesPerSecond: 0 },
    );
    expect(before).toContain("pos -");
    expect(before).toContain("tick - (ack 1232)");
    // A dilated server's rate, as the clock follows it (time dilation: docs/server.md § Overload).
    const dilated = debugLines({ ...stats, serverTickHz: 16.8 }, { entitiesInView: 0, framesPerSecond: 0 });
    expect(dilated).toContain("tick 1234 (ack 1232) at 16.8 Hz");
  });
});

describe("canvas fit", () => {
  it("scales by the largest whole number that fits, in device pixels", () => {
    expect(fitCanvas(1000, 734, 1)).toEqual({ scale: 3, cssWidth: 960, cssHeight: 720 });
    expect(fitCanvas(1000, 734, 2)).toEqual({ scale: 6, cssWidth: 960, cssHeight: 720 });
    // 1.5 dpr: 640×480 CSS px is 960×720 device px, scale 3 → exactly 640×480 CSS.
    expect(fitCanvas(700, 500, 1.5)).toEqual({ scale: 3, cssWidth: 640, cssHeight: 480 });
    expect(fitCanvas(100, 100, 1)).toEqual({ scale: 1, cssWidth: 320, cssHeight: 240 });
    expect(fitCanvas(1920, 1080, 0)).toEqual({ scale: 4, cssWidth: 1280, cssHeight: 960 });
  });
});

describe("title cave", () => {
  it("is the same every time, uses only tiles the sheet has, and leaves the hall open", () => {
    const tiles = titleCaveTiles();
    expect(tiles).toEqual(titleCaveTiles());
    expect(tiles.every((id) => id >= 1 && id < TILE_CELL_COUNT)).toBe(true);
    expect(tiles[15 * 31 + 15]).toBe(4); // flagstone where the title's players stand
  });
});
