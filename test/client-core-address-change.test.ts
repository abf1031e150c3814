// The networking core as the bots run it (UDP, signing with the session key)
// against the real server over loopback, when its source address changes
// under it — a NAT rebinding or a phone switching networks, here a fresh
// socket on a fresh port: the session follows it (a tagged ActionPacket, then
// the challenge and its echo, docs/protocol.md § 6.1, § 12.1) and the player
// keeps walking, without a reconnect. Also: the first join proves its address
// in one challenge round trip.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectGuest, GameClient } from "../ts/client/core/index.js";
import type { DatagramHandler, Transport } from "../ts/client/core/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
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

/** A UDP link whose socket can be replaced under the client, keeping the session key. */
function movable(first: UdpNodeTransport, open: () => Promise<UdpNodeTransport>) {
  let inner = first;
  let handler: DatagramHandler = () => {};
  const transport: Transport = {
    name: "udp",
    get actionMac() {
      return inner.actionMac;
    },
    send: (datagram) => inner.send(datagram),
    onDatagram: (next) => {
      handler = next;
      inner.onDatagram(next);
    },
    close: () => inner.close(),
  };
  return {
    transport,
    /** Opens a new socket (a new source port) and closes the old one. */
    async move(): Promise<void> {
      const next = await open();
      next.onDatagram(handler);
      const old = inner;
      inner = next;
      old.close();
    },
  };
}

describe("an address change under the networking core", () => {
  it("keeps the session and keeps walking after the client's source port changes", async () => {
    let link: ReturnType<typeof movable> | undefined;
    const connection = await connectGuest(`http://127.0.0.1:${server.httpPort}`, "roamer", async (session) => {
      const open = () => UdpNodeTransport.connect("127.0.0.1", session.udpPort, session.key);
      link = movable(await open(), open);
      return link.transport;
    });
    expect(connection.session.key).toHaveLength(32);
    const client = GameClient.create({ core: await loadCore(), ...connection });
    clients.push(client);
    const metrics = server.game.metrics;
    const provenBefore = metrics.addressesProven;
    await drive([client], "playing", () => client.state === "playing" && client.confirmed !== null);
    // The first address was proven once, by the echo of one challenge.
    expect(metrics.addressesProven - provenBefore).toBe(1);
    const session = server.game.sessions.byTokenValue(connection.session.token)!;
    const firstPeer = session.peer!.key;

    await link!.move();
    const start = client.confirmed!;
    expect(client.setGoal(start.x + 3, start.y)).toBe("planned");
    await drive([client], "arrival after the move", () => client.goal === null && client.pending.length === 0, 15_000);
    const entity = server.game.entities.get(client.ownEntityId)!;
    expect({ x: entity.x, y: entity.y }).toEqual({ x: start.x + 3, y: start.y });
    expect(session.peer!.key).not.toBe(firstPeer);
    expect(session.proof.proven).toBe(true);
    expect(server.game.sessions.byTokenValue(connection.session.token)).toBe(session);
    expect(client.stats.reconnects).toBe(0);
    expect(client.state).toBe("playing");
  });

  it("finds its way back when idle: a silent signing link hellos again and is proven at its new address", async () => {
    let link: ReturnType<typeof movable> | undefined;
    const connection = await connectGuest(`http://127.0.0.1:${server.httpPort}`, "idler", async (session) => {
      const open = () => UdpNodeTransport.connect("127.0.0.1", session.udpPort, session.key);
      link = movable(await open(), open);
      return link.transport;
    });
    const client = GameClient.create({ core: await loadCore(), ...connection });
    clients.push(client);
    await drive([client], "playing", () => client.state === "playing" && client.confirmed !== null);
    const session = server.game.sessions.byTokenValue(connection.session.token)!;
    const firstPeer = session.peer!.key;
    await link!.move();
    // Nothing to send but pings (which cannot move a session): the silence hello does it.
    await drive([client], "the session on the new port", () => session.peer!.key !== firstPeer && session.proof.proven);
    const statesBefore = client.stats.statesReceived;
    await drive([client], "states again", () => client.stats.statesReceived > statesBefore + 3);
    expect(client.stats.reconnects).toBe(0);
  });
});
