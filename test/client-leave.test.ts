// A UDP client that quits says so (LeavePacket, P-26): over real UDP loopback,
// against the real server, its session ends at once — the others see it go
// within a broadcast, not after the 10 s timeout — while a LeavePacket with its
// token from any other address ends nothing.
import { createSocket } from "node:dgram";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectGuest, GameClient } from "../ts/client/core/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { encodeLeave, LEAVE_BYTES } from "../ts/protocol/index.js";
import type { RunningServer } from "../ts/server/server.js";
import { loadCore } from "../ts/wasm/node.js";
import { startServerOnTestMap, type TestServer } from "./support/test-server.js";
import { drive } from "./client-core-support.js";

let running: TestServer | undefined;
let server: RunningServer;
const clients: GameClient[] = [];

beforeAll(async () => {
  running = await startServerOnTestMap();
  server = running.server;
});

afterAll(async () => {
  for (const client of clients) client.close();
  await running?.close();
});

async function join(nick: string): Promise<GameClient> {
  const connection = await connectGuest(running!.baseUrl, nick, async (session) =>
    UdpNodeTransport.connect("127.0.0.1", session.udpPort, session.key),
  );
  const client = GameClient.create({ core: await loadCore(), ...connection });
  clients.push(client);
  await drive([client], `${nick} playing`, () => client.state === "playing" && client.confirmed !== null);
  return client;
}

describe("leaving over UDP (P-26)", () => {
  it("a client that closes ends its session at once, and the others see it go", async () => {
    const stays = await join("stays");
    const goes = await join("goes");
    const id = goes.ownEntityId;
    await drive([stays, goes], "each sees the other", () => stays.entities.has(id));
    const token = goes.session.token;
    expect(server.game.sessions.byTokenValue(token)).toBeDefined();

    const closedAt = performance.now();
    goes.close();
    await drive([stays], "the session gone", () => server.game.sessions.byTokenValue(token) === undefined, 2000);
    await drive([stays], "gone from the other's view", () => !stays.entities.has(id), 2000);
    // Well inside the 10 s timeout that ends a silent session.
    expect(performance.now() - closedAt).toBeLessThan(2000);
    expect(server.game.entities.get(id)).toBeUndefined();
  });

  it("a LeavePacket from another address ends nobody's session", async () => {
    const victim = await join("victim");
    const token = victim.session.token;
    const spoofer = createSocket("udp4");
    try {
      const bytes = new Uint8Array(LEAVE_BYTES);
      encodeLeave({ type: "leave", clientType: 0, authToken: token }, bytes);
      await new Promise<void>((resolve, reject) =>
        spoofer.send(bytes, victim.session.udpPort, "127.0.0.1", (error) => (error ? reject(error) : resolve())),
      );
      // A few broadcasts later the victim still plays, on the same session.
      const until = performance.now() + 500;
      await drive([victim], "half a second", () => performance.now() >= until, 2000);
      expect(server.game.sessions.byTokenValue(token)).toBeDefined();
      expect(victim.state).toBe("playing");
    } finally {
      spoofer.close();
    }
  });
});
