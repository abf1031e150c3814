// --netsim: the server impairs its own links (WebSocket, WebRTC and UDP) with the one netsim
// core. Timing is only ever checked as a lower bound (a delay cannot make anything faster).
import { execFile } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { RTCPeerConnection as PolyfillPeerConnection } from "node-datachannel/polyfill";
import { connectWebRtc, webSocketUrl } from "../ts/client/transport/connect.js";
import { parseProfileSpec } from "../ts/netsim/index.js";
import {
  actionDatagram,
  DatagramLog,
  joinSession,
  sleep,
  startTestServer,
  waitFor,
} from "./support/transport-client.js";
import { nodeBundleArgs } from "./support/node-bundle.js";
import { UdpTestClient } from "./support/udp-client.js";

function netsim(spec: string, seed = 7) {
  return { profile: parseProfileSpec(spec).profile, seed };
}

async function openSocket(baseUrl: string): Promise<{ socket: WebSocket; log: DatagramLog }> {
  const socket = new WebSocket(webSocketUrl(baseUrl));
  const log = new DatagramLog();
  socket.on("message", (data, isBinary) => {
    if (isBinary) log.record(new Uint8Array(data as Buffer));
  });
  await once(socket, "open");
  return { socket, log };
}

describe("--netsim on the server's links", () => {
  it("with loss=100 nothing crosses a WebSocket link, either way", async () => {
    const test = await startTestServer({ netsim: netsim("loss=100") });
    try {
      const joined = await joinSession(test.baseUrl);
      const { socket, log } = await openSocket(test.baseUrl);
      for (let i = 0; i < 10; i++) {
        socket.send(actionDatagram(joined.tokenValue));
        await sleep(50);
      }
      await sleep(300);
      expect(log.raw.length).toBe(0);
      // Nothing reached the handler: the session never bound.
      expect(test.server.game.metrics.datagramsIn).toBe(0);
      expect(test.server.game.sessions.byTokenValue(joined.tokenValue)!.peer).toBeNull();
      socket.terminate();
    } finally {
      await test.dispose();
    }
  });

  it("with down-loss=100 the game hears the client but the client hears nothing", async () => {
    const test = await startTestServer({ netsim: netsim("down-loss=100") });
    try {
      const joined = await joinSession(test.baseUrl);
      const { socket, log } = await openSocket(test.baseUrl);
      socket.send(actionDatagram(joined.tokenValue));
      await waitFor("the session bound", () => test.server.game.sessions.byTokenValue(joined.tokenValue)!.peer);
      await sleep(400);
      expect(test.server.game.metrics.datagramsOut).toBeGreaterThan(0);
      expect(log.raw.length).toBe(0);
      socket.terminate();
    } finally {
      await test.dispose();
    }
  });

  it("with a delay the link still works, never faster than delay up plus delay down", async () => {
    const delayMs = 120;
    const test = await startTestServer({ netsim: netsim(`delay=${delayMs}`) });
    try {
      const joined = await joinSession(test.baseUrl);
      const { socket, log } = await openSocket(test.baseUrl);
      const sentAtMs = performance.now();
      socket.send(actionDatagram(joined.tokenValue));
      await waitFor(
        "states and chunks through the delayed link",
        () => log.states.length >= 2 && log.chunks.length >= 4,
      );
      expect(log.firstAtMs! - sentAtMs).toBeGreaterThanOrEqual(2 * delayMs - 1);
      expect(log.undecodable).toBe(0);
      expect(log.states.at(-1)!.playerEntityId).toBe(joined.entityId);
      expect(test.server.netsim!.size).toBe(1);
      socket.terminate();
      await waitFor("the link's impairment released on close", () => test.server.netsim!.size === 0);
    } finally {
      await test.dispose();
    }
  });

  it("impairs WebRTC data channels: loss=100 silences one, a delay only slows it", async () => {
    const polyfill = PolyfillPeerConnection as unknown as typeof globalThis.RTCPeerConnection;
    for (const [spec, delayMs] of [
      ["loss=100", 0],
      ["delay=100", 100],
    ] as const) {
      const test = await startTestServer({ netsim: netsim(spec) });
      try {
        const joined = await joinSession(test.baseUrl);
        // Signalling and the channel's own handshakes are not impaired: only the datagrams it carries.
        const transport = await connectWebRtc(test.baseUrl, joined.token, { RTCPeerConnection: polyfill });
        const log = new DatagramLog();
        transport.onDatagram(log.record);
        const sentAtMs = performance.now();
        transport.send(actionDatagram(joined.tokenValue));
        if (delayMs === 0) {
          await sleep(500);
          expect(log.raw.length).toBe(0);
          expect(test.server.game.metrics.datagramsIn).toBe(0);
        } else {
          await waitFor("states through the delayed channel", () => log.states.length >= 2);
          expect(log.firstAtMs! - sentAtMs).toBeGreaterThanOrEqual(2 * delayMs - 1);
        }
        transport.close();
      } finally {
        await test.dispose();
      }
    }
  });

  it("impairs UDP peers too", async () => {
    const delayMs = 100;
    const test = await startTestServer({ netsim: netsim(`delay=${delayMs}`) });
    try {
      const joined = await joinSession(test.baseUrl);
      const udp = await UdpTestClient.withSession({ ...joined, protocolVersion: 1 });
      try {
        const sentAtMs = performance.now();
        udp.action(0, 0);
        await udp.waitFor("states over delayed UDP", () => udp.states.length >= 2);
        expect(udp.received[0].at - sentAtMs).toBeGreaterThanOrEqual(2 * delayMs - 1);
      } finally {
        udp.close();
      }
    } finally {
      await test.dispose();
    }
  });
});

describe("server command line", () => {
  /**
   * Runs the server's CLI as `npm start` does (its bundle); resolves with its exit status and output (it exits at
   * once on these arguments).
   */
  const run = (...args: string[]) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [...nodeBundleArgs("server"), ...args],
        { encoding: "utf8", timeout: 15_000 },
        (error, stdout, stderr) => resolve({ status: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
      );
    });

  it("exits 2 with a usage error for a bad --netsim spec, --rtc-ports range, --ice-server URL or UDP option", async () => {
    const cases = [
      [["--netsim", "loss=200"], "--netsim"],
      [["--netsim", "delay=fast"], "--netsim"],
      [["--rtc-ports", "6000-5000"], "--rtc-ports"],
      [["--ice-server", "http://example.org"], "--ice-server"],
      [["--udp-backend", "quic"], "--udp-backend must be auto, mmsg or dgram"],
      [["--udp-receive-interval", "1001"], "--udp-receive-interval must be whole milliseconds 0..1000"],
      [["--udp-receive-interval", "1.5"], "--udp-receive-interval must be whole milliseconds 0..1000"],
    ] as const;
    // In parallel: each run pays the server's start-up.
    const results = await Promise.all(cases.map(([args]) => run(...args)));
    cases.forEach(([args, message], index) => {
      expect(results[index].status, args.join(" ")).toBe(2);
      expect(results[index].stderr).toContain(message);
      expect(results[index].stderr).toContain("usage:");
    });
  });

  // Its own run, not one more in the parallel batch above: each is a tsx start-up on a loaded machine.
  it("exits 2 with a usage error for a --trusted-proxy that is not ADDRESS[/PREFIX]", async () => {
    const result = await run("--trusted-proxy", "10.0.0.0/33");
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--trusted-proxy: the prefix of trusted proxy");
  });

  it("documents the transport flags in --help", async () => {
    const result = await run("--help");
    expect(result.status).toBe(0);
    for (const flag of [
      "--ice-server",
      "--rtc-bind",
      "--rtc-ports",
      "--netsim",
      "--client-dir",
      "--udp-backend",
      "--udp-receive-interval",
      "--trusted-proxy",
    ]) {
      expect(result.stdout).toContain(flag);
    }
  });
});
