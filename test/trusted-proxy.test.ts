// The server behind a reverse proxy (--trusted-proxy, edge/client-address.ts): before it, every
// player behind an HTTPS proxy shared the proxy's address, so one abuser's guest joins used up
// everyone's budget and a ban of one address banned every player. Real server, real HTTP on
// loopback: the "proxy" is 127.0.0.1 sending X-Forwarded-For; other loopback sources
// (127.0.0.x) are untrusted peers.
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { webSocketUrl } from "../ts/client/transport/connect.js";
import type { RunningServer, ServerOptions } from "../ts/server/server.js";
import { postJsonFrom, requestFrom } from "./support/http-from.js";
import { startTestServer, type TestServer } from "./support/transport-client.js";

const TOKEN = "a-long-operator-token-0123456789abcdef";
const servers: TestServer[] = [];
const sockets: (WebSocket | Socket)[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) {
    if (socket instanceof WebSocket) socket.terminate();
    else socket.destroy();
  }
  for (const server of servers.splice(0)) await server.dispose();
});

async function start(options: Partial<ServerOptions>): Promise<RunningServer> {
  const started = await startTestServer({ adminToken: TOKEN, ...options });
  servers.push(started);
  return started.server;
}

/** A guest join from the loopback source `from`, claiming `forwardedFor` (none when null): status and token. */
async function guest(
  server: RunningServer,
  nick: string,
  forwardedFor: string | null,
  from = "127.0.0.1",
): Promise<{ status: number; token: string }> {
  const headers: Record<string, string> = forwardedFor === null ? {} : { "x-forwarded-for": forwardedFor };
  const reply = await postJsonFrom(server.httpPort, "/api/guest", { nick }, from, headers, 5000);
  return { status: reply.status, token: typeof reply.body.token === "string" ? reply.body.token : "" };
}

/** Where the server thinks the session of `token` joined from. */
function joinSource(server: RunningServer, token: string): string | null | undefined {
  return server.game.sessions.byTokenValue(BigInt(`0x${token}`))?.joinSource;
}

async function ban(server: RunningServer, address: string): Promise<void> {
  const reply = await postJsonFrom(server.httpPort, "/api/admin/ban", { address, reason: "test" }, "127.0.0.1", {
    authorization: `Bearer ${TOKEN}`,
  });
  expect(reply.status).toBe(200);
}

async function statusCounter(server: RunningServer, name: string): Promise<unknown> {
  const reply = await requestFrom(server.httpPort, "GET", "/api/status", { timeoutMs: 5000 });
  return (reply.body.http as Record<string, unknown>)[name];
}

/** The status a WebSocket upgrade from 127.0.0.1 claiming `forwardedFor` is answered with (101 when accepted). */
function upgradeStatus(server: RunningServer, forwardedFor: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(webSocketUrl(`http://127.0.0.1:${server.httpPort}`), {
      headers: { "x-forwarded-for": forwardedFor },
    });
    sockets.push(socket);
    socket.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    socket.on("open", () => resolve(101));
    socket.on("error", reject);
  });
}

describe("behind a trusted proxy", () => {
  it("players with different X-Forwarded-For have their own guest-join budgets", async () => {
    const server = await start({ trustedProxies: ["127.0.0.1"], http: { guestJoinsPerAddress: 2 } });
    const abuser = [];
    for (let index = 0; index < 3; index++) abuser.push((await guest(server, `Flood${index}`, "203.0.113.1")).status);
    expect(abuser).toEqual([200, 200, 429]);
    const honest = await guest(server, "Honest", "203.0.113.2");
    expect(honest.status).toBe(200);
    expect(joinSource(server, honest.token)).toBe("203.0.113.2");
  });

  it("an address ban refuses that player only, not everyone behind the proxy", async () => {
    const server = await start({ trustedProxies: ["127.0.0.1"] });
    await ban(server, "203.0.113.66");
    const banned = await guest(server, "Mal", "203.0.113.66");
    expect(banned.status).toBe(403);
    expect((await guest(server, "Ada", "203.0.113.7")).status).toBe(200);
  });

  it("reads the right-most entry that is not a trusted proxy; what the client wrote left of it is not believed", async () => {
    const server = await start({ trustedProxies: ["127.0.0.1", "10.0.0.0/8"] });
    await ban(server, "203.0.113.3");
    // client 203.0.113.3 → proxy 10.1.2.3 → proxy 127.0.0.1: the left-most entry is the client's own claim.
    expect((await guest(server, "Chain", "198.51.100.7, 203.0.113.3, 10.1.2.3")).status).toBe(403);
    // A banned client cannot pass as someone else by writing an address in front of its own.
    expect((await guest(server, "Forger", "198.51.100.8, 203.0.113.3")).status).toBe(403);
    // And an honest client whose forged-looking prefix names the banned one is not refused for it.
    const other = await guest(server, "Other", "203.0.113.3, 198.51.100.9, 10.9.9.9");
    expect(other.status).toBe(200);
    expect(joinSource(server, other.token)).toBe("198.51.100.9");
  });

  it("a malformed header falls back to the proxy's own address and is counted", async () => {
    const server = await start({ trustedProxies: ["127.0.0.1"] });
    const garbled = await guest(server, "Garbled", "203.0.113.5, not-an-address");
    expect(garbled.status).toBe(200);
    expect(joinSource(server, garbled.token)).toBe("127.0.0.1");
    expect((await guest(server, "Empty", "203.0.113.5,")).status).toBe(200);
    expect(await statusCounter(server, "forwardedForUnreadable")).toBe(2);
  });

  it("the WebSocket upgrade counts connections per player, not per proxy", async () => {
    const server = await start({
      trustedProxies: ["127.0.0.1"],
      websocket: { maxConnectionsPerAddress: 1 },
    });
    expect(await upgradeStatus(server, "203.0.113.1")).toBe(101);
    expect(await upgradeStatus(server, "203.0.113.1")).toBe(429);
    expect(await upgradeStatus(server, "203.0.113.2")).toBe(101);
  });

  it("the proxy's connections are not capped as one source's (the total cap still holds)", async () => {
    const server = await start({ trustedProxies: ["127.0.0.1"], http: { connectionsPerAddress: 2 } });
    for (let index = 0; index < 3; index++) {
      const socket = connect({ host: "127.0.0.1", port: server.httpPort, localAddress: "127.0.0.1" });
      sockets.push(socket);
      await once(socket, "connect");
    }
    expect((await guest(server, "Fourth", "203.0.113.4")).status).toBe(200);
  });
});

describe("a header from an untrusted peer", () => {
  it("is ignored: a rate-limited source cannot escape by claiming another address", async () => {
    const server = await start({ trustedProxies: ["127.0.0.1"], http: { guestJoinsPerAddress: 1 } });
    expect((await guest(server, "First", null, "127.0.0.9")).status).toBe(200);
    const spoofed = await guest(server, "Spoof", "198.51.100.1", "127.0.0.9");
    expect(spoofed.status).toBe(429);
  });

  it("is ignored: a banned source cannot escape by claiming another address, nor frame another", async () => {
    const server = await start({ trustedProxies: ["127.0.0.1"] });
    await ban(server, "127.0.0.8");
    expect((await guest(server, "Banned", "198.51.100.2", "127.0.0.8")).status).toBe(403);
    await ban(server, "198.51.100.3");
    const framed = await guest(server, "Framed", "198.51.100.3", "127.0.0.9");
    expect(framed.status).toBe(200);
    expect(joinSource(server, framed.token)).toBe("127.0.0.9");
  });

  it("is ignored when no proxy is trusted (the default)", async () => {
    const server = await start({});
    const joined = await guest(server, "Plain", "198.51.100.4");
    expect(joined.status).toBe(200);
    expect(joinSource(server, joined.token)).toBe("127.0.0.1");
  });
});
