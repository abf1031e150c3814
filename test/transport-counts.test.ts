// Players per transport (issue 18 item 10) in /api/status (`playersByTransport`)
// and /metrics (`caves_players_by_transport`), from the real server on loopback:
// a headless client over real UDP, one over the WebSocket fallback, and a guest
// that joined over HTTP but sent no datagram yet (unbound); and the counts
// follow a client that leaves. Also the two lines `npm start` prints about its
// transports and storage (ts/server/ops/startup-summary.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { connectGuest, GameClient } from "../ts/client/core/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { connectWebSocket } from "../ts/client/transport/connect.js";
import { startupSummary } from "../ts/server/ops/startup-summary.js";
import { loadCore } from "../ts/wasm/node.js";
import { startServerOnTestMap, type TestServer } from "./support/test-server.js";

let running: TestServer;
const clients: GameClient[] = [];
const ws = WebSocket as unknown as typeof globalThis.WebSocket;

beforeAll(async () => {
  // The quiet guest must stay unbound for the whole check: the default 5 s before an unbound session is
  // evicted is shorter than binding two clients can take on a loaded machine.
  running = await startServerOnTestMap({ unboundSessionTimeoutMs: 60_000 });
});

afterAll(async () => {
  for (const client of clients) client.close();
  await running?.close();
});

async function status(): Promise<Record<string, number>> {
  const body = (await (await fetch(`${running.baseUrl}/api/status`)).json()) as {
    playersByTransport: Record<string, number>;
  };
  return body.playersByTransport;
}

async function metricsByTransport(): Promise<Record<string, number>> {
  const text = await (await fetch(`${running.baseUrl}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^caves_players_by_transport\{transport="(\w+)"\} (\d+)$/gm)) {
    counts[match[1]] = Number(match[2]);
  }
  return counts;
}

/** Drives the clients until `done` holds (they must send to be bound). */
async function until(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not reached: ${JSON.stringify(await status())}`);
    for (const client of clients) client.update();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("players per transport", () => {
  it("counts UDP, WebSocket and not-yet-bound sessions in /api/status and /metrics, and follows a leave", async () => {
    expect(await status()).toEqual({ udp: 0, webrtc: 0, websocket: 0, unbound: 0 });
    const core = await loadCore();
    const overUdp = await connectGuest(running.baseUrl, "Udp", (session) =>
      UdpNodeTransport.connect("127.0.0.1", session.udpPort, session.key),
    );
    clients.push(GameClient.create({ core, ...overUdp }));
    const overWs = await connectGuest(running.baseUrl, "Sockets", () =>
      connectWebSocket(running.baseUrl, { WebSocket: ws }),
    );
    clients.push(GameClient.create({ core, ...overWs }));
    const quiet = await fetch(`${running.baseUrl}/api/guest`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ nick: "Quiet" }),
    });
    expect(quiet.status).toBe(200);

    const want = { udp: 1, webrtc: 0, websocket: 1, unbound: 1 };
    await until(async () => JSON.stringify(await status()) === JSON.stringify(want));
    expect(await metricsByTransport()).toEqual(want);

    // The WebSocket client leaves: its transport's close ends the session at once. (A UDP client has no
    // close the server can see; its session ends after the session timeout, 10 s — longer than this check.)
    clients.pop()!.close();
    await until(async () => (await status()).websocket === 0);
    expect(await status()).toMatchObject({ udp: 1, webrtc: 0, websocket: 0, unbound: 1 });
    expect((await metricsByTransport()).websocket).toBe(0);
  }, 20_000);
});

describe("what npm start says it uses", () => {
  it("names the UDP backend, WebRTC or why it is off, the WebSocket path and the database", () => {
    const base = {
      host: "0.0.0.0",
      httpPort: 8080,
      udpPort: 7777,
      webrtcUnavailableReason: null,
      database: "caves.db",
    };
    expect(startupSummary({ ...base, udpBackend: "mmsg", udpFallbackReason: "" })).toEqual([
      "Transports: UDP 0.0.0.0:7777 (batched recvmmsg/sendmmsg, native/udp-mmsg), WebRTC data channels (node-datachannel), WebSocket ws://0.0.0.0:8080/ws",
      "Storage: SQLite caves.db",
    ]);
    const [transports, storage] = startupSummary({
      ...base,
      udpBackend: "dgram",
      udpFallbackReason: "native/udp-mmsg is not built",
      webrtcUnavailableReason: "node-datachannel did not load",
      database: ":memory:",
    });
    expect(transports).toBe(
      "Transports: UDP 0.0.0.0:7777 (node:dgram: native/udp-mmsg is not built), WebRTC off (node-datachannel did not load), WebSocket ws://0.0.0.0:8080/ws",
    );
    expect(storage).toMatch(/^Storage: SQLite in memory/);
  });
});
