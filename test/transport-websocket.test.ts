// The WebSocket fallback, end to end: the real server in-process, real sockets on loopback,
// datagrams built and read with the protocol library.
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { connectWebSocket, webSocketUrl } from "../ts/client/transport/connect.js";
import type { Transport } from "../ts/client/core/transport.js";
import {
  actionDatagram,
  DatagramLog,
  expectFirstView,
  expectSilentAfterClose,
  joinSession,
  pingDatagram,
  sleep,
  signedActionDatagram,
  startTestServer,
  type TestServer,
  waitFor,
} from "./support/transport-client.js";
import { UdpTestClient } from "./support/udp-client.js";

let test: TestServer;
const sockets: WebSocket[] = [];
const transports: Transport[] = [];

/** A raw `ws` client recording every binary message it receives. */
async function openSocket(baseUrl = test.baseUrl): Promise<{ socket: WebSocket; log: DatagramLog }> {
  const socket = new WebSocket(webSocketUrl(baseUrl));
  sockets.push(socket);
  const log = new DatagramLog();
  socket.on("message", (data, isBinary) => {
    if (isBinary) log.record(new Uint8Array(data as Buffer));
  });
  await once(socket, "open");
  return { socket, log };
}

/** Resolves with the HTTP status a refused upgrade answered. */
function refusedStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.on("open", () => reject(new Error("upgrade was accepted")));
    socket.on("error", () => {});
  });
}

const ws = WebSocket as unknown as typeof globalThis.WebSocket;

beforeAll(async () => {
  test = await startTestServer();
});

afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  for (const transport of transports) transport.close();
  await test?.dispose();
});

describe("WebSocket transport (server)", () => {
  it("carries datagrams both ways: an ActionPacket in, StatePackets and ChunkPackets out", async () => {
    const joined = await joinSession(test.baseUrl);
    const { socket, log } = await openSocket();
    const inBefore = test.server.game.metrics.bytesIn;
    const datagram = actionDatagram(joined.tokenValue);
    socket.send(datagram);
    await expectFirstView(log, joined);
    // Every message is exactly one datagram.
    for (const raw of log.raw) expect(raw.length).toBeLessThanOrEqual(1200);

    const session = test.server.game.sessions.byTokenValue(joined.tokenValue)!;
    expect(session.peer?.transport).toBe("websocket");
    expect(session.peer?.key).toMatch(/^ws:\d+$/);
    expect(session.peer?.address).toBe("127.0.0.1");
    // Counted once, by the datagram handler (the transport adds nothing of its own).
    expect(test.server.game.metrics.bytesIn - inBefore).toBe(datagram.length);

    // Pong answers a link bound to a session, over the same socket.
    socket.send(pingDatagram(42n));
    await waitFor("pong", () => log.packets.some((p) => p.type === "pong" && p.timestampMs === 42n));
  });

  it("drops text and oversize messages, counts them, and keeps the connection and the server running", async () => {
    const joined = await joinSession(test.baseUrl);
    const { socket, log } = await openSocket();
    const drops = test.server.game.metrics.drops;
    const textBefore = drops.get("websocket_text") ?? 0;
    const oversizeBefore = drops.get("websocket_oversize") ?? 0;
    socket.send("hello, server"); // a text frame
    socket.send(JSON.stringify({ token: joined.token }));
    socket.send(new Uint8Array(1201)); // one byte over a datagram
    socket.send(new Uint8Array(40_000));
    await waitFor("drops counted", () => (drops.get("websocket_oversize") ?? 0) - oversizeBefore === 2);
    expect((drops.get("websocket_text") ?? 0) - textBefore).toBe(2);
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.send(actionDatagram(joined.tokenValue));
    await waitFor("states after the garbage", () => log.states.length >= 2);
  });

  it("closes a connection sending a message far beyond any datagram (1009) and carries on", async () => {
    const { socket } = await openSocket();
    const closed = once(socket, "close");
    socket.send(new Uint8Array(100_000));
    const [code] = (await closed) as [number];
    expect(code).toBe(1009);
    const joined = await joinSession(test.baseUrl);
    const { socket: next, log } = await openSocket();
    next.send(actionDatagram(joined.tokenValue));
    await waitFor("states on a new connection", () => log.states.length >= 1);
  });

  it("refuses upgrades on other paths with 404", async () => {
    expect(await refusedStatus(`ws://127.0.0.1:${test.server.httpPort}/api/ws`)).toBe(404);
  });

  it("moves a session from UDP to the WebSocket with the same token", async () => {
    const joined = await joinSession(test.baseUrl);
    const udp = await UdpTestClient.withSession({
      token: joined.token,
      entityId: joined.entityId,
      protocolVersion: 1,
      udpPort: joined.udpPort,
    });
    try {
      udp.action(0, 0);
      await udp.waitFor("states over UDP", () => udp.states.length >= 2);
      const session = test.server.game.sessions.byTokenValue(joined.tokenValue)!;
      expect(session.peer?.transport).toBe("udp");

      // Moving needs the tag (docs/protocol.md § 6.1): a spec-only packet from a new link could be a replay.
      const { socket, log } = await openSocket();
      socket.send(signedActionDatagram(joined, 1000));
      await waitFor("states over the WebSocket", () => log.states.length >= 2);
      expect(session.peer?.transport).toBe("websocket");
      expect(log.states.at(-1)!.playerEntityId).toBe(joined.entityId);
      // The UDP source no longer receives anything once the session moved.
      await sleep(150);
      const udpCount = udp.states.length;
      await sleep(300);
      expect(udp.states.length).toBe(udpCount);
    } finally {
      udp.close();
    }
  });
});

describe("WebSocket limits", () => {
  it("bounds connections per address (429), and closes links that carry no session", async () => {
    const limited = await startTestServer({
      websocket: { maxConnections: 3, maxConnectionsPerAddress: 2, unboundGraceMs: 400 },
    });
    try {
      const url = webSocketUrl(limited.baseUrl);
      const first = await openSocket(limited.baseUrl);
      const second = await openSocket(limited.baseUrl);
      expect(await refusedStatus(url)).toBe(429);
      expect(limited.server.websocket.counts()).toMatchObject({ open: 2, refused: 1 });

      // The unbound links are closed after the grace period with 4000; a bound one stays.
      const joined = await joinSession(limited.baseUrl);
      first.socket.send(actionDatagram(joined.tokenValue));
      const [code] = (await once(second.socket, "close")) as [number];
      expect(code).toBe(4000);
      await sleep(600);
      expect(first.socket.readyState).toBe(WebSocket.OPEN);
      expect(limited.server.websocket.counts()).toMatchObject({ open: 1, reaped: 1 });

      await openSocket(limited.baseUrl);
      expect(limited.server.websocket.counts().open).toBe(2);
      expect(await refusedStatus(url)).toBe(429);
    } finally {
      await limited.dispose();
    }
  });

  it("refuses beyond the global limit with 503", async () => {
    const limited = await startTestServer({ websocket: { maxConnections: 1 } });
    try {
      await openSocket(limited.baseUrl);
      expect(await refusedStatus(webSocketUrl(limited.baseUrl))).toBe(503);
    } finally {
      await limited.dispose();
    }
  });
});

describe("connectWebSocket (client)", () => {
  it("gives the core a Transport named websocket that exchanges datagrams", async () => {
    const joined = await joinSession(test.baseUrl);
    const transport = await connectWebSocket(test.baseUrl, { WebSocket: ws });
    transports.push(transport);
    expect(transport.name).toBe("websocket");
    const log = new DatagramLog();
    transport.onDatagram(log.record);
    transport.send(actionDatagram(joined.tokenValue));
    await waitFor("states and chunks", () => log.states.length >= 2 && log.chunks.length >= 4);
    expect(log.states.at(-1)!.playerEntityId).toBe(joined.entityId);

    await expectSilentAfterClose(transport, log);
  });

  it("reports a link the server closed through onClose, with the reason", async () => {
    const short = await startTestServer({ websocket: { unboundGraceMs: 200 } });
    try {
      const transport = await connectWebSocket(short.baseUrl, { WebSocket: ws });
      transports.push(transport);
      const reason = await new Promise<string>((resolve) => transport.onClose!(resolve));
      expect(reason).toContain("4000");
    } finally {
      await short.dispose();
    }
  });

  it("rejects when nothing listens", async () => {
    const closed = await startTestServer();
    const baseUrl = closed.baseUrl;
    await closed.dispose();
    await expect(connectWebSocket(baseUrl, { WebSocket: ws, timeoutMs: 2000 })).rejects.toThrow(/websocket/);
  });
});
