// What the link needs sent besides steps, each on its own timer: hellos that
// bind the session until the first StatePacket (and again after a silence:
// the address may have changed), the echo a challenge is owed, pings for the RTT, cache acks
// that ask for missing chunks, keep-alives that ask for lost entity updates,
// and the name queries the directory has due.
import type { ActionSender, ManifestSource } from "./action-sender.js";
import { chebyshev, INTERACT_REACH_TILES, isInteractable } from "./interaction.js";
import type { ClientParts } from "./parts.js";
import type { TilePoint } from "./prediction.js";

type UpkeepParts = Pick<
  ClientParts,
  | "options"
  | "connection"
  | "outbox"
  | "pinger"
  | "chunks"
  | "chunkRequests"
  | "entityTable"
  | "nameDirectory"
  | "prediction"
  | "counters"
>;

export class LinkUpkeep {
  private lastHelloMs = -Infinity;
  private lastKeepAliveMs = -Infinity;
  private lastEntityAckMs = -Infinity;

  constructor(
    private readonly parts: UpkeepParts,
    private readonly sender: ActionSender,
    private readonly manifest: ManifestSource,
  ) {}

  /** While connecting: the server answers only a bound link, and any ActionPacket with the token binds it. */
  hello(nowMs: number): void {
    if (nowMs - this.lastHelloMs < this.parts.options.helloIntervalMs) return;
    this.lastHelloMs = nowMs;
    this.sender.sendCacheAck(nowMs);
  }

  /**
   * A challenge arrived (the server asks this address to prove it receives,
   * docs/protocol.md § 12.1): a cache ack at once carries the echo. A lost
   * echo is repaired by the next ActionPacket, which the server answers with
   * the challenge again.
   */
  answerChallenge(nowMs: number): void {
    if (this.parts.outbox.challengePending) this.sender.sendCacheAck(nowMs);
  }

  /** While playing: pings, cache acks, keep-alives and name queries that are due. */
  run(nowMs: number): void {
    const { options, outbox, pinger, chunks, chunkRequests, entityTable, nameDirectory, counters } = this.parts;
    // Only a signing (UDP) link can have its address changed under it; a silent one hellos until it hears again.
    if (outbox.signs && this.parts.connection.silentMs(nowMs) >= options.silenceHelloAfterMs) this.hello(nowMs);
    if (pinger.due(nowMs)) {
      const stamp = pinger.send(nowMs);
      outbox.sendPing(stamp, pinger.sent, pinger.answered);
    }
    const manifest = this.manifest.manifest;
    const missing = manifest ? chunks.missingCount(manifest) : 0;
    let ackSent = false;
    if (chunkRequests.due(missing, nowMs)) {
      this.sender.sendCacheAck(nowMs);
      ackSent = true;
    }
    if (entityTable.needsResend && nowMs - this.lastKeepAliveMs >= options.keepAliveIntervalMs) {
      // Any target_tick-0 ActionPacket makes the server re-send the entries, so one packet serves both.
      if (!ackSent) this.sender.sendCacheAck(nowMs);
      this.lastKeepAliveMs = nowMs;
      counters.keepAlives++;
    }
    // Entity deltas (P-21): the newest verified list, acknowledged at most every entityAckIntervalMs.
    if (options.entityDeltas && entityTable.ackDue > 0 && nowMs - this.lastEntityAckMs >= options.entityAckIntervalMs) {
      const tick = entityTable.ackDue;
      outbox.sendEntityAck(tick, options.compactDeltas);
      entityTable.acknowledged(tick);
      this.lastEntityAckMs = nowMs;
    }
    for (const id of nameDirectory.due(nowMs)) {
      if (!this.queryWouldInteract(id)) outbox.sendEntityQuery(id);
    }
  }

  /** A new session began (reconnect): hello and keep-alive at once. */
  reset(): void {
    this.lastHelloMs = -Infinity;
    this.lastKeepAliveMs = -Infinity;
    this.lastEntityAckMs = -Infinity;
  }

  /**
   * An EntityQuery for an interactable within reach of where the server may have
   * the player (the confirmed tile or any tile a pending step leads to) would
   * use it (protocol § 18): a name lookup must not open a sign's dialog.
   */
  private queryWouldInteract(entityId: number): boolean {
    const entity = this.parts.entityTable.entries.get(entityId);
    if (!entity || !isInteractable(entity)) return false;
    const prediction = this.parts.prediction;
    const confirmed = prediction.confirmed;
    const near = (tile: TilePoint) => chebyshev(tile, entity) <= INTERACT_REACH_TILES;
    return (confirmed !== null && near(confirmed)) || prediction.inFlightTiles().some(near);
  }
}
