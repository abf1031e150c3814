// The frames on the direct TCP links between cluster processes (docs/scaling.md § Links): gateway ↔
// region (clients' datagrams both ways, handoffs) and region → region (ghosts). One ordered stream per
// pair is what makes a handoff lose nothing: a region hands a session off on the same stream its
// gateway's datagrams arrive by, and the gateway forwards it on the stream to the new region ahead of
// that client's next datagram. Frame: u32 length of what follows | u8 kind | u32 client | payload.
import { createConnection, type Socket } from "node:net";

export const FRAME_HELLO = 1; // first frame of a link: JSON {role: "gateway" | "region", id}
export const FRAME_OPEN = 2; // gateway → region: a client link, JSON {address, transport}
export const FRAME_DATA = 3; // a client's datagram (gateway → region) or one for it (region → gateway)
export const FRAME_CLOSE = 4; // gateway → region: the client link closed
export const FRAME_HANDOFF = 5; // region → gateway → region: a session moving, JSON (handoff.ts; a spectator's: spectator-handoff.ts)
export const FRAME_REROUTE = 6; // region → gateway: a datagram for a session that has left, to route again; gateway → region: that datagram, routed again
export const FRAME_GHOSTS = 7; // region → region: its entities near the receiver's ground, JSON (ghosts.ts)
export const FRAME_STRIKE = 8; // region → region: a blow at one of the receiver's entities, JSON (strikes.ts)
export const FRAME_STRIKE_ANSWER = 9; // region → region: what that blow did, for the attacker, JSON (strikes.ts)
export const FRAME_DOOR_USE = 10; // region → region: a player here uses the receiver's door, JSON (door-link.ts)
export const FRAME_DOOR_ANSWER = 11; // region → region: what that player is told, JSON (door-link.ts)
export const FRAME_DOOR_TILES = 12; // region → region: its doors' cells near the receiver, JSON (door-link.ts)
export const FRAME_NPC_HANDOFF = 13; // region → region: a creature moving to the receiver, JSON (npc-link.ts)
export const FRAME_NPC_HELD = 14; // region → region: a creature of the receiver's spawns is held here now (npc-link.ts)
export const FRAME_NPC_DIED = 15; // region → region: a creature of the receiver's spawns died here (npc-link.ts)

/** kind + client. */
const HEADER_BYTES = 5;
/** A frame carries one datagram or one session or one ghost list: far below this. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

export class FrameError extends Error {}

/** Bytes a writer stages before it hands them to the socket at once (a larger frame goes alone). */
const STAGE_BYTES = 64 * 1024;

/**
 * Writes frames to a link. A frame's bytes are copied, so the caller may reuse its buffer at once.
 * Frames sent in one turn of the event loop (a tick's broadcast to a gateway's clients, a burst of
 * datagrams) are staged back to back and written to the socket together when the turn ends (a
 * microtask): one system call for many frames instead of one each. Measured by bench/link-transport.ts.
 * Nothing waits longer than the turn that sent it, and the order is the order of send.
 */
/** Where frames go: a link's writer, or nowhere (a replay of a region's recording: region-replay.ts). */
export interface FrameSink {
  send(kind: number, client: number, payload: Uint8Array): void;
  sendJson(kind: number, client: number, value: unknown): void;
}

/** A link that goes nowhere: what a replayed region sends is dropped. */
export const NOWHERE: FrameSink = { send: () => {}, sendJson: () => {} };

export class FrameWriter implements FrameSink {
  framesOut = 0;
  bytesOut = 0;
  /** Socket writes (each one a batch of frames). */
  writes = 0;
  /** Frames are staged in [start, end) of `stage`; what lies before `start` was handed to the socket. */
  private stage: Buffer = Buffer.allocUnsafe(STAGE_BYTES);
  private start = 0;
  private end = 0;
  private flushQueued = false;

  constructor(private readonly socket: Socket) {}

  send(kind: number, client: number, payload: Uint8Array): void {
    const size = 4 + HEADER_BYTES + payload.length;
    if (this.end + size > this.stage.length) {
      this.flush();
      // The socket may still hold the written part: the next frames go to a stage of their own.
      this.stage = Buffer.allocUnsafe(Math.max(STAGE_BYTES, size));
      this.start = 0;
      this.end = 0;
    }
    const stage = this.stage;
    const at = this.end;
    stage.writeUInt32LE(HEADER_BYTES + payload.length, at);
    stage[at + 4] = kind;
    stage.writeUInt32LE(client >>> 0, at + 5);
    stage.set(payload, at + 9);
    this.end = at + size;
    this.framesOut++;
    this.bytesOut += size;
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(this.flushFromQueue);
    }
  }

  sendJson(kind: number, client: number, value: unknown): void {
    this.send(kind, client, Buffer.from(JSON.stringify(value)));
  }

  /**
   * Hands what is staged to the socket (also done by itself at the end of the turn). The bytes after
   * it in the stage are not written again until they are, so the socket may keep its view of them.
   */
  flush(): void {
    if (this.end === this.start) return;
    this.socket.write(this.stage.subarray(this.start, this.end));
    this.writes++;
    this.start = this.end;
  }

  private readonly flushFromQueue = (): void => {
    this.flushQueued = false;
    this.flush();
  };
}

/**
 * Cuts a link's byte stream into frames. `push` throws FrameError on a length out of bounds (the link is
 * then closed by its owner: nothing after a broken frame can be trusted). Payloads handed to `onFrame`
 * are views of buffers never written again, so they may be kept.
 */
export class FrameReader {
  private pending: Buffer | null = null;
  framesIn = 0;

  constructor(private readonly onFrame: (kind: number, client: number, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    let buffer = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = null;
    let at = 0;
    while (buffer.length - at >= 4) {
      const length = buffer.readUInt32LE(at);
      if (length < HEADER_BYTES || length > MAX_FRAME_BYTES) throw new FrameError(`frame length ${length}`);
      if (buffer.length - at - 4 < length) break;
      const kind = buffer[at + 4];
      const client = buffer.readUInt32LE(at + 5);
      this.framesIn++;
      this.onFrame(kind, client, buffer.subarray(at + 4 + HEADER_BYTES, at + 4 + length));
      at += 4 + length;
    }
    if (at < buffer.length) {
      buffer = buffer.subarray(at);
      this.pending = buffer;
    }
  }
}

/** A JSON payload, or a FrameError naming what it was meant to be. */
export function jsonOf(payload: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(Buffer.from(payload.buffer, payload.byteOffset, payload.length).toString("utf8"));
  } catch {
    throw new FrameError(`${what}: not JSON`);
  }
}

/**
 * Dials another process's link port: on connect, a FrameWriter that has sent the HELLO naming this end
 * (`hello`), handed to `onOpen`; `onClose` once the socket is gone (also after a failed connect, whose
 * error is only that: the caller dials again on its next pass).
 */
export function dialLink(
  endpoint: { host: string; port: number },
  hello: { role: "gateway" | "region"; id: number | string },
  onOpen: (writer: FrameWriter, socket: Socket) => void,
  onClose: (socket: Socket) => void,
): void {
  const socket = createConnection({ host: endpoint.host, port: endpoint.port });
  socket.setNoDelay(true);
  socket.on("connect", () => {
    const writer = new FrameWriter(socket);
    writer.sendJson(FRAME_HELLO, 0, hello);
    onOpen(writer, socket);
  });
  socket.on("error", () => {});
  socket.on("close", () => onClose(socket));
}
