// The pieces one GameClient is built from (game-client.ts wires them). Each
// module that works on several of them (steering, upkeep, receiver, readout)
// names the ones it reaches with Pick<ClientParts, ...>, so its door says what
// it touches.
import type { WasmSim } from "../../wasm/sim.js";
import type { ChunkCache } from "./chunk-cache.js";
import type { ChunkRequester } from "./chunk-requests.js";
import type { ConnectionMonitor } from "./connection.js";
import type { EntityTable } from "./entity-table.js";
import type { ClientFeatures } from "./features.js";
import type { GridWindow } from "./grid-window.js";
import type { NameDirectory } from "./names.js";
import type { GameClientOptions } from "./options.js";
import type { Outbox } from "./outbox.js";
import type { Planner } from "./planner.js";
import type { Prediction } from "./prediction.js";
import type { Pinger, RttEstimator } from "./rtt.js";
import type { ServerClock } from "./server-clock.js";
import type { ClientCounters, TrafficMeter } from "./stats.js";

export interface ClientParts {
  readonly options: GameClientOptions;
  /** Monotonic clock in ms, the one update() is called with. */
  readonly now: () => number;
  /** The server's tick rate (WorldInfo.tickHz). */
  readonly tickHz: number;
  /** The wasm grid the cache is loaded into. */
  readonly sim: WasmSim;
  readonly chunks: ChunkCache;
  readonly grid: GridWindow;
  readonly traffic: TrafficMeter;
  readonly outbox: Outbox;
  readonly connection: ConnectionMonitor;
  readonly serverClock: ServerClock;
  readonly rtt: RttEstimator;
  readonly pinger: Pinger;
  readonly chunkRequests: ChunkRequester;
  readonly entityTable: EntityTable;
  readonly prediction: Prediction;
  readonly planner: Planner;
  readonly nameDirectory: NameDirectory;
  /** Chat, dialogs, custom messages and the interaction trigger. */
  readonly features: ClientFeatures;
  readonly counters: ClientCounters;
}
