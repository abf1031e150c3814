// The UDP transport on real loopback sockets, through both backends: batched
// sendmmsg/recvmmsg (native/udp-mmsg), with its send thread and without, and node:dgram. Both must deliver every
// datagram with its sender, send replies to the right socket, pass oversized
// datagrams on for the protocol layer to reject, and free the port on close.
import dgram from "node:dgram";
import { SocketAddress as NodeSocketAddress } from "node:net";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  MmsgSocket,
  type SocketAddress,
  formatSocketAddress,
  socketAddress,
  udpMmsgBinding,
} from "../ts/server/transports/udp-mmsg.js";
import {
  type DatagramSink,
  type UdpBackend,
  UdpTransport,
  type UdpTransportOptions,
} from "../ts/server/transports/udp-transport.js";

const AF_INET6 = 10;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function listen(options: UdpTransportOptions, sink: DatagramSink, host = "127.0.0.1"): Promise<UdpTransport> {
  return UdpTransport.listen(host, 0, sink, options).then((transport) => {
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

/**
 * Two client sockets bound to one port, on 127.0.0.1 and on 127.0.0.2. A port
 * that something else holds on 127.0.0.2 is retried with a fresh one; a machine
 * without 127.0.0.2 (Linux routes all of 127/8 to loopback, others may not)
 * gives the reason to skip; any other bind error fails the test.
 */
async function socketsSharingAPort(): Promise<{ first: dgram.Socket; second: dgram.Socket } | { skip: string }> {
  const attempts = 5;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const first = await clientSocket();
    const second = dgram.createSocket("udp4");
    cleanups.push(() => new Promise((resolve) => second.close(() => resolve())));
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      second.once("error", resolve);
      second.bind(first.address().port, "127.0.0.2", () => resolve(null));
    });
    if (error === null) return { first, second };
    if (error.code === "EADDRNOTAVAIL") return { skip: "this machine has no 127.0.0.2 loopback address" };
    if (error.code !== "EADDRINUSE") throw error;
  }
  throw new Error(`127.0.0.2: the port of each of ${attempts} fresh 127.0.0.1 sockets was taken`);
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
    const transport = await listen({ backend: "auto" }, () => {});
    expect(transport.backend).toBe("mmsg");
    expect(transport.fallbackReason).toBe("");
    expect(transport.mmsgStats?.sendThread).toBe(true);
  });

  /** The socket address of 127.0.0.1:port as the kernel wants it (sockaddr_in: family in host order, port big-endian). */
  function loopbackAddress(port: number): SocketAddress {
    const bytes = new Uint8Array(16);
    bytes[0] = 2; // AF_INET
    bytes[2] = port >> 8;
    bytes[3] = port & 0xff;
    bytes.set([127, 0, 0, 1], 4);
    return socketAddress(bytes, 0, 16);
  }

  function threadedSocket(): MmsgSocket {
    const { binding, reason } = udpMmsgBinding();
    if (binding === null) throw new Error(reason);
    const socket = MmsgSocket.open(binding, "127.0.0.1", 0, () => {}, { sendThread: { nice: 10, pipeline: true } });
    cleanups.push(() => socket.close());
    return socket;
  }

  it.runIf(process.platform === "linux")(
    "sends a burst from its own thread, handed over in pieces, every datagram in order",
    async () => {
      const socket = threadedSocket();
      expect(socket.stats.sendThread).toBe(true);
      const clients = await Promise.all(Array.from({ length: 8 }, () => clientSocket()));
      const received = clients.map(() => [] as number[]);
      clients.forEach((client, index) => client.on("message", (message) => received[index].push(message[0])));
      // 800 datagrams staged in one turn, as a broadcast is: over three handovers of 256 and the rest at its end.
      const perClient = 100;
      for (let index = 0; index < perClient; index++) {
        clients.forEach((client, c) => {
          const datagram = new Uint8Array(20 + ((index * 7 + c) % 60)).fill(c);
          datagram[0] = index;
          socket.send(datagram, loopbackAddress(client.address().port));
        });
      }
      await expect
        .poll(() => Math.min(...received.map((got) => got.length)), { timeout: 5000, interval: 5 })
        .toBe(perClient);
      for (const got of received) expect(got).toEqual([...Array(perClient).keys()]);
      await socket.close();
      // The thread's calls are reported at the next send or at close: 13 sendmmsg calls of up to 64.
      expect(socket.stats.sendCalls).toBeGreaterThanOrEqual(Math.ceil((8 * perClient) / 64));
      expect(socket.stats.sendDropped).toBe(0);
      expect(socket.stats.sendErrors).toBe(0);
    },
  );

  it.runIf(process.platform === "linux")(
    "counts what the kernel refuses on the send thread, and goes on with the next datagram",
    async () => {
      const socket = threadedSocket();
      const client = await clientSocket();
      const got: number[] = [];
      client.on("message", (message) => got.push(message[0]));
      // More than one sendmmsg call's worth, so the burst goes to the thread (a small one is sent at once).
      socket.send(new Uint8Array([0]), loopbackAddress(0)); // port 0: EINVAL
      for (let index = 1; index < 100; index++) {
        socket.send(new Uint8Array([index]), loopbackAddress(client.address().port));
      }
      await expect.poll(() => got.length, { timeout: 5000 }).toBe(99);
      expect(got).toEqual([...Array(100).keys()].slice(1));
      await socket.close();
      expect(socket.stats.sendErrors).toBe(1);
      expect(socket.stats.lastSendErrno).toBe(22);
    },
  );

  it.runIf(process.platform === "linux")(
    "sends a small burst at once on the calling thread while the send thread is idle, in order with the rest",
    async () => {
      const socket = threadedSocket();
      const client = await clientSocket();
      const got: number[] = [];
      client.on("message", (message) => got.push(message[0]));
      const to = loopbackAddress(client.address().port);
      for (let index = 0; index < 3; index++) socket.send(new Uint8Array([index]), to);
      await Promise.resolve();
      // Sent by the flush itself: its sendmmsg call is counted now, not when the thread reports.
      expect(socket.stats.sendCalls).toBe(1);
      // A large burst goes to the thread; a small one after it waits its turn behind it.
      for (let index = 3; index < 203; index++) socket.send(new Uint8Array([index]), to);
      await Promise.resolve();
      for (let index = 203; index < 206; index++) socket.send(new Uint8Array([index]), to);
      await expect.poll(() => got.length, { timeout: 5000 }).toBe(206);
      expect(got).toEqual([...Array(206).keys()]);
    },
  );

  it.runIf(process.platform === "linux")(
    "with a receive interval, reads a stream at most once per interval, every datagram in order, and an idle socket's first at once",
    async () => {
      const { binding, reason } = udpMmsgBinding();
      if (binding === null) throw new Error(reason);
      const INTERVAL_MS = 100;
      const got: { index: number; atMs: number }[] = [];
      const socket = MmsgSocket.open(
        binding,
        "127.0.0.1",
        0,
        (datagram) => got.push({ index: datagram[0], atMs: performance.now() }),
        // Busy from the start: the interval applies at any rate (the default waits for 10,000 a second).
        { receiveIntervalMs: INTERVAL_MS, receiveBusyPerSecond: 0 },
      );
      cleanups.push(() => socket.close());
      expect(socket.receiveIntervalMs).toBe(INTERVAL_MS);
      const client = await clientSocket();
      const send = (index: number) =>
        new Promise<void>((resolve) => client.send(new Uint8Array([index]), socket.port, "127.0.0.1", () => resolve()));
      // One datagram a millisecond or so for 200 datagrams: without the interval, a read for nearly each.
      const startMs = performance.now();
      for (let index = 0; index < 200; index++) {
        await send(index);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await expect.poll(() => got.length, { timeout: 5000 }).toBe(200);
      const spanMs = got[199].atMs - startMs;
      expect(got.map((each) => each.index)).toEqual([...Array(200).keys()]);
      // At most one wake-up per interval over the stream's span (plus the first, which is read at once). A
      // wake-up reads the queue in batches of at most 64 (recvmmsg), so one that finds more than 64 waiting —
      // an interval on a loaded machine where the 1 ms sends came faster — reads twice: at most 200 / 64 more.
      expect(socket.stats.receiveBatches).toBeLessThanOrEqual(
        Math.ceil(spanMs / INTERVAL_MS) + 2 + Math.floor(200 / 64),
      );
      // Quiet for longer than the interval: the next datagram is read at once, not an interval later.
      await new Promise((resolve) => setTimeout(resolve, 3 * INTERVAL_MS));
      const sentMs = performance.now();
      await send(200);
      await expect.poll(() => got.length, { timeout: 5000, interval: 1 }).toBe(201);
      expect(got[200].atMs - sentMs).toBeLessThan(INTERVAL_MS);
      // Closing while the interval's timer is pending frees the port (both of the socket's handles close).
      await send(201);
      await socket.close();
    },
  );

  it.runIf(process.platform === "linux")(
    "with a receive interval but a stream below the busy rate, reads each datagram at once",
    async () => {
      const { binding, reason } = udpMmsgBinding();
      if (binding === null) throw new Error(reason);
      let got = 0;
      const socket = MmsgSocket.open(binding, "127.0.0.1", 0, () => got++, { receiveIntervalMs: 100 });
      cleanups.push(() => socket.close());
      const client = await clientSocket();
      // About a datagram a millisecond for 1.2 s: a second's count below the default busy rate of 10,000.
      for (let index = 0; index < 1200; index++) {
        await new Promise<void>((resolve) =>
          client.send(new Uint8Array([index & 0xff]), socket.port, "127.0.0.1", () => resolve()),
        );
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await expect.poll(() => got, { timeout: 5000 }).toBe(1200);
      // Paced, 1.2 s would take some 13 reads; unpaced, nearly one per datagram.
      expect(socket.stats.receiveBatches).toBeGreaterThan(600);
    },
  );

  it.runIf(process.platform === "linux")("refuses a receive interval outside 0–1000 ms or a negative busy rate", () => {
    const { binding, reason } = udpMmsgBinding();
    if (binding === null) throw new Error(reason);
    for (const bad of [-1, 1001, 2.5]) {
      expect(() => MmsgSocket.open(binding, "127.0.0.1", 0, () => {}, { receiveIntervalMs: bad })).toThrow(
        /receive interval/,
      );
    }
    expect(() =>
      MmsgSocket.open(binding, "127.0.0.1", 0, () => {}, { receiveIntervalMs: 2, receiveBusyPerSecond: -1 }),
    ).toThrow(/busy rate/);
  });

  it.runIf(process.platform === "linux")("refuses a send thread niceness outside 0–19", () => {
    const { binding, reason } = udpMmsgBinding();
    if (binding === null) throw new Error(reason);
    expect(() => MmsgSocket.open(binding, "127.0.0.1", 0, () => {}, { sendThread: { nice: 20 } })).toThrow(
      /nice value is 0-19/,
    );
  });

  it("formats socket addresses exactly as node:dgram (libuv) does", () => {
    const sockaddr6 = (words: number[], scope = 0) => {
      const bytes = new Uint8Array(28);
      bytes[0] = AF_INET6;
      words.forEach((value, index) => {
        bytes[8 + 2 * index] = value >> 8;
        bytes[9 + 2 * index] = value & 0xff;
      });
      new DataView(bytes.buffer).setUint32(24, scope, true);
      return bytes;
    };
    const word = fc.oneof(fc.constant(0), fc.constant(1), fc.constant(0xffff), fc.integer({ min: 0, max: 0xffff }));
    fc.assert(
      fc.property(fc.array(word, { minLength: 8, maxLength: 8 }), (words) => {
        const oracle = new NodeSocketAddress({ address: words.map((w) => w.toString(16)).join(":"), family: "ipv6" });
        expect(formatSocketAddress(sockaddr6(words), 0, AF_INET6)).toBe(oracle.address);
      }),
      { seed: 5, numRuns: 2000 },
    );
    // The edges of libuv's rules: all zero, ::1 and ::2, IPv4-mapped and -compatible, a trailing run.
    const edges = [
      [0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 1],
      [0, 0, 0, 0, 0, 0, 0, 2],
      [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304],
      [0, 0, 0, 0, 0, 0, 0x102, 0x304],
      [1, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 1, 0, 0],
    ];
    for (const words of edges) {
      const oracle = new NodeSocketAddress({ address: words.map((w) => w.toString(16)).join(":"), family: "ipv6" });
      expect(formatSocketAddress(sockaddr6(words), 0, AF_INET6)).toBe(oracle.address);
    }
    // A link-local address keeps its scope, so the same address on two interfaces is two peers.
    expect(formatSocketAddress(sockaddr6([0xfe80, 0, 0, 0, 0, 0, 0, 1], 3), 0, AF_INET6)).toBe("fe80::1%3");
    expect(formatSocketAddress(sockaddr6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1], 3), 0, AF_INET6)).toBe("2001:db8::1");
    const v4 = new Uint8Array([2, 0, 0x1e, 0x61, 192, 168, 1, 20, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(formatSocketAddress(v4, 0, AF_INET6)).toBe("192.168.1.20");
  });

  it("keeps staged datagrams in order while the kernel's send buffer is full, and counts what close drops", async () => {
    // A binding whose "kernel" takes `room` datagrams, then reports a full buffer (EAGAIN).
    const sent: number[][] = [];
    let room = 5;
    let wantWritable = false;
    let onWritable: () => void = () => {};
    const constants = { BATCH: 64, ADDR_BYTES: 28, RECV_SLOT: 1500, MSG_TRUNC: 32, AF_INET: 2, AF_INET6: 10 };
    const binding = {
      constants,
      open: () => [{}, 1234] as [object, number],
      startReceive: (...args: unknown[]) => {
        onWritable = args[6] as () => void;
      },
      wantWritable: (_handle: object, on: boolean) => {
        wantWritable = on;
      },
      close: (_handle: object, onClosed: () => void) => onClosed(),
      startSender: () => {
        throw new Error("this socket sends on its own thread");
      },
      setReceiveInterval: () => {
        throw new Error("this socket reads each datagram at once");
      },
      stopSender: () => {
        throw new Error("this socket has no send thread");
      },
      send: (_h: object, data: Uint8Array, meta: Int32Array, _a: Uint8Array, count: number, stats: Int32Array) => {
        // As native/udp-mmsg does: per-call stats reset, one sendmmsg call counted.
        stats[0] = 0;
        stats[2] = 0;
        stats[3] = 1;
        let done = 0;
        for (; done < count; done++) {
          if (room === 0) {
            stats[2] = 1;
            break;
          }
          room--;
          sent.push([...data.subarray(meta[3 * done], meta[3 * done] + meta[3 * done + 1])]);
        }
        return done;
      },
    };
    const socket = MmsgSocket.open(binding, "127.0.0.1", 0, () => {});
    const to = socketAddress(new Uint8Array(28), 0, 16);
    for (let i = 0; i < 12; i++) socket.send(new Uint8Array(1 + (i % 3)).fill(i), to);
    await Promise.resolve();
    expect(sent).toHaveLength(5);
    expect(wantWritable).toBe(true);
    for (let i = 12; i < 15; i++) socket.send(new Uint8Array(2).fill(i), to);
    await Promise.resolve();
    expect(sent).toHaveLength(5); // still waiting for writable
    room = 100;
    onWritable();
    expect(wantWritable).toBe(false);
    expect(sent.map((bytes) => bytes[0])).toEqual([...Array(15).keys()]);
    sent.forEach((bytes, i) => expect(bytes).toEqual(Array(i < 12 ? 1 + (i % 3) : 2).fill(i)));
    // Blocked again at close: the last try sends nothing, and the three staged datagrams are counted.
    room = 0;
    for (let i = 0; i < 3; i++) socket.send(new Uint8Array(1), to);
    await Promise.resolve();
    await socket.close();
    expect(socket.stats.sendDropped).toBe(3);
    // Four send calls: the first burst, the one on writable, the blocked one, and close's last try.
    expect(socket.stats.sendCalls).toBe(4);
  });
});

/** Each way UDP can move: batched with and without the send thread, and node:dgram. */
const variants: [string, UdpTransportOptions][] = [
  ...(process.platform === "linux"
    ? ([
        ["mmsg, send thread", { backend: "mmsg", sendThread: { nice: 10 } }],
        ["mmsg, sends on the event loop", { backend: "mmsg", sendThread: null }],
        ["mmsg, send thread, a receive interval", { backend: "mmsg", sendThread: { nice: 0 }, receiveIntervalMs: 2 }],
      ] as [string, UdpTransportOptions][])
    : []),
  ["dgram", { backend: "dgram" }],
];

describe.each(variants)("UdpTransport (%s)", (_name, options) => {
  const backend = options.backend;
  it("delivers every datagram with its sender and sends each reply back to that socket", async () => {
    const seen = new Map<string, number>();
    // Echo each datagram back, reversed, and a second, 3-byte datagram, so a burst of replies
    // crosses the staging limits of the batched socket.
    const transport = await listen(options, (datagram, peer) => {
      seen.set(peer.key, (seen.get(peer.key) ?? 0) + 1);
      expect(peer.transport).toBe("udp");
      expect(peer.address).toBe("127.0.0.1");
      // Where the transport has sendFrom (the batched socket), both go through it from the middle of a
      // larger buffer, as Egress.sendWritten hands over its slab: 1 … 1200 bytes cover both copy paths.
      const echo = [...datagram].reverse();
      const note = [0xee, datagram[0], datagram.length & 0xff];
      if (peer.sendFrom === undefined) {
        peer.send(new Uint8Array(echo));
        peer.send(new Uint8Array(note));
      } else {
        // From a word boundary (copied as words, then the tail) and from an odd offset (byte by byte).
        peer.sendFrom(new Uint8Array([7, 7, 7, 7, ...echo, 7]), 4, echo.length);
        peer.sendFrom(new Uint8Array([9, 9, 9, 9, 9, ...note, 9, 9]), 5, note.length);
      }
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

  it("takes a burst larger than one receive batch and answers it in full", async () => {
    let seen = 0;
    const transport = await listen(options, (datagram, peer) => {
      seen++;
      peer.send(new Uint8Array(datagram));
    });
    const client = await clientSocket();
    const replies: Buffer[] = [];
    client.on("message", (message) => replies.push(message));
    // 150 sends before yielding: the server reads them in batches of 64 and answers them in one
    // burst (150 small datagrams fit the loopback receive buffers, ≈ 208 KiB each by default).
    for (let i = 0; i < 150; i++) client.send(new Uint8Array([i, 7]), transport.port, "127.0.0.1");
    await expect.poll(() => replies.length, { timeout: 5000, interval: 5 }).toBe(150);
    expect(seen).toBe(150);
    expect(replies.map((message) => message[0])).toEqual([...Array(150).keys()]);
  });

  it("tells apart two sources that share a port on different addresses", async (context) => {
    const keys = new Set<string>();
    const transport = await listen(options, (datagram, peer) => {
      keys.add(peer.key);
      peer.send(new Uint8Array([datagram[0], peer.address === "127.0.0.2" ? 2 : 1]));
    });
    const pair = await socketsSharingAPort();
    if ("skip" in pair) return context.skip(pair.skip);
    const { first, second } = pair;
    const port = first.address().port;
    const got: number[][] = [];
    first.on("message", (message) => got.push([1, ...message]));
    second.on("message", (message) => got.push([2, ...message]));
    for (let round = 0; round < 3; round++) {
      first.send(new Uint8Array([10 + round]), transport.port, "127.0.0.1");
      second.send(new Uint8Array([20 + round]), transport.port, "127.0.0.1");
    }
    await expect.poll(() => got.length, { timeout: 5000 }).toBe(6);
    expect(keys).toEqual(new Set([`udp:127.0.0.1:${port}`, `udp:127.0.0.2:${port}`]));
    for (const [socket, first, from] of got) expect([socket, Math.floor(first / 10), from]).toEqual([from, from, from]);
  });

  it("survives a handler that closes the transport while a batch is being delivered", async () => {
    let delivered = 0;
    // Not `let closing: Promise<void> | null = null`: tsc would narrow it to null, not seeing the callback assign it.
    let closing = null as Promise<void> | null;
    const transport = await UdpTransport.listen(
      "127.0.0.1",
      0,
      () => {
        delivered++;
        closing ??= transport.close();
      },
      options,
    );
    const client = await clientSocket();
    for (let i = 0; i < 20; i++) client.send(new Uint8Array([i]), transport.port, "127.0.0.1");
    await expect.poll(() => closing !== null, { timeout: 5000 }).toBe(true);
    await closing;
    // The batched socket stops delivering at once; dgram may deliver what it already read.
    if (backend === "mmsg") expect(delivered).toBe(1);
    else expect(delivered).toBeGreaterThanOrEqual(1);
  });

  it("passes datagrams longer than any valid one to the handler, which can reject them", async () => {
    const lengths: number[] = [];
    const transport = await listen(options, (datagram) => {
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
      options,
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

  it("answers IPv4 clients of a dual-stack socket bound to ::", async (context) => {
    if (!(await ipv6Available())) context.skip("this machine has no IPv6");
    const addresses: string[] = [];
    const transport = await listen(
      options,
      (datagram, peer) => {
        addresses.push(peer.address);
        peer.send(new Uint8Array([datagram[0] + 1]));
      },
      "::",
    );
    const client = await clientSocket();
    const replies: number[] = [];
    client.on("message", (message) => replies.push(message[0]));
    for (let i = 0; i < 3; i++) client.send(new Uint8Array([i * 10]), transport.port, "127.0.0.1");
    await expect.poll(() => replies.length, { timeout: 5000 }).toBe(3);
    expect(replies).toEqual([1, 11, 21]);
    expect(addresses).toEqual(Array(3).fill("::ffff:127.0.0.1"));
  });

  it("frees its port on close", async () => {
    const transport = await UdpTransport.listen("127.0.0.1", 0, () => {}, options);
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
