// The bench bots' UDP sockets: one per bot (the server tells links apart by source address and sends a
// session's datagrams there, and nothing in a server → client datagram names the session, so sessions
// cannot share a socket), read and written through native/udp-mmsg where it is built, else node:dgram.
//
// Why not node:dgram alone: at 1000–2000 bots a bot process spent most of its time in dgram's per-datagram
// machinery — a Buffer and an rinfo object per datagram received, an EventEmitter emit, and a send request
// with its checks per datagram sent (docs/benchmarks.md § The bots' own cost). Through the addon every bot's
// socket sits in one epoll set: a read visits only the sockets with data, one recvmmsg each, into buffers
// all the bots share, and each bot gets a view of its datagrams, with one call into JS per read instead of
// one per socket (−16 to −20 % of the bots' CPU, measured in pairs); a send is one send(2) of the bot's own
// bytes on its connected socket, no copy and no request object. --socket-set off reads a socket at a time.
import { createSocket } from "node:dgram";
import type { UdpBackend } from "../../ts/server/transports/udp-transport.js";
import { type SocketSetBinding, hasSocketSet, udpMmsgBinding } from "../../ts/server/transports/udp-mmsg.js";

type Binding = NonNullable<ReturnType<typeof udpMmsgBinding>["binding"]>;

/** Gets each datagram from the server: a view the next datagram may overwrite (copy what must outlive the call). */
export type BotDatagramSink = (datagram: Uint8Array) => void;

export interface BotSocket {
  /** Sends one datagram to the server; the bytes may be reused as soon as this returns. */
  send(bytes: Uint8Array): void;
  close(): void;
}

export interface BotSocketFactory {
  /** Which path the sockets take, and (for dgram under "auto") why the batched one is not used. */
  readonly backend: "mmsg" | "dgram";
  readonly reason: string;
  /** With the addon: whether the sockets are read through one epoll set (SocketSetOptions) or each on its own. */
  readonly socketSet: boolean;
  /** Datagrams the kernel refused or could not take (send buffer full): dropped, as a lossy link would. */
  readonly sendFailures: () => number;
  /** A socket on 127.0.0.1 (a port of its own) that talks to the server's UDP port on 127.0.0.1. */
  open(serverPort: number, sink: BotDatagramSink): Promise<BotSocket>;
}

/** How the addon's sockets are read: through one epoll set (the default where the build has it) or each alone. */
export interface SocketSetOptions {
  /** Read every bot's socket through one epoll set: one wake-up and one call into JS per read, not per socket. */
  enabled: boolean;
  /** Read the set at most once per this many milliseconds (0: at once; see DEFAULT_SET_INTERVAL_MS). */
  intervalMs: number;
}

/**
 * The set is read at most every 10 ms by default: fewer wake-ups of the loop and more datagrams per call into
 * JS than at 2 ms, 7–9 % less CPU in two pairs (docs/benchmarks.md § The bots' own cost). A State read up to
 * 10 ms late is still well inside its 166 ms movement window, and the bots' own timer steps every 10 ms.
 */
export const DEFAULT_SET_INTERVAL_MS = 10;

/**
 * The factory for `choice`: "auto" takes the addon where it loads; "mmsg" insists on it (throws without).
 * `commonBytes`: the size of most datagrams that arrive (the bots': a StatePacket's); the batched path hands
 * those over as views made once, not one per datagram.
 */
export function botSocketFactory(
  choice: UdpBackend,
  commonBytes = 0,
  set: SocketSetOptions = { enabled: true, intervalMs: DEFAULT_SET_INTERVAL_MS },
): BotSocketFactory {
  if (choice !== "dgram") {
    const { binding, reason } = udpMmsgBinding();
    if (binding !== null && set.enabled && hasSocketSet(binding))
      return setFactory(binding, commonBytes, set.intervalMs);
    if (binding !== null) return mmsgFactory(binding, commonBytes);
    if (choice === "mmsg") throw new Error(`--udp-backend mmsg: ${reason}`);
    return dgramFactory(reason);
  }
  return dgramFactory("--udp-backend dgram");
}

function dgramFactory(reason: string): BotSocketFactory {
  let failures = 0;
  const countFailure = (error: Error | null) => {
    if (error) failures++;
  };
  return {
    backend: "dgram",
    reason,
    socketSet: false,
    sendFailures: () => failures,
    async open(serverPort, sink) {
      const socket = createSocket("udp4");
      socket.on("message", (message) => sink(new Uint8Array(message.buffer, message.byteOffset, message.length)));
      socket.on("error", () => failures++);
      await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
      // Connected: each send skips dgram's address lookup and the kernel's route lookup, and only the
      // server's datagrams are let in.
      await new Promise<void>((resolve) => socket.connect(serverPort, "127.0.0.1", () => resolve()));
      return {
        send: (bytes) => socket.send(bytes, countFailure),
        close: () => socket.close(),
      };
    },
  };
}

const STAT_SIZE = 6;

function mmsgFactory(binding: Binding, commonBytes: number): BotSocketFactory {
  const { BATCH, RECV_SLOT, ADDR_BYTES, MSG_TRUNC, AF_INET } = binding.constants;
  // One set of receive buffers for every bot: the addon fills them just before it calls the socket's
  // onReadable, which hands each datagram on before it returns, so no two sockets' batches overlap.
  const receiveData = new Uint8Array(BATCH * RECV_SLOT);
  const receiveMeta = new Int32Array(2 * BATCH);
  const receiveAddresses = new Uint8Array(BATCH * ADDR_BYTES);
  /** A view of each receive slot `commonBytes` long: most datagrams need no view of their own. */
  const commonViews = Array.from({ length: BATCH }, (_, index) =>
    receiveData.subarray(index * RECV_SLOT, index * RECV_SLOT + commonBytes),
  );
  // A send is one entry: the datagram is the whole of the bytes handed over, to the server's address.
  const sendMeta = new Int32Array(3);
  sendMeta[2] = 16; // sizeof(struct sockaddr_in)
  const sendStats = new Int32Array(STAT_SIZE);
  const serverAddresses = new Map<number, Uint8Array>();
  let failures = 0;

  /** The addon calls it with `this` the socket's record (startReceive's `self`), once per recvmmsg batch. */
  function onReadable(this: { sink: BotDatagramSink }, count: number): void {
    for (let index = 0; index < count; index++) {
      // A datagram cut at the slot size was longer than any valid one: the whole slot goes on, and the
      // protocol's decoder rejects it as too long.
      const length = (receiveMeta[2 * index + 1] & MSG_TRUNC) !== 0 ? RECV_SLOT : receiveMeta[2 * index];
      const start = index * RECV_SLOT;
      this.sink(length === commonBytes ? commonViews[index] : receiveData.subarray(start, start + length));
    }
  }

  /** sockaddr_in for 127.0.0.1:port, as the kernel reads it (family in host order, port in network order). */
  function serverAddress(port: number): Uint8Array {
    let address = serverAddresses.get(port);
    if (address === undefined) {
      address = new Uint8Array(ADDR_BYTES);
      new DataView(address.buffer).setUint16(0, AF_INET, true);
      new DataView(address.buffer).setUint16(2, port, false);
      address.set([127, 0, 0, 1], 4);
      serverAddresses.set(port, address);
    }
    return address;
  }

  return {
    backend: "mmsg",
    reason: "",
    socketSet: false,
    sendFailures: () => failures,
    async open(serverPort, sink) {
      const [handle] = binding.open(4, "127.0.0.1", 0);
      const to = serverAddress(serverPort);
      const self = { sink };
      binding.startReceive(handle, self, receiveData, receiveMeta, receiveAddresses, onReadable, () => {});
      let closed = false;
      return {
        send(bytes) {
          if (closed) return;
          sendMeta[1] = bytes.length;
          // Sent now, on this thread: a bot sends one datagram at a time, and a full send buffer (EAGAIN)
          // or a refusal loses it as a lossy link would; the protocol's resends cover it.
          if (binding.send(handle, bytes, sendMeta, to, 1, sendStats) !== 1 || sendStats[0] > 0) failures++;
        },
        close() {
          if (closed) return;
          closed = true;
          binding.close(handle, () => {});
        },
      };
    },
  };
}

/**
 * Every bot's socket in one epoll set of the addon (native/udp-mmsg/src/socket_set.c): a read visits only
 * the sockets with data and hands up to SET_SLOTS datagrams, each tagged with its socket, to one call of
 * onSetReadable, which passes each to its bot. The sockets are connected to the server, so a send names
 * no address.
 */
function setFactory(binding: Binding & SocketSetBinding, commonBytes: number, intervalMs: number): BotSocketFactory {
  const { SET_SLOTS, SET_META, RECV_SLOT, MSG_TRUNC } = binding.constants;
  const receiveData = new Uint8Array(SET_SLOTS * RECV_SLOT);
  const receiveMeta = new Int32Array(SET_META * SET_SLOTS);
  const commonViews = Array.from({ length: SET_SLOTS }, (_, index) =>
    receiveData.subarray(index * RECV_SLOT, index * RECV_SLOT + commonBytes),
  );
  /** Each open socket's sink, by its id in the set. */
  const sinks: (BotDatagramSink | undefined)[] = [];
  let failures = 0;
  let set: object | null = null;
  let open = 0;

  function onSetReadable(count: number): void {
    for (let index = 0; index < count; index++) {
      const at = SET_META * index;
      const sink = sinks[receiveMeta[at]];
      // A datagram cut at the slot size was longer than any valid one: the whole slot goes on, and the
      // protocol's decoder rejects it as too long.
      const length = (receiveMeta[at + 2] & MSG_TRUNC) !== 0 ? RECV_SLOT : receiveMeta[at + 1];
      const start = index * RECV_SLOT;
      // Closed since the read (by a sink just called): its datagrams go nowhere.
      if (sink !== undefined)
        sink(length === commonBytes ? commonViews[index] : receiveData.subarray(start, start + length));
    }
  }

  return {
    backend: "mmsg",
    reason: "",
    socketSet: true,
    sendFailures: () => failures,
    async open(serverPort, sink) {
      // Made with the first socket and closed with the last, so a process with no bots left holds no handle.
      const handle = (set ??= binding.openSet({}, receiveData, receiveMeta, onSetReadable, intervalMs));
      const [id] = binding.setOpen(handle, "127.0.0.1", "127.0.0.1", serverPort);
      sinks[id] = sink;
      open++;
      let closed = false;
      return {
        send(bytes) {
          // A full send buffer (EAGAIN) or a refusal loses the datagram as a lossy link would; the protocol's
          // resends cover it.
          if (!closed && binding.setSend(handle, id, bytes) !== 0) failures++;
        },
        close() {
          if (closed) return;
          closed = true;
          sinks[id] = undefined;
          binding.setCloseSocket(handle, id);
          if (--open === 0) {
            set = null;
            binding.closeSet(handle, () => {});
          }
        },
      };
    },
  };
}
