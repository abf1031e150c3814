// The UDP transport on real loopback sockets, through both backends: batched
// sendmmsg/recvmmsg (native/udp-mmsg) and node:dgram. Both must deliver every
// datagram with its sender, send replies to the right socket, pass oversized
// datagrams on for the protocol layer to reject, and free the port on close.
import dgram from "node:dgram";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { formatSocketAddress, udpMmsgBinding } from "../ts/server/udp-mmsg.js";
import { type DatagramSink, type UdpBackend, UdpTransport } from "../ts/server/udp-transport.js";

const AF_INET6 = 10;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function listen(backend: UdpBackend, sink: DatagramSink, host = "127.0.0.1"): Promise<UdpTransport> {
  return UdpTransport.listen(host, 0, sink, { backend }).then((transport) => {
    cleanups.push(() => transport.close());
    return transport;
  });
}

function clientSocket(type: "udp4" | "udp6" = "udp4"): Promise<dgram.Socket> {
  const socket = dgram.createSocket(type);
  cleanups.push(() => new Promise((resolve) => socket.close(() => resolve())));
  return new Promise((resolve) => socket.bind(0, type === "udp4" ? "127.0.0.1" : "::1", () => resolve(socket)));
}

/** Datagram `index` from client `client`: a size from 1 to 1200 bytes and a recognisable pattern. */
function datagramFor(client: number, index: number): Uint8Array {
  const length = 1 + ((index * 37 + client * 101) % 1200);
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (client * 31 + index * 7 + i) & 0xff;
  bytes[0] = client;
  return bytes;
}

function ipv6Available(): Promise<boolean> {
  const socket = dgram.createSocket("udp6");
  return new Promise((resolve) => {
    socket.once("error", () => resolve(false));
    socket.bind(0, "::1", () => socket.close(() => resolve(true)));
  });
}

describe("the batched backend", () => {
  it.runIf(process.platform === "linux")("is built by npm install and chosen by default on Linux", async () => {
    const loaded = udpMmsgBinding();
    expect(loaded.reason).toBe("");
    const transport = await listen("auto", () => {});
    expect(transport.backend).toBe("mmsg");
    expect(transport.fallbackReason).toBe("");
  });

  it("formats socket addresses as RFC 5952 text, the same as the URL parser's canonical form", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 }),
        (groups) => {
          const bytes = new Uint8Array(28);
          bytes[0] = AF_INET6;
          groups.forEach((value, index) => {
            bytes[8 + 2 * index] = value >> 8;
            bytes[9 + 2 * index] = value & 0xff;
          });
          const mapped = groups.slice(0, 5).every((value) => value === 0) && groups[5] === 0xffff;
          const text = formatSocketAddress(bytes, 0, AF_INET6);
          if (mapped) expect(text).toMatch(/^::ffff:\d+\.\d+\.\d+\.\d+$/);
          else expect(text).toBe(new URL(`http://[${text}]`).hostname.slice(1, -1));
          expect(new URL(`http://[${text}]`).hostname).toBe(
            new URL(`http://[${groups.map((g) => g.toString(16)).join(":")}]`).hostname,
          );
        },
      ),
      { numRuns: 500 },
    );
    const v4 = new Uint8Array([2, 0, 0x1e, 0x61, 192, 168, 1, 20, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(formatSocketAddress(v4, 0, AF_INET6)).toBe("192.168.1.20");
  });
});

const backends: UdpBackend[] = process.platform === "linux" ? ["mmsg", "dgram"] : ["dgram"];

describe.each(backends)("UdpTransport (%s)", (backend) => {
  it("delivers every datagram with its sender and sends each reply back to that socket", async () => {
    const seen = new Map<string, number>();
    // Echo each datagram back, reversed, and a second, 3-byte datagram, so a burst of replies
    // crosses the staging limits of the batched socket.
    const transport = await listen(backend, (datagram, peer) => {
      seen.set(peer.key, (seen.get(peer.key) ?? 0) + 1);
      expect(peer.transport).toBe("udp");
      expect(peer.address).toBe("127.0.0.1");
      peer.send(new Uint8Array(datagram).reverse());
      peer.send(new Uint8Array([0xee, datagram[0], datagram.length & 0xff]));
    });
    const clients = await Promise.all([clientSocket(), clientSocket(), clientSocket()]);
    const perClient = 300;
    const received = clients.map(() => [] as Buffer[]);
    clients.forEach((socket, client) => socket.on("message", (message) => received[client].push(message)));
    // Bursts of 20 per client, each answered before the next, so no loopback
    // receive buffer (≈ 208 KiB by default) can overflow and drop one.
    const burst = 20;
    for (let start = 0; start < perClient; start += burst) {
      for (let index = start; index < start + burst; index++) {
        clients.forEach((socket, client) => socket.send(datagramFor(client, index), transport.port, "127.0.0.1"));
      }
      const expected = 2 * (start + burst);
      await expect
        .poll(() => Math.min(...received.map((messages) => messages.length)), { timeout: 5000, interval: 2 })
        .toBe(expected);
    }
    for (let client = 0; client < clients.length; client++) {
      const port = clients[client].address().port;
      expect(seen.get(`udp:127.0.0.1:${port}`)).toBe(perClient);
      // Replies alternate: the echo of datagram i, then its 3-byte note.
      const echoes = received[client].filter((_, index) => index % 2 === 0);
      const acks = received[client].filter((_, index) => index % 2 === 1);
      acks.forEach((ack, index) => expect([...ack]).toEqual([0xee, client, datagramFor(client, index).length & 0xff]));
      expect(acks).toHaveLength(perClient);
      expect(echoes).toHaveLength(perClient);
      // Loopback keeps order; each echo is the reversed datagram.
      echoes.forEach((message, index) => {
        expect(Buffer.from(message).reverse()).toEqual(Buffer.from(datagramFor(client, index)));
      });
    }
  }, 20_000);

  it("passes datagrams longer than any valid one to the handler, which can reject them", async () => {
    const lengths: number[] = [];
    const transport = await listen(backend, (datagram) => {
      lengths.push(datagram.length);
    });
    const client = await clientSocket();
    for (const length of [1201, 1400, 3000]) client.send(new Uint8Array(length), transport.port, "127.0.0.1");
    client.send(new Uint8Array(10), transport.port, "127.0.0.1");
    await expect.poll(() => lengths.length, { timeout: 5000 }).toBe(4);
    expect(lengths[0]).toBe(1201);
    expect(lengths[1]).toBe(1400);
    // The batched socket's slots hold 1500 bytes: a longer datagram arrives cut there, still too long.
    expect(lengths[2]).toBe(backend === "mmsg" ? 1500 : 3000);
    expect(lengths[3]).toBe(10);
  });

  it("speaks IPv6 on ::1", async (context) => {
    if (!(await ipv6Available())) context.skip("this machine has no IPv6 loopback");
    const transport = await listen(
      backend,
      (datagram, peer) => peer.send(new Uint8Array(datagram.subarray(0, 4))),
      "::1",
    );
    const client = await clientSocket("udp6");
    const reply = new Promise<{ message: Buffer; address: string }>((resolve) =>
      client.once("message", (message, rinfo) => resolve({ message, address: rinfo.address })),
    );
    client.send(new Uint8Array([1, 2, 3, 4, 5, 6]), transport.port, "::1");
    const { message, address } = await reply;
    expect([...message]).toEqual([1, 2, 3, 4]);
    expect(address).toBe("::1");
  });

  it("frees its port on close", async () => {
    const transport = await UdpTransport.listen("127.0.0.1", 0, () => {}, { backend });
    const port = transport.port;
    await transport.close();
    const socket = dgram.createSocket("udp4");
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(port, "127.0.0.1", () => resolve());
    });
    await new Promise<void>((resolve) => socket.close(() => resolve()));
  });
});

it("refuses an unknown backend by name", async () => {
  await expect(UdpTransport.listen("127.0.0.1", 0, () => {}, { backend: "quic" as UdpBackend })).rejects.toThrow(
    /unknown UDP backend "quic"/,
  );
});
