// A real cluster for tests: `ts/cluster/main.ts --json` as its own process, run from its bundle
// (test/support/node-bundle.ts) as are the regions and gateways it starts (a private redis-server, a
// private PostgreSQL where it is installed, region processes, gateways, all on loopback and free ports),
// on the test map cut in two at chunk column 1 — region 0 owns tiles x 0…31, region 1 x 32…79 — and
// stopped with everything it started.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import pg from "pg";
import { join } from "node:path";
import { findRedisServer } from "../../ts/cluster/redis-process.js";
import type { PartHealth } from "../../ts/cluster/supervisor.js";
import { writeTestMap } from "./test-map.js";
import { pollUntil, spawnBundle, type TsxProcess } from "./tsx-process.js";

export interface ClusterReady {
  redis: string;
  /** The PostgreSQL the accounts live in; null when none could be started. */
  postgres: string | null;
  regions: { region: number; linkPort: number; httpPort: number }[];
  gateways: { id: string; httpPort: number; udpPort: number }[];
}

export interface TestCluster {
  ready: ClusterReady;
  process: TsxProcess;
  /** GET /api/cluster of region `region`. */
  regionStatus(region: number): Promise<RegionStatus>;
  /** The one region that owns entity `entityId` now (of the two first ones), or null (none, or both). */
  ownerOf(entityId: number): Promise<number | null>;
  stop(): Promise<void>;
}

export interface RegionStatus {
  region: number;
  tick: number;
  players: number;
  ghosts: number;
  handoffsOut: number;
  handoffsIn: number;
  stepsCarried: number;
  rerouted: number;
  claimConflicts: number;
  claims: number;
  redisCommands: number;
  owned: { id: number; fromMs: number }[];
  ownership: { id: number; fromMs: number; toMs: number }[];
  positions: { id: number; x: number; y: number }[];
  chatRelay: { published: number; received: number; dropped: number };
  strikes: {
    sent: number;
    unsent: number;
    resolved: number;
    refused: number;
    answered: number;
    answersDropped: number;
  };
  combat: { attacks: number; hits: number; misses: number; damage: number };
  /** The shared account store's counts (pg-accounts.ts), null without one. */
  accounts: { batches: number; rows: number; refused: number; failures: number; acquired: number; busy: number } | null;
  kicks: { asked: number; ended: number; dropped: number } | null;
  /** The shared item store's counts (pg-items.ts; null without one) and the item room's. */
  items: {
    store: { writes: number; conflicts: number; failures: number; bags: number } | null;
    room: { requests: number; done: number; refused: number; writeFailures: number; shed: number };
  };
  handoffsWaitedForItems: number;
  /** Gateway links closed (region.ts). */
  gatewayLinksLost: number;
  /** Doors across the border (door-link.ts). */
  doors?: { sent: number; unsent: number; used: number; refused: number; answered: number; cellsSet: number };
}

/**
 * What pg (8.x) prints when a statement is sent on a connection still busy with another — deprecated, gone in
 * pg@9; a cluster sends its statements one at a time (ts/cluster/pg-statements.ts), so its output never holds it.
 */
export const PG_BUSY_CLIENT_WARNING = "when the client is already executing a query";

/** The first tile column region 1 owns. */
export const BORDER_X = 32;

/** Resolves with `check`'s first truthy answer, asking every 50 ms; rejects after `timeoutMs`, naming `what`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | false | null | undefined>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The health of the cluster's part `name` (supervisor.ts), as the gateway at `gatewayHttpPort` reports it. */
export async function partHealth(gatewayHttpPort: number, name: string): Promise<PartHealth> {
  const answer = (await (await fetch(`http://127.0.0.1:${gatewayHttpPort}/api/cluster`)).json()) as {
    health: PartHealth[];
  };
  const part = answer.health.find((entry) => entry.name === name);
  if (part === undefined) throw new Error(`no part "${name}" in the cluster's health`);
  return part;
}

/** Waits until part `name` is up again in another process than `before` (started again by the launcher). */
export function startedAgain(gatewayHttpPort: number, before: PartHealth, timeoutMs = 30_000): Promise<PartHealth> {
  return until(
    `${before.name} started again`,
    async () => {
      const now = await partHealth(gatewayHttpPort, before.name);
      return now.state === "up" && now.pid !== before.pid && now;
    },
    timeoutMs,
  );
}

/** Why the cluster tests cannot run here, or null when they can. */
export function clusterSkipReason(): string | null {
  const found = findRedisServer();
  return found.path === null ? found.reason : null;
}

/** Starts a cluster on `map` (the test map by default; disposed of by stop). */
/** A client of the cluster's own PostgreSQL, connected (the tests read what the regions wrote); throws without one. */
export async function connectStore(cluster: TestCluster): Promise<pg.Client> {
  if (cluster.ready.postgres === null) throw new Error("the cluster started without PostgreSQL");
  const db = new pg.Client({ connectionString: cluster.ready.postgres });
  await db.connect();
  return db;
}

export async function startTestCluster(
  gateways = 1,
  extraArgs: string[] = [],
  map: { path: string; dispose(): void } = writeTestMap(),
  /** The regions' chunk rectangles (the test map's by default); written beside the layout's own temp dir. */
  regions: { region: number; chunks: [number, number, number, number] }[] = [
    { region: 0, chunks: [0, 0, 1, 3] },
    { region: 1, chunks: [1, 0, 3, 3] },
  ],
): Promise<TestCluster> {
  // In a directory of its own: a map given by path (maps/caves.tmj) lies in the repository.
  const layoutDir = mkdtempSync(join(tmpdir(), "caves-layout-"));
  const layoutPath = join(layoutDir, "layout.json");
  writeFileSync(layoutPath, JSON.stringify({ regions }));
  const child = spawnBundle("cluster", [
    "--layout",
    layoutPath,
    "--gateways",
    String(gateways),
    "--map",
    map.path,
    "--http-port",
    "0",
    "--udp-port",
    "0",
    "--json",
    "--log-level",
    "warn",
    // The regions record (the default), into this cluster's own folder, removed with it: not the checkout's
    // data/recordings. A test that reads them names its own folder (a later --record wins).
    "--record",
    join(layoutDir, "recordings"),
    ...extraArgs,
  ]);
  const stop = async () => {
    child.kill("SIGTERM");
    await Promise.race([child.exited, new Promise((resolve) => setTimeout(resolve, 8000))]);
    map.dispose();
    rmSync(layoutDir, { recursive: true, force: true });
  };
  try {
    await Promise.race([
      pollUntil(() => child.stdout().includes("\n"), 20),
      child.exited.then((code) => {
        throw new Error(`the cluster exited (${String(code)}): ${child.stderr()}`);
      }),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`no cluster after 60 s: ${child.stderr()}`)), 60_000),
      ),
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  const ready = JSON.parse(child.stdout().split("\n")[0]) as ClusterReady;
  const regionStatus = async (region: number): Promise<RegionStatus> => {
    const entry = ready.regions.find((r) => r.region === region)!;
    const response = await fetch(`http://127.0.0.1:${entry.httpPort}/api/cluster`);
    return (await response.json()) as RegionStatus;
  };
  return {
    ready,
    process: child,
    regionStatus,
    async ownerOf(entityId) {
      const statuses = await Promise.all([regionStatus(0), regionStatus(1)]);
      const owners = statuses.filter((s) => s.owned.some((o) => o.id === entityId)).map((s) => s.region);
      return owners.length === 1 ? owners[0] : null;
    },
    stop,
  };
}
