// GameClient's tunables and their defaults, apart from the class so the parts
// it wires (steering, upkeep) can read them without importing the client.
import { ASTAR_NODE_BUDGET } from "./planner.js";
import { CHUNK_RETRANSMIT_MS } from "./chunk-requests.js";
import { DISCONNECT_AFTER_MS } from "./connection.js";
import { QUERY_MAX_TRIES, QUERY_RETRANSMIT_MS } from "./names.js";
import { INITIAL_RTT_MS } from "./rtt.js";
import { LEAD_MARGIN_MS, MAX_PENDING_STEPS } from "./scheduler.js";

export interface GameClientOptions {
  /** No StatePacket for this long: the link is considered lost. */
  disconnectAfterMs: number;
  /** Keep-alives that bind the session, sent until the first StatePacket. */
  helloIntervalMs: number;
  /**
   * While playing over a signing (UDP) link, no StatePacket for this long: hellos again (every
   * helloIntervalMs), so a session whose address changed (NAT rebinding) is moved and its new
   * address proven even when the player sends nothing else.
   */
  silenceHelloAfterMs: number;
  pingIntervalMs: number;
  initialRttMs: number;
  chunkRetransmitMs: number;
  /** Minimum gap between keep-alives that ask for lost entity updates. */
  keepAliveIntervalMs: number;
  queryRetransmitMs: number;
  queryMaxTries: number;
  /** Fixed part of the scheduling lead (scheduler.ts). */
  leadMarginMs: number;
  maxPendingSteps: number;
  astarNodeBudget: number;
  /** The wasm grid spans (2r+1)² chunks around the player's chunk. */
  gridRadiusChunks: number;
  /** Chunks farther than this (Chebyshev, in chunks) from the player's are evicted. */
  cacheRadiusChunks: number;
  clientType: number;
  /**
   * Ask for entity deltas (P-21: StateDeltaPackets against the newest list acknowledged, fewer
   * bytes and a lower State rate while nothing changes); false keeps the seed's packets.
   */
  entityDeltas: boolean;
  /**
   * With entityDeltas: ask for the compact form (P-25: CompactAck, StateDeltaCompactPackets with a
   * 33-byte head instead of 82, and a broadcast that repeats the one before it held back); false
   * asks for P-21's StateDeltaPackets.
   */
  compactDeltas: boolean;
  /** Minimum gap between EntityAckPackets. */
  entityAckIntervalMs: number;
}

export const DEFAULT_GAME_CLIENT_OPTIONS: GameClientOptions = {
  disconnectAfterMs: DISCONNECT_AFTER_MS,
  helloIntervalMs: 250,
  silenceHelloAfterMs: 2000,
  pingIntervalMs: 1000,
  initialRttMs: INITIAL_RTT_MS,
  chunkRetransmitMs: CHUNK_RETRANSMIT_MS,
  keepAliveIntervalMs: 250,
  queryRetransmitMs: QUERY_RETRANSMIT_MS,
  queryMaxTries: QUERY_MAX_TRIES,
  leadMarginMs: LEAD_MARGIN_MS,
  maxPendingSteps: MAX_PENDING_STEPS,
  astarNodeBudget: ASTAR_NODE_BUDGET,
  gridRadiusChunks: 2,
  cacheRadiusChunks: 3,
  clientType: 0,
  entityDeltas: true,
  compactDeltas: true,
  entityAckIntervalMs: 500,
};
