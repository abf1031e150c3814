// Every datagram the client sends, encoded by the protocol library (never by
// hand) into a fresh array — transports may hold on to what they are given —
// and counted. Over a link that signs (a UDP transport with the session key:
// Transport.actionMac), every ActionPacket carries the authentication trailer
// (docs/protocol.md § 6.1): the next sequence number, the echo of the server's
// latest challenge, the tag.
import { ACTION_NOOP, type ActionPacket, createActionPacket, encodeAction, sealAction } from "../../protocol/action.js";
import type { ChunkEntry } from "../../protocol/chunk-id.js";
import { encodeEntityAck } from "../../protocol/entity-ack.js";
import { encodeEntityQuery } from "../../protocol/entity-query.js";
import { encodeLeave } from "../../protocol/leave.js";
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import { encodePing } from "../../protocol/ping.js";
import type { TrafficMeter } from "./stats.js";
import type { Transport } from "./transport.js";

export class Outbox {
  private readonly scratch = new Uint8Array(MAX_DATAGRAM_BYTES);
  private readonly action: ActionPacket = createActionPacket();
  /** The last sequence number sent in a trailer; sequences start at 1 for each session. */
  private sequence = 0;
  /** The server's latest challenge cookie to this address, as two u32 words (0, 0: none), echoed in every trailer. */
  private challengeLow = 0;
  private challengeHigh = 0;
  /** A challenge arrived that no ActionPacket has answered yet. */
  challengePending = false;

  constructor(
    private transport: Transport,
    private token: bigint,
    private readonly traffic: TrafficMeter,
    readonly clientType = 0,
  ) {
    this.action.clientType = clientType;
    this.action.authToken = token;
  }

  /** Switches to a new link and session (reconnect). */
  rebind(transport: Transport, token: bigint): void {
    this.transport = transport;
    this.token = token;
    this.action.authToken = token;
    this.sequence = 0;
    this.challengeLow = 0;
    this.challengeHigh = 0;
    this.challengePending = false;
  }

  /**
   * Goes on with the same session over another link (a cluster's other gateway): the sequence carries on —
   * the server's replay window remembers those sent — and the new link's address is challenged anew.
   */
  moveTo(transport: Transport): void {
    this.transport = transport;
    this.challengeLow = 0;
    this.challengeHigh = 0;
    this.challengePending = false;
  }

  /** Whether the link signs ActionPackets: a UDP link, whose source address may change under it (NAT rebinding). */
  get signs(): boolean {
    return this.transport.actionMac !== undefined;
  }

  /** A challenge Pong arrived: its cookie goes into every trailer from now on, and one is owed at once. */
  challenged(cookie: bigint): void {
    this.challengeLow = Number(cookie & 0xffffffffn);
    this.challengeHigh = Number(cookie >> 32n);
    this.challengePending = true;
  }

  /** An ActionPacket: `targetTick` 0 is a keep-alive / cache ack (then `action` must be NOOP). */
  sendAction(targetTick: number, action: number, cache: readonly ChunkEntry[]): void {
    const packet = this.action;
    packet.targetTick = targetTick;
    packet.action = targetTick === 0 ? ACTION_NOOP : action;
    for (let index = 0; index < cache.length; index++) {
      packet.cache[index].chunkId = cache[index].chunkId;
      packet.cache[index].version = cache[index].version;
    }
    let size = encodeAction(packet, this.scratch);
    const mac = this.transport.actionMac;
    if (mac !== undefined) {
      size = sealAction(this.scratch, 0, ++this.sequence, this.challengeLow, this.challengeHigh, mac);
      this.challengePending = false;
    }
    this.flush(size);
  }

  /**
   * A reporting Ping (docs/protocol.md § 12.4): with the pings sent (this one too) and the pongs received so
   * far, from which the server sees this link's loss on the way down.
   */
  sendPing(timestampMs: bigint, pingsSent: number, pongsReceived: number): void {
    const packet = {
      type: "ping" as const,
      clientType: this.clientType,
      timestampMs,
      pingsSent: pingsSent >>> 0,
      pongsReceived: pongsReceived >>> 0,
    };
    this.flush(encodePing(packet, this.scratch));
  }

  sendEntityQuery(entityId: number): void {
    const packet = { type: "entity_query" as const, clientType: this.clientType, authToken: this.token, entityId };
    this.flush(encodeEntityQuery(packet, this.scratch));
  }

  /**
   * "I hold the entity list of `tick`" (P-21): asks for, and keeps current, entity deltas — as a
   * CompactAck (P-25) when `compact`, which the server reads as a request for the compact form.
   */
  sendEntityAck(tick: number, compact = false): void {
    const type = compact ? ("compact_ack" as const) : ("entity_ack" as const);
    const packet = { type, clientType: this.clientType, authToken: this.token, tick };
    this.flush(encodeEntityAck(packet, this.scratch));
  }

  /** "This session is over" (P-26): sent as the client closes, so the server ends the session now. */
  sendLeave(): void {
    this.flush(encodeLeave({ type: "leave", clientType: this.clientType, authToken: this.token }, this.scratch));
  }

  private flush(size: number): void {
    this.traffic.sent(size);
    this.transport.send(this.scratch.slice(0, size));
  }
}
