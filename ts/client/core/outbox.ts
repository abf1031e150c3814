// Every datagram the client sends, encoded by the protocol library (never by
// hand) into a fresh array — transports may hold on to what they are given —
// and counted.
import { ACTION_NOOP, type ActionPacket, createActionPacket, encodeAction } from "../../protocol/action.js";
import type { ChunkEntry } from "../../protocol/chunk-id.js";
import { encodeEntityQuery } from "../../protocol/entity-query.js";
import { MAX_DATAGRAM_BYTES } from "../../protocol/header.js";
import { encodePing } from "../../protocol/ping.js";
import type { TrafficMeter } from "./stats.js";
import type { Transport } from "./transport.js";

export class Outbox {
  private readonly scratch = new Uint8Array(MAX_DATAGRAM_BYTES);
  private readonly action: ActionPacket = createActionPacket();

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
    this.flush(encodeAction(packet, this.scratch));
  }

  sendPing(timestampMs: bigint): void {
    this.flush(encodePing({ type: "ping", clientType: this.clientType, timestampMs }, this.scratch));
  }

  sendEntityQuery(entityId: number): void {
    const packet = { type: "entity_query" as const, clientType: this.clientType, authToken: this.token, entityId };
    this.flush(encodeEntityQuery(packet, this.scratch));
  }

  private flush(size: number): void {
    this.traffic.sent(size);
    this.transport.send(this.scratch.slice(0, size));
  }
}
