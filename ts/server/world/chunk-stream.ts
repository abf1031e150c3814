// Chunk streaming: what a client is told and sent of the map's chunks, and when (docs/protocol.md §§ 4,
// 7 and TileUpdatePacket). A client holds the chunks of the 3×3 neighbourhood around its player:
//  - the manifest: every StatePacket lists that neighbourhood's chunk versions (writeManifest; version 0:
//    no chunk there), so a client knows what it lacks or holds stale without asking;
//  - the cache-list answer: every ActionPacket lists the nine chunks the client holds; each chunk of the
//    neighbourhood it lacks, or holds at another version, is sent (answerCacheList) — not again within
//    CHUNK_RESEND_GUARD_MS for the same version, since the list may predate the chunk's arrival — in the
//    form the client reads (a client that did not say it reads ChunkWidePackets gets one ChunkPacket);
//  - run-time tile changes reach the sessions whose neighbourhood holds the chunk (holdsInView, used by
//    tile-updates.ts), and the version moves on, so a client that misses one converges through the two
//    paths above.
// The bytes of a chunk version are encoded once, by the world (chunk-encoding.ts).
import { CHUNK_SIZE } from "../../constants.js";
import { chunkId } from "../../protocol/chunk-id.js";
import { READS_CHUNK_WIDE } from "../../protocol/reads.js";
import { MANIFEST_ENTRIES, manifestDx, manifestDy } from "../../protocol/state.js";
import type { Egress } from "../edge/egress.js";
import type { Session } from "../sessions/session.js";
import type { World } from "./world.js";

/**
 * A chunk re-sent sooner than this after the last send is suppressed: the
 * client's cache list may simply predate the chunk's arrival. Shorter than the
 * client's 200–300 ms retransmit timeout, so a lost chunk is always re-sent.
 */
export const CHUNK_RESEND_GUARD_MS = 150;
/** Chunks a session's re-send memory holds before those sent over a second ago are forgotten. */
const SENT_MEMORY = 32;

/** What the stream reads and where it sends. */
export interface ChunkStreamPorts {
  /** Each chunk's version (0: none) and the datagrams of its current version. */
  readonly world: Pick<World, "chunkVersion" | "chunkDatagrams">;
  readonly egress: Egress;
}

export class ChunkStream {
  private readonly world: ChunkStreamPorts["world"];
  private readonly egress: Egress;

  constructor(ports: ChunkStreamPorts) {
    this.world = ports.world;
    this.egress = ports.egress;
  }

  /** The manifest around chunk (centreX, centreY): its nine chunk versions, in the StatePacket's order. */
  writeManifest(centreX: number, centreY: number, versions: Uint16Array): void {
    const world = this.world;
    for (let index = 0; index < MANIFEST_ENTRIES; index++) {
      versions[index] = world.chunkVersion(centreX + manifestDx(index), centreY + manifestDy(index));
    }
  }

  /**
   * Answers an ActionPacket's cache list (`cacheIds[i]` at `cacheVersions[i]`, MANIFEST_ENTRIES of each):
   * the datagrams (one ChunkPacket, or its ChunkWidePackets) of each chunk of the session's neighbourhood
   * it lacks or holds stale.
   */
  answerCacheList(session: Session, cacheIds: Uint32Array, cacheVersions: Uint16Array, nowMs: number): void {
    const world = this.world;
    const centreX = Math.floor(session.entity.x / CHUNK_SIZE);
    const centreY = Math.floor(session.entity.y / CHUNK_SIZE);
    for (let cy = centreY - 1; cy <= centreY + 1; cy++) {
      for (let cx = centreX - 1; cx <= centreX + 1; cx++) {
        const version = world.chunkVersion(cx, cy);
        if (version === 0) continue;
        const id = chunkId(cx, cy);
        if (holds(cacheIds, cacheVersions, id, version)) continue;
        const sent = session.chunkSentAtMs.get(id);
        if (sent && sent.version === version && nowMs - sent.atMs < CHUNK_RESEND_GUARD_MS) continue;
        session.chunkSentAtMs.set(id, { version, atMs: nowMs });
        const datagrams = world.chunkDatagrams(cx, cy, (session.reads & READS_CHUNK_WIDE) !== 0);
        for (let part = 0; part < datagrams.length; part++) this.egress.send(session, datagrams[part]);
      }
    }
    // Forget chunks far behind, so the memory stays bounded by the neighbourhood.
    if (session.chunkSentAtMs.size > SENT_MEMORY) {
      for (const [id, sent] of session.chunkSentAtMs) if (nowMs - sent.atMs > 1000) session.chunkSentAtMs.delete(id);
    }
  }
}

/** Whether a player standing at (x, y) holds chunk (cx, cy): it lies in the 3×3 neighbourhood of the player's chunk. */
export function holdsInView(x: number, y: number, cx: number, cy: number): boolean {
  return Math.abs(Math.floor(x / CHUNK_SIZE) - cx) <= 1 && Math.abs(Math.floor(y / CHUNK_SIZE) - cy) <= 1;
}

/** Whether the cache list holds chunk `id` at `version`. */
function holds(cacheIds: Uint32Array, cacheVersions: Uint16Array, id: number, version: number): boolean {
  for (let index = 0; index < MANIFEST_ENTRIES; index++) {
    if (cacheIds[index] === id && cacheVersions[index] === version) return true;
  }
  return false;
}
