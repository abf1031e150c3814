// `npm run -s cluster -- --regions 4 --gateways 2`: one world served by several processes on this
// machine (docs/scaling.md). It starts a private redis-server (or uses --redis URL) and a private
// PostgreSQL for the accounts (or uses --postgres URL), writes the layout
// to the directory, starts the region processes and the gateways as children of its own, restarts a
// region that dies (the small supervisor the issue asks for), and prints where to play. The same file
// runs the children: --role region | gateway.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CHUNK_SIZE } from "../constants.js";
import { checkAdminToken } from "../server/http/admin-routes.js";
import { isLogLevel, Logger } from "../server/ops/log.js";
import { DEFAULT_GAME_OPTIONS } from "../server/game-options.js";
import { DEFAULT_HTTP_LIMITS } from "../server/http/http-guard.js";
import { DEFAULT_CLIENT_DIR } from "../server/server.js";
import { readWorldMap } from "../server/world/world-map.js";
import { Directory } from "./directory.js";
import { startGateway } from "./gateway.js";
import { type ClusterLayout, gridLayout, layoutJson, LayoutError, parseLayout, readLayout } from "./layout.js";
import { type PostgresProcess, postgresSkipReason, startPostgres } from "./postgres-process.js";
import { startRedis } from "./redis-process.js";
import { startRegion } from "./region.js";

const DEFAULT_MAP = fileURLToPath(new URL("../../maps/caves.tmj", import.meta.url));
const SELF = fileURLToPath(import.meta.url);

const HELP = `Forgotten Caves as a cluster: regions and gateways on this machine (docs/scaling.md)

usage: npm run -s cluster -- [options]

  --regions N          region processes; the map is cut into N near-square rectangles (default 4)
  --gateways N         gateway processes, each with its own HTTP and UDP port (default 2)
  --layout FILE        a layout file instead: {"regions": [{"region": 0, "chunks": [cx0, cy0, cx1, cy1]}, ...]}
  --redis URL          use this Redis instead of starting a private redis-server
  --postgres URL       keep accounts in this PostgreSQL (postgres://user@host:port/db); without it a private
                       PostgreSQL is started in a temporary directory (accounts last as long as the cluster),
                       or, where PostgreSQL is not installed, accounts live in region 0 and stay there
  --map PATH           the map (default maps/caves.tmj)
  --host ADDRESS       address every process binds (default 127.0.0.1)
  --http-port PORT     the first gateway's HTTP port, the next ones count up (default 8080; 0: free ports)
  --udp-port PORT      the first gateway's UDP port, the next ones count up (default 7777; 0: free ports)
  --client-dir PATH    the built browser client the gateways serve (default dist/client)
  --pvp                players may attack each other outside the map's safe zones, across borders too
  --max-players N      sessions one region holds at most, joins beyond refused (default ${DEFAULT_GAME_OPTIONS.maxPlayers})
  --join-rate N        guest joins per minute per source address, kept by each gateway (default 60)
  --admin-token-file F serve the admin API at the gateways (/api/admin/*: players, kick, mute, announce, log;
                       docs/server.md § Admin) to requests bearing the token in file F (at least 32
                       characters); or the environment's CAVES_ADMIN_TOKEN. Bans are not served by a cluster yet
  --log-level LEVEL    debug | info | warn | error | silent (default warn)
  --json               print one JSON line with every port once all are up (for tests and scripts)
  -h, --help           this text
`;

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n\n${HELP}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    role: { type: "string" },
    region: { type: "string" },
    id: { type: "string" },
    regions: { type: "string", default: "4" },
    gateways: { type: "string", default: "2" },
    layout: { type: "string" },
    "layout-json": { type: "string" },
    redis: { type: "string" },
    postgres: { type: "string" },
    map: { type: "string", default: DEFAULT_MAP },
    host: { type: "string", default: "127.0.0.1" },
    "http-port": { type: "string", default: "8080" },
    "udp-port": { type: "string", default: "7777" },
    "client-dir": { type: "string", default: DEFAULT_CLIENT_DIR },
    "log-level": { type: "string", default: "warn" },
    json: { type: "boolean", default: false },
    pvp: { type: "boolean", default: false },
    "max-players": { type: "string", default: String(DEFAULT_GAME_OPTIONS.maxPlayers) },
    "join-rate": { type: "string", default: String(DEFAULT_HTTP_LIMITS.guestJoinsPerAddress) },
    "admin-token-file": { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
  strict: true,
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const level = values["log-level"];
if (!isLogLevel(level)) fail(`--log-level must be debug, info, warn, error or silent, got "${level}"`);
const logger = new Logger(level);

function count(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64) fail(`--${name} must be an integer 1..64, got "${value}"`);
  return n;
}
/** --max-players: each region's session limit (a join lands in region 0 first, then moves on). */
function maxPlayers(): number {
  const n = Number(values["max-players"]);
  if (!Number.isInteger(n) || n < 1 || n > 100_000) {
    fail(`--max-players must be an integer 1..100000, got "${values["max-players"]}"`);
  }
  return n;
}
function port(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) fail(`--${name} must be a port number 0..65535, got "${value}"`);
  return n;
}

async function runRegion(): Promise<void> {
  const region = Number(values.region);
  const map = readWorldMap(values.map);
  const layout = parseLayout(values["layout-json"] ?? fail("--layout-json is required"), ...chunksOf(map));
  if (!Number.isInteger(region) || region < 0 || region >= layout.regionCount) fail(`--region ${values.region}`);
  const running = await startRegion({
    region,
    layout,
    redisUrl: values.redis ?? fail("--redis is required"),
    mapPath: values.map,
    host: values.host,
    linkPort: 0,
    httpPort: 0,
    game: { pvp: values.pvp, maxPlayers: maxPlayers() },
    logger,
    postgresUrl: values.postgres,
    // Checked by the launcher, which set it.
    adminToken: process.env.CAVES_ADMIN_TOKEN,
    // The leases went with the connection: exit, and the supervisor starts this region again.
    onStoreLost: () => process.exit(1),
  });
  process.stdout.write(
    `${JSON.stringify({ ready: "region", region, linkPort: running.linkPort, httpPort: running.httpPort })}\n`,
  );
  const stop = () => void running.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  exitWithParent(stop);
}

async function runGateway(): Promise<void> {
  const running = await startGateway({
    id: values.id ?? fail("--id is required"),
    host: values.host,
    httpPort: port("http-port", values["http-port"]),
    udpPort: port("udp-port", values["udp-port"]),
    redisUrl: values.redis ?? fail("--redis is required"),
    regionCount: count("regions", values.regions),
    clientDir: values["client-dir"],
    guestJoinsPerAddress: joinRate(),
    logger,
  });
  process.stdout.write(
    `${JSON.stringify({ ready: "gateway", id: running.id, httpPort: running.httpPort, udpPort: running.udpPort })}\n`,
  );
  const stop = () => void running.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  exitWithParent(stop);
}

/** A child whose launcher died (SIGKILL leaves no time to stop it) stops too: nothing is left running. */
function exitWithParent(stop: () => void): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 1000).unref();
}

/** --join-rate: a whole number of joins per minute, at least 1. */
function joinRate(): number {
  const value = values["join-rate"];
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    fail(`--join-rate must be a whole number of joins per minute, at least 1, got "${value}"`);
  return n;
}

function chunksOf(map: { width: number; height: number }): [number, number] {
  return [Math.ceil(map.width / CHUNK_SIZE), Math.ceil(map.height / CHUNK_SIZE)];
}

interface Child {
  readonly name: string;
  child: ChildProcess;
  ready: Record<string, unknown>;
}

/** Starts `node --import tsx main.ts ...args` and resolves with its ready line. */
function startChild(name: string, args: string[]): Promise<Child> {
  const child = spawn(process.execPath, ["--import", "tsx", SELF, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const onExit = (code: number | null) => reject(new Error(`${name} exited (${String(code)}) before it was ready`));
    child.once("exit", onExit);
    lines.once("line", (line) => {
      child.off("exit", onExit);
      try {
        resolve({ name, child, ready: JSON.parse(line) as Record<string, unknown> });
      } catch {
        reject(new Error(`${name} said: ${line}`));
      }
    });
  });
}

async function runCluster(): Promise<void> {
  // Every flag is checked before anything starts: a bad one must not leave a Redis or a PostgreSQL behind.
  const regionCount = count("regions", values.regions);
  const gatewayCount = count("gateways", values.gateways);
  const httpBase = port("http-port", values["http-port"]);
  const udpBase = port("udp-port", values["udp-port"]);
  const players = maxPlayers();
  const joinsPerMinute = joinRate();
  // The admin token reaches the regions through the environment, not their command lines (ps shows those).
  try {
    const fromFile =
      values["admin-token-file"] === undefined ? undefined : readFileSync(values["admin-token-file"], "utf8");
    const raw = fromFile ?? process.env.CAVES_ADMIN_TOKEN;
    if (raw !== undefined) process.env.CAVES_ADMIN_TOKEN = checkAdminToken(raw);
  } catch (error) {
    fail(`admin token: ${(error as Error).message}`);
  }
  const map = readWorldMap(values.map);
  let layout: ClusterLayout;
  try {
    layout = values.layout ? readLayout(values.layout, ...chunksOf(map)) : gridLayout(...chunksOf(map), regionCount);
  } catch (error) {
    if (error instanceof LayoutError) fail(error.message);
    throw error;
  }
  // Whatever has started is stopped on SIGTERM / SIGINT, also while the rest is still starting.
  let redis: Awaited<ReturnType<typeof startRedis>> | null = null;
  let postgres: PostgresProcess | null = null;
  let stopping = false;
  const children: Child[] = [];
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const exits = children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.child.exitCode !== null || c.child.signalCode !== null) return resolve();
          c.child.once("exit", () => resolve());
          c.child.kill("SIGTERM");
        }),
    );
    void Promise.race([Promise.all(exits), new Promise((resolve) => setTimeout(resolve, 5000))])
      .then(() => {
        for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGKILL");
        postgres?.stop();
        return redis?.stop();
      })
      .then(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  if (values.redis === undefined) redis = await startRedis();
  if (stopping) return void (await redis?.stop());
  const redisUrl = values.redis ?? redis!.url;
  let postgresUrl = values.postgres;
  if (postgresUrl === undefined) {
    const skip = postgresSkipReason();
    if (skip === null) {
      postgres = await startPostgres();
      postgresUrl = postgres.url;
      if (stopping) return void postgres.stop();
    } else {
      logger.warn("accounts live in region 0 and stay there (no shared store)", { reason: skip });
    }
  }
  const directory = new Directory(redisUrl);
  await directory.connect();
  await directory.publishLayout(layout);
  await directory.tickEpochMs(Date.now());
  await directory.close();
  const common = ["--redis", redisUrl, "--map", values.map, "--host", values.host, "--log-level", level];
  const regionArgs = (region: number) => [
    ...(postgresUrl === undefined ? [] : ["--postgres", postgresUrl]),
    "--role",
    "region",
    "--region",
    String(region),
    "--layout-json",
    layoutJson(layout),
    ...(values.pvp ? ["--pvp"] : []),
    "--max-players",
    String(players),
    ...common,
  ];
  const supervise = (entry: Child, args: string[]) => {
    entry.child.once("exit", (code, signal) => {
      if (stopping) return;
      logger.warn("restarting", { process: entry.name, code, signal });
      void startChild(entry.name, args).then(
        (next) => {
          entry.child = next.child;
          entry.ready = next.ready;
          supervise(entry, args);
        },
        (error: unknown) => logger.error("restart failed", { process: entry.name, error: String(error) }),
      );
    });
  };
  const regionChildren = await Promise.all(
    Array.from({ length: layout.regionCount }, (_, region) => startChild(`region ${region}`, regionArgs(region))),
  );
  regionChildren.forEach((entry, region) => supervise(entry, regionArgs(region)));
  children.push(...regionChildren);
  for (let index = 0; index < gatewayCount; index++) {
    const args = [
      "--role",
      "gateway",
      "--id",
      `g${index}`,
      "--regions",
      String(layout.regionCount),
      "--http-port",
      String(httpBase === 0 ? 0 : httpBase + index),
      "--udp-port",
      String(udpBase === 0 ? 0 : udpBase + index),
      "--join-rate",
      String(joinsPerMinute),
      "--client-dir",
      values["client-dir"],
      ...common,
    ];
    const entry = await startChild(`gateway ${index}`, args);
    supervise(entry, args);
    children.push(entry);
  }
  const gateways = children.filter((c) => c.ready.ready === "gateway").map((c) => c.ready);
  const regions = children.filter((c) => c.ready.ready === "region").map((c) => c.ready);
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ redis: redisUrl, postgres: postgresUrl ?? null, regions, gateways, pid: process.pid })}\n`,
    );
  } else {
    process.stdout.write(
      `Forgotten Caves cluster: ${layout.regionCount} regions, ${gatewayCount} gateways, Redis at ${redisUrl}, ` +
        `accounts ${postgresUrl === undefined ? "in region 0" : `in PostgreSQL at ${postgresUrl}`}\n` +
        gateways
          .map((g) => `  play at http://${values.host}:${String(g.httpPort)}/  (UDP ${String(g.udpPort)})\n`)
          .join(""),
    );
  }
}

const main = values.role === "region" ? runRegion : values.role === "gateway" ? runGateway : runCluster;
main().catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
