// native/udp-mmsg's socket sets (src/socket_set.c) on real loopback sockets: many sockets in one epoll set,
// data sent to some of them, and the set must say which — every datagram handed over once, tagged with the
// socket it came to, in each socket's order, across as many calls as the slots need — while the others stay
// silent. Sends leave from each socket's own port; a closed socket's id is handed out again; a closed set
// refuses further use.
import dgram from "node:dgram";
import { afterEach, describe, expect, it } from "vitest";
import { type SocketSetBinding, hasSocketSet, udpMmsgBinding } from "../ts/server/transports/udp-mmsg.js";

const { binding, reason } = udpMmsgBinding();
const setBinding = binding !== null && hasSocketSet(binding) ? binding : null;
if (setBinding === null)
  process.stderr.write(`udp-socket-set.test.ts: skipped — ${reason || "an addon without sets"}\n`);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A node:dgram socket on 127.0.0.1 (port 0, read back) that plays the server. */
async function peer(onMessage: (message: Buffer, port: number) => void = () => {}): Promise<dgram.Socket> {
  const socket = dgram.createSocket("udp4");
  socket.on("message", (message, rinfo) => onMessage(message, rinfo.port));
  cleanups.push(() => new Promise((resolve) => socket.close(() => resolve())));
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  return socket;
}

interface Received {
  id: number;
  bytes: number[];
}

/** A set whose readable calls are recorded: each datagram (copied) with its socket id, and each call's count. */
function openSet(set: SocketSetBinding, intervalMs = 0) {
  const { SET_SLOTS, SET_META, RECV_SLOT } = set.constants;
  const data = new Uint8Array(SET_SLOTS * RECV_SLOT);
  const meta = new Int32Array(SET_SLOTS * SET_META);
  const received: Received[] = [];
  const calls: number[] = [];
  const handle = set.openSet(
    {},
    data,
    meta,
    (count) => {
      calls.push(count);
      for (let index = 0; index < count; index++) {
        const start = index * RECV_SLOT;
        received.push({
          id: meta[SET_META * index],
          bytes: [...data.subarray(start, start + meta[SET_META * index + 1])],
        });
      }
    },
    intervalMs,
  );
  let closed = false;
  const close = () =>
    closed
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          closed = true;
          set.closeSet(handle, resolve);
        });
  cleanups.push(close);
  return { handle, received, calls, close };
}

/** Waits (up to 5 s, checking every 5 ms) until `done()`; fails with `what` otherwise. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function send(socket: dgram.Socket, bytes: Uint8Array, port: number): Promise<void> {
  return new Promise((resolve, reject) =>
    socket.send(bytes, port, "127.0.0.1", (error) => (error ? reject(error) : resolve())),
  );
}

describe.skipIf(setBinding === null)("a socket set (native/udp-mmsg)", () => {
  const set = setBinding!;

  it("says which of many sockets have data, and hands each datagram over once, tagged with its socket", async () => {
    const server = await peer();
    const serverPort = server.address().port;
    const { handle, received } = openSet(set);
    const sockets = Array.from({ length: 200 }, () => set.setOpen(handle, "127.0.0.1", "127.0.0.1", serverPort));
    // Every socket a port of its own, and every id distinct.
    expect(new Set(sockets.map(([, port]) => port)).size).toBe(200);
    expect(new Set(sockets.map(([id]) => id)).size).toBe(200);
    // Data for every seventh socket only: two datagrams each, the socket's index in them.
    const chosen = sockets.filter((_socket, index) => index % 7 === 3);
    for (const [id, port] of chosen) {
      await send(server, Uint8Array.of(id & 0xff, id >> 8, 1), port);
      await send(server, Uint8Array.of(id & 0xff, id >> 8, 2, 9, 9), port);
    }
    await until(() => received.length >= 2 * chosen.length, "every datagram");
    await new Promise((resolve) => setTimeout(resolve, 50)); // nothing more may come
    expect(received).toHaveLength(2 * chosen.length);
    expect(new Set(received.map((datagram) => datagram.id))).toEqual(new Set(chosen.map(([id]) => id)));
    for (const [id] of chosen) {
      expect(received.filter((datagram) => datagram.id === id).map((datagram) => datagram.bytes)).toEqual([
        [id & 0xff, id >> 8, 1],
        [id & 0xff, id >> 8, 2, 9, 9],
      ]);
    }
  });

  it("takes as many calls as the slots need, each socket's datagrams in order", async () => {
    const server = await peer();
    const { handle, received, calls } = openSet(set);
    const sockets = Array.from({ length: 40 }, () =>
      set.setOpen(handle, "127.0.0.1", "127.0.0.1", server.address().port),
    );
    // 40 × 12 = 480 datagrams, more than one call's SET_SLOTS (256), sent before the set is read.
    const perSocket = 12;
    for (let index = 0; index < perSocket; index++)
      for (const [id, port] of sockets) await send(server, Uint8Array.of(id, index), port);
    await until(() => received.length >= sockets.length * perSocket, "every datagram");
    expect(received).toHaveLength(sockets.length * perSocket);
    expect(Math.max(...calls)).toBeLessThanOrEqual(set.constants.SET_SLOTS);
    for (const [id] of sockets) {
      const order = received.filter((datagram) => datagram.id === id).map((datagram) => datagram.bytes[1]);
      expect(order).toEqual([...Array(perSocket).keys()]);
    }
  });

  it("sends from each socket's own port, to the peer it is connected to", async () => {
    const arrived: { bytes: number[]; port: number }[] = [];
    const server = await peer((message, port) => arrived.push({ bytes: [...message], port }));
    const { handle } = openSet(set);
    const sockets = Array.from({ length: 30 }, () =>
      set.setOpen(handle, "127.0.0.1", "127.0.0.1", server.address().port),
    );
    for (const [id] of sockets) expect(set.setSend(handle, id, Uint8Array.of(id, 7))).toBe(0);
    await until(() => arrived.length >= sockets.length, "every datagram at the peer");
    const portOf = new Map(sockets.map(([id, port]) => [id, port]));
    for (const { bytes, port } of arrived) expect(port).toBe(portOf.get(bytes[0]));
  });

  it("lets a closed socket's datagrams go and its id be handed out again; a closed set refuses use", async () => {
    const server = await peer();
    const serverPort = server.address().port;
    const { handle, received, close } = openSet(set);
    const [first, firstPort] = set.setOpen(handle, "127.0.0.1", "127.0.0.1", serverPort);
    const [second, secondPort] = set.setOpen(handle, "127.0.0.1", "127.0.0.1", serverPort);
    set.setCloseSocket(handle, first);
    expect(() => set.setSend(handle, first, Uint8Array.of(1))).toThrow(/no such socket/);
    // The closed socket's port no longer reads into the set; the open one still does.
    await send(server, Uint8Array.of(1), firstPort);
    await send(server, Uint8Array.of(2), secondPort);
    await until(() => received.length >= 1, "the open socket's datagram");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toEqual([{ id: second, bytes: [2] }]);
    const [again] = set.setOpen(handle, "127.0.0.1", "127.0.0.1", serverPort);
    expect(again).toBe(first);
    await close();
    expect(() => set.setOpen(handle, "127.0.0.1", "127.0.0.1", serverPort)).toThrow(/closed/);
    expect(() => set.setSend(handle, second, Uint8Array.of(1))).toThrow(/closed/);
  });

  it("reads at most once per interval: a burst within it arrives in one call", async () => {
    const server = await peer();
    const intervalMs = 1000;
    const { handle, received, calls } = openSet(set, intervalMs);
    const sockets = Array.from({ length: 5 }, () =>
      set.setOpen(handle, "127.0.0.1", "127.0.0.1", server.address().port),
    );
    // The first datagram wakes the set at once; the interval starts with that read, so the next ones, sent
    // within it, wait for its end and come in one call.
    await send(server, Uint8Array.of(0), sockets[0][1]);
    await until(() => received.length === 1, "the first datagram");
    const firstReadMs = performance.now();
    for (const [, port] of sockets) await send(server, Uint8Array.of(1), port);
    const sentWithinMs = performance.now() - firstReadMs;
    await until(() => received.length === 1 + sockets.length, "the burst");
    // The read was at most one 5 ms poll of `until` before firstReadMs; a machine so loaded that the sends
    // took most of a second cannot show the interval, and says so instead of passing.
    expect(sentWithinMs, "the burst was sent within the interval").toBeLessThan(intervalMs - 100);
    expect(calls).toEqual([1, sockets.length]);
  });
});
