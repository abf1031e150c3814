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
export const FRAME_HANDOFF = 5; // region → gateway → region: a session moving, JSON (handoff.ts)
export const FRAME_REROUTE = 6; // region → gateway: a datagram for a session that has left, to route again
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

/** Writes frames to a link. A frame's bytes are copied, so the caller may reuse its buffer at once. */
export class FrameWriter {
  framesOut = 0;
  bytesOut = 0;

  constructor(private readonly socket: Socket) {}

  send(kind: number, client: number, payload: Uint8Array): void {
    const frame = Buffer.allocUnsafe(4 + HEADER_BYTES + payload.length);
    frame.writeUInt32LE(HEADER_BYTES + payload.length, 0);
    frame[4] = kind;
    frame.writeUInt32LE(client >>> 0, 5);
    frame.set(payload, 9);
    this.framesOut++;
    this.bytesOut += frame.length;
    this.socket.write(frame);
  }

  sendJson(kind: number, client: number, value: unknown): void {
    this.send(kind, client, Buffer.from(JSON.stringify(value)));
  }
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
