// The batched UDP socket: datagrams are staged in JS buffers and handed to the
// kernel with one sendmmsg call per burst (a broadcast, or the replies to one
// batch of received datagrams), and received with recvmmsg into fixed slots,
// one JS call per batch instead of per datagram. The native part is
// native/udp-mmsg (Linux, built by `npm install` as an optional dependency);
// where it is missing, udp-transport.ts uses node:dgram instead.
//
// Flushing happens in a microtask: after the tick that queued a broadcast and
// after each received batch, so batching adds no latency beyond the burst itself.
// With a send thread (openOptions.sendThread), a flush copies the burst to the
// socket's own thread, which makes the system calls while this one goes on: the
// kernel's share of a broadcast (on loopback the receivers' half too) no longer
// lengthens the tick (docs/udp-batching.md § The send thread).
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";

/**
 * Many sockets read through one epoll set (native/udp-mmsg/src/socket_set.c; the bench's bots): once
 * readable — at most once per intervalMs (0–1000; 0: at once) — every socket with data is read into
 * `data`'s RECV_SLOT-byte slots and onReadable(count) is called once per SET_SLOTS datagrams. Slot i came
 * from socket meta[3i], is meta[3i + 1] bytes long, with msg_flags meta[3i + 2]. A build older than the
 * set lacks these (hasSocketSet).
 */
export interface SocketSetBinding {
  openSet(
    self: object,
    data: Uint8Array,
    meta: Int32Array,
    onReadable: (count: number) => void,
    intervalMs: number,
  ): object;
  /** A socket of the set bound to host (a port of its own) and connected to the peer: [id, boundPort]. */
  setOpen(set: object, host: string, peerHost: string, peerPort: number): [number, number];
  /** Sends one datagram to the peer: 0, or the errno of one the kernel did not take (EAGAIN: buffer full). */
  setSend(set: object, id: number, data: Uint8Array): number;
  /** Closes one socket of the set (its id may be handed out again). */
  setCloseSocket(set: object, id: number): void;
  /** Closes every socket of the set; onClosed once the set's descriptor is released. */
  closeSet(set: object, onClosed: () => void): void;
  constants: {
    /** Datagrams per onReadable call, and the slots the receive buffers must hold. */
    SET_SLOTS: number;
    /** Int32s per slot in meta: socket id, length, msg_flags. */
    SET_META: number;
    RECV_SLOT: number;
    MSG_TRUNC: number;
  };
}

/** Whether this build of the addon has socket sets. */
export function hasSocketSet<B extends object>(binding: B): binding is B & SocketSetBinding {
  return typeof (binding as Partial<SocketSetBinding>).openSet === "function";
}

interface Binding extends Partial<Omit<SocketSetBinding, "constants">> {
  open(family: 4 | 6, host: string, port: number): [object, number];
  startReceive(
    handle: object,
    self: object,
    data: Uint8Array,
    meta: Int32Array,
    addresses: Uint8Array,
    onReadable: (count: number) => void,
    onWritable: () => void,
  ): void;
  wantWritable(handle: object, on: boolean): void;
  send(
    handle: object,
    data: Uint8Array,
    meta: Int32Array,
    addresses: Uint8Array,
    count: number,
    stats: Int32Array,
  ): number;
  close(handle: object, onClosed: () => void): void;
  /** From now on `send` queues copies for a thread of the socket's own, of this niceness (0–19). */
  startSender(handle: object, nice: number): void;
  /** While ≥ busyPerSecond datagrams a second arrive, reads at most once per `ms` ms (0–1000; 0: at once). */
  setReceiveInterval(handle: object, ms: number, busyPerSecond: number): void;
  /** Sends what the thread holds, joins it, and reports its counters since the last `send` in stats. */
  stopSender(handle: object, stats: Int32Array): void;
  constants: {
    BATCH: number;
    ADDR_BYTES: number;
    RECV_SLOT: number;
    MSG_TRUNC: number;
    AF_INET: number;
    AF_INET6: number;
  };
}

const BINDING_PATH = "../../../native/udp-mmsg/build/Release/udp_mmsg.node";

let loaded: { binding: Binding | null; reason: string } | undefined;

/** The native binding, or null with the reason it is unavailable (not Linux, not built). */
export function udpMmsgBinding(): { binding: Binding | null; reason: string } {
  if (loaded) return loaded;
  if (process.platform !== "linux") {
    loaded = { binding: null, reason: `sendmmsg/recvmmsg are Linux system calls (this is ${process.platform})` };
    return loaded;
  }
  try {
    loaded = { binding: createRequire(import.meta.url)(BINDING_PATH) as Binding, reason: "" };
  } catch (error) {
    loaded = {
      binding: null,
      reason: `native/udp-mmsg is not built (npm install builds it; it needs a C compiler, make and Node's headers): ${(error as Error).message.split("\n")[0]}`,
    };
  }
  return loaded;
}

/**
 * Datagrams staged before a flush is forced: a whole broadcast of 5000 players (2500 States and their
 * EntityPackets each tick) fits, so a send thread that shares the tick's core is woken once per tick,
 * after it (each wake-up mid-tick let the thread take the core from the tick: p50 13.9 → 9.6 ms at 5000).
 */
const SEND_ENTRIES = 8192;
/** Bytes of staged datagrams: 14,500 StatePackets, or 870 full EntityPackets. */
const SEND_BYTES = 1024 * 1024;

/** Datagrams up to this size are copied word by word into the staging area (see sendFrom). */
const SMALL_COPY_BYTES = 256;

const STAT_ERRORS = 0;
const STAT_LAST_ERRNO = 1;
const STAT_WOULD_BLOCK = 2;
const STAT_CALLS = 3;
const STAT_DROPPED = 4;
const STAT_WAITED_US = 5;
const STAT_SIZE = 6;

/**
 * With a send thread that pipelines, a burst is handed over every this many datagrams (not only at its
 * end), so the thread starts on a broadcast while the rest of it is encoded.
 */
const THREAD_HANDOVER_ENTRIES = 256;

/**
 * Datagrams a second from which a receive interval applies (passed to native/udp-mmsg with it): about 1400
 * wandering players. At 500 (3,500 a second) a fixed 2 ms interval raised the server's CPU; at 2500 and 5000
 * it cut it by 8-13 % (docs/udp-batching.md § Receiving at an interval).
 */
export const RECEIVE_BUSY_PER_SECOND = 10_000;

/** How the socket sends. */
export interface MmsgOpenOptions {
  /**
   * Make the sendmmsg calls on a thread of the socket's own, at this niceness (0–19; the server's default
   * is 0, since a thread below the tick's priority fell behind where the two share a busy core:
   * docs/udp-batching.md § The send thread); absent: on the calling thread, at each flush.
   */
  sendThread?: {
    nice: number;
    /**
     * Hand a burst over every THREAD_HANDOVER_ENTRIES datagrams, so the thread sends while the rest is
     * encoded — worth it only where the thread has a core to run on meanwhile: on the tick's own core
     * each handover wakes the thread, which then takes the core from the tick. Default: whether this
     * process may run on more than one CPU (os.availableParallelism(), which honours its affinity).
     */
    pipeline?: boolean;
  };
  /**
   * Read at most once per this many milliseconds (0–1000; default 0, every readable event at once). Datagrams
   * that arrive within the interval after a read wait for its end (at most that long) and are read together:
   * under load one wake-up of the event loop per interval instead of one per few datagrams
   * (docs/udp-batching.md § Receiving at an interval). It applies only while the socket is busy (below);
   * an idle socket's first datagram is read at once.
   */
  receiveIntervalMs?: number;
  /**
   * The interval applies while at least this many datagrams a second arrive (over the last second; default
   * RECEIVE_BUSY_PER_SECOND; 0: always). Below it a pause per read cost more than the wake-ups it saved.
   */
  receiveBusyPerSecond?: number;
}

/** A destination as the kernel wants it: sockaddr_in (16 bytes) or sockaddr_in6 (28). */
export interface SocketAddress {
  /** 28 bytes, of which the first `length` count; a view of `words`. */
  readonly bytes: Uint8Array;
  readonly length: number;
  /** The same 28 bytes as 7 int32 words: a staged datagram's address is copied as 4 or 7 of them. */
  readonly words: Int32Array;
}

/** The socket address at `source[offset .. offset + length)` (length 16 or 28), in memory of its own. */
export function socketAddress(source: Uint8Array, offset: number, length: number): SocketAddress {
  const words = new Int32Array(7);
  const bytes = new Uint8Array(words.buffer);
  bytes.set(source.subarray(offset, offset + length));
  return { bytes, length, words };
}

export interface MmsgStats {
  /** sendmmsg calls made (each sends up to 64 datagrams). */
  sendCalls: number;
  /** Datagrams the kernel refused on their own (unreachable, too large), with the last errno. */
  sendErrors: number;
  lastSendErrno: number;
  /**
   * Datagrams dropped: the send buffer stayed full for longer than the staging area could absorb, or (with
   * a send thread) longer than its queue of 16 MiB could, or was full at close.
   */
  sendDropped: number;
  /** Whether a thread of the socket's own makes the sendmmsg calls (sendCalls and sendErrors are its, as it reports them). */
  sendThread: boolean;
  /**
   * Milliseconds the event loop waited at a hand-over for the send thread to take the burst before (at most
   * 5 ms each): the thread had fallen behind (docs/udp-batching.md § The send thread).
   */
  sendWaitMs: number;
  /** recvmmsg batches delivered (each up to 64 datagrams). */
  receiveBatches: number;
}

/**
 * `onDatagram` gets a view of the receive slot and the sender's socket address
 * (in `addresses` at `addressOffset`); both are overwritten by the next batch,
 * so copy what must outlive the call.
 */
export type MmsgDatagramSink = (datagram: Uint8Array, addresses: Uint8Array, addressOffset: number) => void;

export class MmsgSocket {
  readonly stats: MmsgStats = {
    sendCalls: 0,
    sendErrors: 0,
    lastSendErrno: 0,
    sendDropped: 0,
    sendThread: false,
    sendWaitMs: 0,
    receiveBatches: 0,
  };
  private readonly constants: Binding["constants"];
  private readonly sendData = new Uint8Array(SEND_BYTES);
  /** sendData as int32 words: every staged datagram starts on a word, and most are copied as words. */
  private readonly sendWords = new Int32Array(this.sendData.buffer);
  private readonly sendMeta = new Int32Array(3 * SEND_ENTRIES);
  private readonly sendAddresses: Uint8Array;
  /** sendAddresses as int32 words, 7 per entry. */
  private readonly sendAddressWords: Int32Array;
  /** The last source buffer sendFrom copied from, as int32 words (most calls hand over the same outbound slab). */
  private sourceBuffer: ArrayBufferLike | null = null;
  private sourceWords: Int32Array<ArrayBufferLike> = new Int32Array(0);
  /** Written by each send call: see STAT_* (native/udp-mmsg resets them per call). */
  private readonly sendStats = new Int32Array(STAT_SIZE);
  /** Staged datagrams that make a flush at once: the staging area's size, or with a send thread a handover. */
  private flushAtEntries = SEND_ENTRIES;
  private sendCount = 0;
  private sendBytes = 0;
  private flushQueued = false;
  /** The kernel's send buffer was full: wait for writable instead of retrying. */
  private blocked = false;
  private readonly receiveData: Uint8Array;
  private readonly receiveMeta: Int32Array;
  private readonly receiveAddresses: Uint8Array;
  private closed = false;
  /** The receive interval in force (MmsgOpenOptions.receiveIntervalMs). */
  receiveIntervalMs = 0;

  private constructor(
    private readonly binding: Binding,
    private readonly handle: object,
    readonly port: number,
    private readonly sink: MmsgDatagramSink,
  ) {
    const c = binding.constants;
    if (c.ADDR_BYTES !== 28) throw new Error(`udp-mmsg: socket-address slots of ${c.ADDR_BYTES} bytes, expected 28`);
    this.constants = c;
    this.sendAddresses = new Uint8Array(c.ADDR_BYTES * SEND_ENTRIES);
    this.sendAddressWords = new Int32Array(this.sendAddresses.buffer);
    this.receiveData = new Uint8Array(c.BATCH * c.RECV_SLOT);
    this.receiveMeta = new Int32Array(2 * c.BATCH);
    this.receiveAddresses = new Uint8Array(c.BATCH * c.ADDR_BYTES);
  }

  /** Binds host (an IP literal) and port (0 picks one); throws like dgram's bind on failure. */
  static open(
    binding: Binding,
    host: string,
    port: number,
    sink: MmsgDatagramSink,
    options: MmsgOpenOptions = {},
  ): MmsgSocket {
    const interval = options.receiveIntervalMs ?? 0;
    if (!Number.isInteger(interval) || interval < 0 || interval > 1000) {
      throw new RangeError(`udp-mmsg: a receive interval is a whole number of milliseconds 0-1000, got ${interval}`);
    }
    const busyRate = options.receiveBusyPerSecond ?? RECEIVE_BUSY_PER_SECOND;
    if (!Number.isInteger(busyRate) || busyRate < 0 || busyRate > 0x7fffffff) {
      throw new RangeError(`udp-mmsg: a busy rate is a whole number of datagrams a second, got ${busyRate}`);
    }
    const [handle, boundPort] = binding.open(host.includes(":") ? 6 : 4, host, port);
    const socket = new MmsgSocket(binding, handle, boundPort, sink);
    if (interval > 0) binding.setReceiveInterval(handle, interval, busyRate);
    socket.receiveIntervalMs = interval;
    if (options.sendThread !== undefined) {
      try {
        binding.startSender(handle, options.sendThread.nice);
      } catch (error) {
        binding.close(handle, () => {});
        throw error;
      }
      socket.stats.sendThread = true;
      const pipeline = options.sendThread.pipeline ?? availableParallelism() > 1;
      if (pipeline) socket.flushAtEntries = THREAD_HANDOVER_ENTRIES;
    }
    binding.startReceive(
      handle,
      socket,
      socket.receiveData,
      socket.receiveMeta,
      socket.receiveAddresses,
      socket.onReadable,
      socket.onWritable,
    );
    return socket;
  }

  /** Stages one datagram to `to`; it is sent at the end of the current burst. */
  send(datagram: Uint8Array, to: SocketAddress): void {
    this.sendFrom(datagram, 0, datagram.length, to);
  }

  /**
   * Stages `bytes[start .. start + length)` as one datagram to `to`, copied now: the caller's bytes
   * need no view of their own (Egress.sendWritten hands over the outbound slab this way).
   */
  sendFrom(bytes: Uint8Array, start: number, length: number, to: SocketAddress): void {
    if (this.closed) return;
    if (this.sendCount >= this.flushAtEntries || alignedEnd(this.sendBytes, length) > SEND_BYTES) {
      this.flush();
      if (this.sendCount === SEND_ENTRIES || alignedEnd(this.sendBytes, length) > SEND_BYTES) {
        this.stats.sendDropped++;
        return;
      }
    }
    const entry = this.sendCount++;
    const at = (this.sendBytes + 3) & ~3;
    const data = this.sendData;
    const from = bytes.byteOffset + start;
    if (length > SMALL_COPY_BYTES) {
      data.set(bytes.subarray(start, start + length), at);
    } else if ((from & 3) === 0) {
      // Most datagrams are States of 72 bytes from the word-aligned outbound slab: 18 word copies
      // (a TypedArray#set would need a view per call, and bytes one by one take four times as long).
      if (bytes.buffer !== this.sourceBuffer) {
        this.sourceBuffer = bytes.buffer;
        this.sourceWords = new Int32Array(bytes.buffer, 0, bytes.buffer.byteLength >> 2);
      }
      const words = this.sourceWords;
      const out = this.sendWords;
      const wordAt = at >> 2;
      const wordFrom = from >> 2;
      const wordCount = length >> 2;
      for (let word = 0; word < wordCount; word++) out[wordAt + word] = words[wordFrom + word];
      for (let byte = wordCount << 2; byte < length; byte++) data[at + byte] = bytes[start + byte];
    } else {
      for (let byte = 0; byte < length; byte++) data[at + byte] = bytes[start + byte];
    }
    const meta = this.sendMeta;
    meta[3 * entry] = at;
    meta[3 * entry + 1] = length;
    meta[3 * entry + 2] = to.length;
    const addressWords = this.sendAddressWords;
    const wordAt = entry * 7;
    const address = to.words;
    addressWords[wordAt] = address[0];
    addressWords[wordAt + 1] = address[1];
    addressWords[wordAt + 2] = address[2];
    addressWords[wordAt + 3] = address[3];
    if (to.length > 16) {
      addressWords[wordAt + 4] = address[4];
      addressWords[wordAt + 5] = address[5];
      addressWords[wordAt + 6] = address[6];
    }
    this.sendBytes = at + length;
    if (!this.flushQueued && !this.blocked) {
      this.flushQueued = true;
      queueMicrotask(this.flushFromQueue);
    }
  }

  /** Sends everything staged (unless the kernel's buffer is full: then when it drains). */
  flush(): void {
    if (this.closed || this.blocked || this.sendCount === 0) return;
    const stats = this.sendStats;
    const count = this.sendCount;
    const consumed = this.binding.send(this.handle, this.sendData, this.sendMeta, this.sendAddresses, count, stats);
    this.countSendStats();
    if (consumed === count) {
      this.sendCount = 0;
      this.sendBytes = 0;
      return;
    }
    // The send buffer is full: keep the rest, in order, and go on when it drains.
    this.keepFrom(consumed);
    if (stats[STAT_WOULD_BLOCK] === 1) {
      this.blocked = true;
      this.binding.wantWritable(this.handle, true);
    }
  }

  /**
   * Sends what is staged, then closes; resolves once the port is free again.
   * What the kernel cannot take now (its send buffer full) is dropped and counted.
   */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.blocked = false; // one last try, even while waiting for writable
    this.flush();
    if (this.stats.sendThread) {
      this.binding.stopSender(this.handle, this.sendStats);
      this.countSendStats();
    }
    this.stats.sendDropped += this.sendCount;
    this.sendCount = 0;
    this.sendBytes = 0;
    this.closed = true;
    return new Promise((resolve) => this.binding.close(this.handle, resolve));
  }

  /** Adds what the last send (or stopSender) reported to the socket's counters. */
  private countSendStats(): void {
    const stats = this.sendStats;
    this.stats.sendCalls += stats[STAT_CALLS];
    this.stats.sendDropped += stats[STAT_DROPPED];
    this.stats.sendWaitMs += stats[STAT_WAITED_US] / 1000;
    if (stats[STAT_ERRORS] > 0) {
      this.stats.sendErrors += stats[STAT_ERRORS];
      this.stats.lastSendErrno = stats[STAT_LAST_ERRNO];
    }
  }

  private readonly flushFromQueue = (): void => {
    this.flushQueued = false;
    this.flush();
  };

  private readonly onWritable = (): void => {
    this.blocked = false;
    this.binding.wantWritable(this.handle, false);
    this.flush();
  };

  private readonly onReadable = (count: number): void => {
    this.stats.receiveBatches++;
    const { RECV_SLOT, ADDR_BYTES, MSG_TRUNC } = this.constants;
    const meta = this.receiveMeta;
    for (let index = 0; index < count && !this.closed; index++) {
      // A datagram cut at the slot size was longer than any valid one; the
      // whole slot goes on, so the protocol layer rejects it as too long.
      const length = (meta[2 * index + 1] & MSG_TRUNC) !== 0 ? RECV_SLOT : meta[2 * index];
      const start = index * RECV_SLOT;
      this.sink(this.receiveData.subarray(start, start + length), this.receiveAddresses, index * ADDR_BYTES);
    }
  };

  private keepFrom(first: number): void {
    const meta = this.sendMeta;
    const byteStart = meta[3 * first];
    this.sendData.copyWithin(0, byteStart, this.sendBytes);
    meta.copyWithin(0, 3 * first, 3 * this.sendCount);
    const ADDR_BYTES = this.constants.ADDR_BYTES;
    this.sendAddresses.copyWithin(0, first * ADDR_BYTES, this.sendCount * ADDR_BYTES);
    this.sendCount -= first;
    this.sendBytes -= byteStart;
    for (let entry = 0; entry < this.sendCount; entry++) meta[3 * entry] -= byteStart;
  }
}

/** Where a datagram of `length` bytes staged after `used` bytes ends: each starts on a 4-byte word. */
function alignedEnd(used: number, length: number): number {
  return ((used + 3) & ~3) + length;
}

/** Reads the family of the socket address at `offset` (host byte order, as the kernel wrote it). */
export function addressFamily(addresses: Uint8Array, offset: number): number {
  return addresses[offset] | (addresses[offset + 1] << 8);
}

/**
 * The IP literal of a sockaddr_in / sockaddr_in6 as node:dgram reports it
 * (libuv's inet_ntop: RFC 5952 zero compression; IPv4-mapped and
 * IPv4-compatible addresses end in a dotted quad), with a link-local
 * address's scope as a number ("fe80::1%2"; dgram would name the interface),
 * so one address on two interfaces stays two peers.
 */
export function formatSocketAddress(addresses: Uint8Array, offset: number, inet6: number): string {
  if (addressFamily(addresses, offset) !== inet6) {
    return `${addresses[offset + 4]}.${addresses[offset + 5]}.${addresses[offset + 6]}.${addresses[offset + 7]}`;
  }
  const words: number[] = [];
  for (let word = 0; word < 8; word++) {
    words.push((addresses[offset + 8 + 2 * word] << 8) | addresses[offset + 9 + 2 * word]);
  }
  // The longest run of two or more zero words (the first of equals) becomes "::".
  let bestStart = -1;
  let bestLength = 0;
  for (let start = 0; start < 8;) {
    if (words[start] !== 0) {
      start++;
      continue;
    }
    let end = start;
    while (end < 8 && words[end] === 0) end++;
    if (end - start > bestLength) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end;
  }
  if (bestLength < 2) bestStart = -1;
  const quad = `${addresses[offset + 20]}.${addresses[offset + 21]}.${addresses[offset + 22]}.${addresses[offset + 23]}`;
  let text: string;
  if (bestStart === 0 && bestLength === 6) {
    text = `::${quad}`; // IPv4-compatible: ::a.b.c.d
  } else if (bestStart === 0 && bestLength === 5 && words[5] === 0xffff) {
    text = `::ffff:${quad}`; // IPv4-mapped
  } else if (bestStart < 0) {
    text = words.map((word) => word.toString(16)).join(":");
  } else {
    const head = words.slice(0, bestStart).map((word) => word.toString(16));
    const tail = words.slice(bestStart + bestLength).map((word) => word.toString(16));
    text = `${head.join(":")}::${tail.join(":")}`;
  }
  const scope =
    (addresses[offset + 24] |
      (addresses[offset + 25] << 8) |
      (addresses[offset + 26] << 16) |
      (addresses[offset + 27] << 24)) >>>
    0;
  const linkLocal = (words[0] & 0xffc0) === 0xfe80;
  return linkLocal && scope !== 0 ? `${text}%${scope}` : text;
}
