// ActionPackets with the chunk-cache list: every one carries the versions held
// of the current 3×3 manifest, so each doubles as a cache acknowledgement and
// restarts the chunk retransmit timer.
import { ACTION_NOOP } from "../../protocol/action.js";
import type { ChunkEntry } from "../../protocol/chunk-id.js";
import { createStatePacket } from "../../protocol/state.js";
import type { ChunkCache } from "./chunk-cache.js";
import type { ChunkRequester } from "./chunk-requests.js";
import type { Outbox } from "./outbox.js";

/** The manifest the cache list answers (the receiver's latest StatePacket), null before the first. */
export interface ManifestSource {
  readonly manifest: readonly ChunkEntry[] | null;
}

export class ActionSender {
  private readonly cacheList: ChunkEntry[] = createStatePacket().chunks;

  constructor(
    private readonly outbox: Outbox,
    private readonly chunks: ChunkCache,
    private readonly chunkRequests: ChunkRequester,
    private readonly manifest: ManifestSource,
  ) {}

  send(targetTick: number, action: number, nowMs: number): void {
    this.chunks.fillCacheList(this.manifest.manifest, this.cacheList);
    this.outbox.sendAction(targetTick, action, this.cacheList);
    this.chunkRequests.noteListSent(nowMs);
  }

  /** target_tick 0, NOOP: binds the link, acks the cache (the server sends what is missing), asks for entities. */
  sendCacheAck(nowMs: number): void {
    this.send(0, ACTION_NOOP, nowMs);
  }
}
