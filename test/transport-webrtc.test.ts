// The WebRTC data channel, end to end on loopback: the real server in-process, node-datachannel
// as the client side (a real peer connection, DTLS and SCTP), the one-POST signalling, and
// datagrams built and read with the protocol library. No ICE servers: the server's 127.0.0.1
// host candidate is all a loopback client needs.
import { type DataChannel, PeerConnection } from "node-datachannel";
import { RTCPeerConnection as PolyfillPeerConnection } from "node-datachannel/polyfill";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { Transport } from "../ts/client/core/transport.js";
import { connectBest, connectOptionsFromQuery, connectWebRtc } from "../ts/client/transport/connect.js";
import {
  actionDatagram,
  DatagramLog,
  expectFirstView,
  expectSilentAfterClose,
  joinSession,
  startTestServer,
  type TestServer,
  waitFor,
} from "./support/transport-client.js";

let test: TestServer;
const connections: PeerConnection[] = [];
// node-datachannel closes a channel whose JS object is garbage collected: keep every one referenced.
const channels: DataChannel[] = [];
const transports: Transport[] = [];

const polyfill = PolyfillPeerConnection as unknown as typeof globalThis.RTCPeerConnection;
const ws = WebSocket as unknown as typeof globalThis.WebSocket;

function gathered(connection: PeerConnection): Promise<void> {
  return new Promise((resolve) => {
    if (connection.gatheringState() === "complete") return resolve();
    connection.onGatheringStateChange((state) => state === "complete" && resolve());
  });
}

/** A node-datachannel peer connection with the browser's data channel, its offer gathered completely. */
async function offerer(): Promise<{ connection: PeerConnection; channel: DataChannel; log: DatagramLog; sdp: string }> {
  const connection = new PeerConnection("test-client", { iceServers: [] });
  connections.push(connection);
  connection.onStateChange(() => {}); // lets node-datachannel free the connection when it closes
  const channel = connection.createDataChannel("datagrams", { unordered: true, maxRetransmits: 0 });
  channels.push(channel);
  const log = new DatagramLog();
  channel.onClosed(() => {});
  channel.onMessage((message) => {
    if (typeof message !== "string") log.record(new Uint8Array(message as ArrayBuffer));
  });
  connection.setLocalDescription();
  await gathered(connection);
  return { connection, channel, log, sdp: connection.localDescription()!.sdp };
}

function signal(baseUrl: string, body: unknown): Promise<Response> {
  return fetch(`${baseUrl}/api/rtc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Offer, one POST, answer, open: a data channel to the server for `token`. */
async function openChannel(baseUrl: string, token: string) {
  const client = await offerer();
  const response = await signal(baseUrl, { token, sdp: client.sdp });
  expect(response.status).toBe(200);
  const answer = (await response.json()) as { type: string; sdp: string };
  expect(answer.type).toBe("answer");
  expect(answer.sdp).toMatch(/a=candidate:.* 127\.0\.0\.1 \d+ typ host/);
  const opened = new Promise<void>((resolve) => client.channel.onOpen(resolve));
  client.connection.setRemoteDescription(answer.sdp, "answer");
  await opened;
  return client;
}

beforeAll(async () => {
  test = await startTestServer();
});

afterAll(async () => {
  for (const transport of transports) transport.close();
  for (const connection of connections) connection.close();
  await test?.dispose();
});

describe("WebRTC transport (server)", () => {
  it("answers one POST with a complete answer and carries datagrams both ways over the data channel", async () => {
    const joined = await joinSession(test.baseUrl);
    const client = await openChannel(test.baseUrl, joined.token);
    client.channel.sendMessageBinary(actionDatagram(joined.tokenValue));
    await expectFirstView(client.log, joined);

    const session = test.server.game.sessions.byTokenValue(joined.tokenValue)!;
    expect(session.peer?.transport).toBe("webrtc");
    expect(session.peer?.key).toMatch(/^rtc:\d+$/);
    expect(session.peer?.address).toBe("127.0.0.1");
  });

  it("drops text and oversize messages on the channel and counts them", async () => {
    const joined = await joinSession(test.baseUrl);
    const client = await openChannel(test.baseUrl, joined.token);
    const drops = test.server.game.metrics.drops;
    const textBefore = drops.get("webrtc_text") ?? 0;
    const oversizeBefore = drops.get("webrtc_oversize") ?? 0;
    client.channel.sendMessage("hello");
    client.channel.sendMessageBinary(new Uint8Array(1201));
    await waitFor("drops counted", () => (drops.get("webrtc_text") ?? 0) > textBefore);
    await waitFor("oversize counted", () => (drops.get("webrtc_oversize") ?? 0) > oversizeBefore);
    client.channel.sendMessageBinary(actionDatagram(joined.tokenValue));
    await waitFor("states after the garbage", () => client.log.states.length >= 1);
  });

  it("refuses a missing token with 401 and a bad or unknown one with 403, as JSON", async () => {
    const { sdp } = await offerer();
    const openBefore = test.server.webrtc.counts().open;
    const cases: [unknown, number][] = [
      [{ sdp }, 401],
      [{ token: "", sdp }, 401],
      [{ token: 12, sdp }, 401],
      [{ token: "not-a-token", sdp }, 403],
      [{ token: "0123456789abcdef", sdp }, 403],
    ];
    for (const [body, status] of cases) {
      const response = await signal(test.baseUrl, body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(((await response.json()) as { error: string }).error).toEqual(expect.any(String));
    }
    expect(test.server.webrtc.counts().open).toBe(openBefore);
  });

  it("answers signalling garbage from a live session with 400", async () => {
    const joined = await joinSession(test.baseUrl);
    const openBefore = test.server.webrtc.counts().open;
    const bodies: unknown[] = [
      "not json",
      "[]",
      { token: joined.token },
      { token: joined.token, sdp: 5 },
      { token: joined.token, sdp: "hello" },
      { token: joined.token, sdp: "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n" }, // no data channel
      { token: joined.token, sdp: "v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n" }, // no ICE
      { token: joined.token, type: "answer", sdp: (await offerer()).sdp },
    ];
    for (const body of bodies) {
      const response = await signal(test.baseUrl, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(((await response.json()) as { error: string }).error).toEqual(expect.any(String));
    }
    expect(test.server.webrtc.counts().open).toBe(openBefore);
  });

  it("keeps one peer connection per session: a new offer replaces the old one", async () => {
    const joined = await joinSession(test.baseUrl);
    const first = await openChannel(test.baseUrl, joined.token);
    const firstClosed = new Promise<void>((resolve) => first.channel.onClosed(resolve));
    const replacedBefore = test.server.webrtc.counts().replaced;
    const second = await openChannel(test.baseUrl, joined.token);
    await firstClosed;
    expect(test.server.webrtc.counts().replaced).toBe(replacedBefore + 1);
    second.channel.sendMessageBinary(actionDatagram(joined.tokenValue));
    await waitFor("states on the new channel", () => second.log.states.length >= 1);
  });
});

describe("WebRTC limits", () => {
  it("bounds peer connections globally (503) and closes ones that never carry a session (half-open)", async () => {
    const limited = await startTestServer({ webrtc: { maxPeers: 1, unboundGraceMs: 300 } });
    try {
      const a = await joinSession(limited.baseUrl, "a");
      const b = await joinSession(limited.baseUrl, "b");
      // Answered, but the client never applies the answer: half-open.
      const halfOpen = await offerer();
      expect((await signal(limited.baseUrl, { token: a.token, sdp: halfOpen.sdp })).status).toBe(200);
      const refused = await signal(limited.baseUrl, { token: b.token, sdp: (await offerer()).sdp });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: string }).error).toContain("limit");

      await waitFor("the half-open connection reaped", () => limited.server.webrtc.counts().open === 0, 5000);
      expect(limited.server.webrtc.counts().reaped).toBe(1);
      const client = await openChannel(limited.baseUrl, b.token);
      client.channel.sendMessageBinary(actionDatagram(b.tokenValue));
      await waitFor("states once a slot is free", () => client.log.states.length >= 1);
    } finally {
      await limited.dispose();
    }
  });
});

describe("connectWebRtc and connectBest (client)", () => {
  it("connectWebRtc gives the core a Transport named webrtc over a real data channel", async () => {
    const joined = await joinSession(test.baseUrl);
    const transport = await connectWebRtc(test.baseUrl, joined.tokenValue, { RTCPeerConnection: polyfill });
    transports.push(transport);
    expect(transport.name).toBe("webrtc");
    const log = new DatagramLog();
    transport.onDatagram(log.record);
    transport.send(actionDatagram(joined.tokenValue));
    await waitFor("states and chunks", () => log.states.length >= 2 && log.chunks.length >= 4);
    expect(test.server.game.sessions.byTokenValue(joined.tokenValue)!.peer?.transport).toBe("webrtc");
    await expectSilentAfterClose(transport, log);
  });

  it("connectWebRtc rejects a refused offer with the server's reason", async () => {
    await expect(
      connectWebRtc(test.baseUrl, "0123456789abcdef", { RTCPeerConnection: polyfill, timeoutMs: 4000 }),
    ).rejects.toThrow(/403.*unknown or expired/);
  });

  it("connectBest prefers the data channel and falls back to the WebSocket", async () => {
    const joined = await joinSession(test.baseUrl);
    const best = await connectBest(test.baseUrl, joined.token, { RTCPeerConnection: polyfill, WebSocket: ws });
    transports.push(best);
    expect(best.name).toBe("webrtc");

    // No RTCPeerConnection at all (Node has none): straight to the WebSocket, and it works.
    const reasons: string[] = [];
    const fallback = await connectBest(test.baseUrl, joined.token, {
      WebSocket: ws,
      onFallback: (reason) => reasons.push(reason),
    });
    transports.push(fallback);
    expect(fallback.name).toBe("websocket");
    expect(reasons[0]).toContain("RTCPeerConnection is not available");
    const log = new DatagramLog();
    fallback.onDatagram(log.record);
    fallback.send(actionDatagram(joined.tokenValue));
    await waitFor("states over the fallback", () => log.states.length >= 1);

    // Refused signalling falls back too; disableWebRtc never tries; requireWebRtc never falls back.
    const refused = await connectBest(test.baseUrl, "0123456789abcdef", {
      RTCPeerConnection: polyfill,
      WebSocket: ws,
      onFallback: (reason) => reasons.push(reason),
    });
    transports.push(refused);
    expect(refused.name).toBe("websocket");
    expect(reasons[1]).toMatch(/403/);
    const forced = await connectBest(test.baseUrl, joined.token, {
      ...connectOptionsFromQuery("?transport=websocket"),
      RTCPeerConnection: polyfill,
      WebSocket: ws,
    });
    transports.push(forced);
    expect(forced.name).toBe("websocket");
    await expect(
      connectBest(test.baseUrl, "0123456789abcdef", {
        ...connectOptionsFromQuery("?transport=webrtc"),
        RTCPeerConnection: polyfill,
        WebSocket: ws,
      }),
    ).rejects.toThrow(/webrtc/);
  });

  it("connectWebRtc times out and falls back when the data channel never opens", async () => {
    const joined = await joinSession(test.baseUrl);
    // An answer whose DTLS fingerprint is not the server's: ICE connects, the secure channel never does.
    const fetchNowhere = async (input: string, init?: RequestInit) => {
      const response = await fetch(input, init);
      const body = (await response.json()) as { type: string; sdp: string };
      const sdp = body.sdp.replace(/a=fingerprint:sha-256 [0-9A-F:]+/, `a=fingerprint:sha-256 ${"00:".repeat(31)}00`);
      return new Response(JSON.stringify({ ...body, sdp }), { status: response.status });
    };
    const reasons: string[] = [];
    const transport = await connectBest(test.baseUrl, joined.token, {
      RTCPeerConnection: polyfill,
      WebSocket: ws,
      fetch: fetchNowhere,
      webRtcTimeoutMs: 800,
      onFallback: (reason) => reasons.push(reason),
    });
    transports.push(transport);
    expect(transport.name).toBe("websocket");
    expect(reasons[0]).toMatch(/not open after 800 ms|failed/);
  });
});
