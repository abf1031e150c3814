// A minimal protocol client for server tests: real UDP on loopback, built only
// on the protocol library and the HTTP API, as docs/protocol.md describes them.
// By default it speaks the spec alone (74-byte ActionPackets, no trailer);
// after sign() it tags every ActionPacket with the session key and answers
// each challenge with an echo at once, as the networking core does (§ 6.1, § 12.1).
import { createSocket, type Socket } from "node:dgram";
import { once } from "node:events";
import { type ActionPacket, createActionPacket, encodeAction, sealAction } from "../../ts/protocol/action.js";
import { nodeActionMac } from "../../ts/protocol/action-mac-node.js";
import { parseSessionKey } from "../../ts/client/core/session-api.js";
import type { ChunkEntry } from "../../ts/protocol/chunk-id.js";
import { encodeCamera } from "../../ts/protocol/camera.js";
import { encodeEntityQuery } from "../../ts/protocol/entity-query.js";
import { encodeLeave } from "../../ts/protocol/leave.js";
import { ITEM_OPS, type ItemOp, encodeItemRequest } from "../../ts/protocol/item-request.js";
import { decodePacketPlain, type Packet } from "../../ts/protocol/packet.js";
import { encodePing } from "../../ts/protocol/ping.js";
import type { StatePacket } from "../../ts/protocol/state.js";
import type { EntityEntry, EntityPacket } from "../../ts/protocol/entity.js";
import type { ChunkPacket } from "../../ts/protocol/chunk.js";

/** How much later a complete entity update's tick may be than the last one to arrive and still be taken as newer (10 s). */
const REORDER_TICKS = 240;

export interface Joined {
  token: string;
  /** The session key, 64 hex digits. */
  key?: string;
  entityId: number;
  protocolVersion: number;
  udpPort: number;
}

export async function joinGuest(httpPort: number, nick: string): Promise<Joined> {
  const response = await fetch(`http://127.0.0.1:${httpPort}/api/guest`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ nick }),
  });
  if (response.status !== 200) throw new Error(`join failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as Joined;
}

/**
 * Joins a spectator (POST /api/spectate): with `adminToken` as an admin, else as anyone; `at` the tile
 * its camera starts at. Throws with the status and body when refused.
 */
export async function joinSpectator(
  httpPort: number,
  options: { adminToken?: string; at?: { x: number; y: number } } = {},
): Promise<Joined & { spectator: true; camera: { x: number; y: number } }> {
  const response = await fetch(`http://127.0.0.1:${httpPort}/api/spectate`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(options.adminToken === undefined ? {} : { authorization: `Bearer ${options.adminToken}` }),
    },
    body: JSON.stringify(options.at ?? {}),
  });
  if (response.status !== 200) throw new Error(`spectate failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as Joined & { spectator: true; camera: { x: number; y: number } };
}

export class UdpTestClient {
  readonly socket: Socket;
  readonly received: { at: number; bytes: Uint8Array; packet: Packet | null }[] = [];
  readonly states: StatePacket[] = [];
  /** When the newest State arrived (performance.now() ms). */
  private lastStateAtMs = NaN;
  readonly entityPackets: EntityPacket[] = [];
  readonly chunks: ChunkPacket[] = [];
  /** Drop (do not record) inbound packets for which this returns true. */
  dropInbound: ((packet: Packet) => boolean) | null = null;
  token: bigint;
  /** Bytes and datagrams this socket sent, and the last datagram. */
  bytesSent = 0;
  datagramsSent = 0;
  lastSent: Uint8Array | null = null;
  /** Every challenge cookie received (challenge Pongs are also in `received`). */
  readonly challenges: bigint[] = [];
  /** After sign(): whether a challenge is answered at once with a tagged cache ack carrying the echo. */
  answerChallenges = true;
  /**
   * After sign(): ActionPackets whose sequence this returns true for are numbered but not sent — loss on the
   * way to the server, exactly as many as the test chooses.
   */
  skipSequence: ((sequence: number) => boolean) | null = null;
  private mac: ReturnType<typeof nodeActionMac> | null = null;
  private sequence = 0;
  private challenge = 0n;
  private readonly buffer = new Uint8Array(1200);

  private constructor(
    socket: Socket,
    readonly udpPort: number,
    readonly joined: Joined,
  ) {
    this.socket = socket;
    this.token = BigInt(`0x${joined.token}`);
    socket.on("message", (message) => {
      const bytes = new Uint8Array(message);
      const decoded = decodePacketPlain(bytes);
      const packet = decoded.ok ? decoded.packet : null;
      if (packet && this.dropInbound?.(packet)) return;
      if (packet?.type === "pong" && packet.challenge !== undefined) {
        this.challenges.push(packet.challenge);
        // A socket that does not answer stands for a spoofed victim: its cookie never reaches the sender.
        if (this.answerChallenges) this.challenge = packet.challenge;
        if (this.mac && this.answerChallenges) this.action(0, 0);
      }
      this.received.push({ at: performance.now(), bytes, packet });
      if (packet?.type === "state") {
        this.states.push(packet);
        this.lastStateAtMs = performance.now();
      }
      if (packet?.type === "entity") this.entityPackets.push(packet);
      if (packet?.type === "chunk") this.chunks.push(packet);
    });
  }

  static async connect(httpPort: number, nick: string): Promise<UdpTestClient> {
    const joined = await joinGuest(httpPort, nick);
    return UdpTestClient.withSession(joined);
  }

  /** A client on `joined`'s session from a fresh socket on `address` (any of 127.0.0.0/8 on Linux). */
  static async withSession(joined: Joined, address = "127.0.0.1"): Promise<UdpTestClient> {
    const socket = createSocket("udp4");
    socket.bind(0, address);
    await once(socket, "listening");
    return new UdpTestClient(socket, joined.udpPort, joined);
  }

  sendRaw(bytes: Uint8Array): void {
    this.bytesSent += bytes.length;
    this.datagramsSent++;
    this.lastSent = bytes;
    this.socket.send(bytes, this.udpPort, "127.0.0.1");
  }

  /** From now on every ActionPacket carries the authentication trailer (and challenges are answered). */
  sign(): this {
    const key = parseSessionKey(this.joined.key);
    if (!key) throw new Error("the join answer carried no session key");
    this.mac = nodeActionMac(key);
    return this;
  }

  /** The sequence of the last signed ActionPacket (0: none yet). */
  sequenceSent(): number {
    return this.sequence;
  }

  /** Carries on the signed sequence of `other` (the same client on a new socket). */
  continueFrom(other: UdpTestClient): this {
    this.sign();
    this.sequence = other.sequence;
    this.challenge = other.challenge;
    return this;
  }

  /** Bytes received on this socket, in all. */
  bytesReceived(): number {
    let total = 0;
    for (const r of this.received) total += r.bytes.length;
    return total;
  }

  action(targetTick: number, action: number, cache: ChunkEntry[] = []): void {
    const packet: ActionPacket = createActionPacket();
    packet.authToken = this.token;
    packet.targetTick = targetTick;
    packet.action = action;
    cache.slice(0, 9).forEach((entry, index) => (packet.cache[index] = { ...entry }));
    let size = encodeAction(packet, this.buffer);
    if (this.mac) {
      const cookie = this.challenge;
      size = sealAction(this.buffer, 0, ++this.sequence, Number(cookie & 0xffffffffn), Number(cookie >> 32n), this.mac);
      if (this.skipSequence?.(this.sequence)) return;
    }
    this.sendRaw(this.buffer.slice(0, size));
  }

  /** A spectator's CameraPacket (docs/protocol.md § 12.3): look at (x, y), or follow `followEntityId`. */
  camera(x: number, y: number, followEntityId = 0): void {
    const size = encodeCamera(
      { type: "camera", clientType: 0, authToken: this.token, x, y, followEntityId },
      this.buffer,
    );
    this.sendRaw(this.buffer.slice(0, size));
  }

  /** A LeavePacket (P-26): this session is over. */
  leave(): void {
    const size = encodeLeave({ type: "leave", clientType: 0, authToken: this.token }, this.buffer);
    this.sendRaw(this.buffer.slice(0, size));
  }

  ping(timestampMs = 0n): void {
    const size = encodePing({ type: "ping", clientType: 0, timestampMs }, this.buffer);
    this.sendRaw(this.buffer.slice(0, size));
  }

  query(entityId: number): void {
    const size = encodeEntityQuery(
      { type: "entity_query", clientType: 0, authToken: this.token, entityId },
      this.buffer,
    );
    this.sendRaw(this.buffer.slice(0, size));
  }

  /** Sends an ItemRequest (docs/protocol.md § Items); re-sending is the caller's (same `requestId`). */
  itemRequest(
    requestId: number,
    op: ItemOp,
    fields: { container?: number; slot?: number; toSlot?: number; count?: number } = {},
  ): void {
    const size = encodeItemRequest(
      {
        type: "item_request",
        clientType: 0,
        authToken: this.token,
        requestId,
        op: ITEM_OPS.indexOf(op),
        container: fields.container ?? 0,
        slot: fields.slot ?? 0,
        toSlot: fields.toSlot ?? 0,
        count: fields.count ?? 0,
      },
      this.buffer,
    );
    this.sendRaw(this.buffer.slice(0, size));
  }

  /** Resolves when `predicate` holds, checking every 10 ms; rejects after `timeoutMs`. */
  async waitFor<T>(what: string, predicate: () => T | undefined | null | false, timeoutMs = 3000): Promise<T> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const value = predicate();
      if (value) return value;
      if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  lastState(): StatePacket | undefined {
    return this.states[this.states.length - 1];
  }

  /**
   * The server's tick now, at the least: the newest State's tick plus the ticks of `tickHz` since it came.
   * A process the machine gave no time reads the States that came meanwhile only after its timers have run
   * (Node runs timers before it polls the sockets), so the newest State it holds may be far behind.
   */
  serverTickSinceLastState(tickHz: number): number {
    const state = this.lastState();
    if (state === undefined) return NaN;
    return state.tick + ((performance.now() - this.lastStateAtMs) * tickHz) / 1000;
  }

  /** The entities of `typeId` in the most recent complete entity update (all of them when `typeId` is omitted). */
  inView(typeId?: number): EntityEntry[] {
    const entities = (this.latestEntities()?.packets ?? []).flatMap((packet) => packet.entities);
    return typeId === undefined ? entities : entities.filter((entity) => entity.typeId === typeId);
  }

  /**
   * The entities of the most recent complete entity update (all datagrams of one tick): the last to
   * arrive, unless one of a later tick arrived before it — through a gateway, the old region's last update
   * and the new region's first can arrive in either order at a handoff, and a client keeps the newer (a
   * restarted server's ticks start again from 0, so only a tick a little later counts).
   */
  latestEntities(): { tick: number; packets: EntityPacket[] } | undefined {
    let tick = -1;
    for (let i = this.entityPackets.length - 1; i >= 0; i--) {
      if (this.entityPackets[i].more) continue;
      tick = this.entityPackets[i].tick;
      break;
    }
    if (tick < 0) return undefined;
    const last = tick;
    for (const packet of this.entityPackets) {
      if (!packet.more && packet.tick > tick && packet.tick - last <= REORDER_TICKS) tick = packet.tick;
    }
    return { tick, packets: this.entityPackets.filter((p) => p.tick === tick) };
  }

  /**
   * Binds the session with a keep-alive and waits for its own entity update, sending the keep-alive
   * again while none has come (through a gateway the first datagram may arrive before the route).
   */
  async placed(timeoutMs = 10_000): Promise<this> {
    this.action(0, 0);
    await this.waitFor(
      "its own position",
      () => {
        if (this.position() === undefined) this.action(0, 0);
        return this.position();
      },
      timeoutMs,
    );
    return this;
  }

  /** Own entity position per the latest entity update. */
  position(): { x: number; y: number } | undefined {
    const latest = this.latestEntities();
    const me = latest?.packets.flatMap((p) => p.entities).find((e) => e.id === this.joined.entityId);
    return me ? { x: me.x, y: me.y } : undefined;
  }

  private closed = false;

  /** Closes the socket (once; later calls do nothing). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.close();
  }
}
