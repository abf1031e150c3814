// `npm run -s cluster -- --regions 4 --gateways 2`: one world served by several processes on this
// machine (docs/scaling.md). It starts a private redis-server (or uses --redis URL) and a private
// PostgreSQL for the accounts (or uses --postgres URL), writes the layout
// to the directory, starts the region processes and the gateways as children of its own, supervises
// every process it started — regions, gateways, its redis-server and its PostgreSQL — restarting each
// whenever it ends, forever (supervisor.ts), and prints where to play. The same file runs the children:
// --role region | gateway.
import { iceServerFlag, RtcFlagError, rtcPortsFlag, splitRtcPorts } from "../server/transports/rtc-flags.js";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
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
import { type RedisProcess, startRedis } from "./redis-process.js";
import { type RegionOptions, startRegion } from "./region.js";
import { DEFAULT_RECORDING_LIMITS } from "../server/recording/recording-files.js";

const MIB = 1024 * 1024;
/** Where the regions record by default (docs/recording.md § In a cluster): as one process's data/recordings. */
const DEFAULT_CLUSTER_RECORDINGS = "data/recordings";
import { isHealthList } from "./cluster-health.js";
import { DEFAULT_BACKOFF, type PartHealth, type RunningPart, SupervisedPart } from "./supervisor.js";

const DEFAULT_MAP = fileURLToPath(new URL("../../maps/caves.tmj", import.meta.url));
const SELF = fileURLToPath(import.meta.url);
/**
 * How a child (a region, a gateway) runs this file: the way this process was started — tsx on the
 * source, or node on its prebuilt bundle (build/node/cluster.mjs, scripts/build-node.mjs), whose module
 * URL is still this source file's but whose entry point (process.argv[1]) is the bundle. Not the launcher's
 * own node flags: an --inspect or --cpu-prof given to it is for it alone.
 */
const SELF_ARGS =
  realpathSync(process.argv[1]) === SELF ? ["--import", "tsx", SELF] : ["--enable-source-maps", process.argv[1]];

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
  --gateway-url URL    the public base URL of a gateway, repeatable, the first for gateway 0 and so on
                       (e.g. https://g0.example.org): where browsers reach it when that is not the host
                       they joined through at its --http-port (another host, a TLS proxy). A join's answer
                       lists it, and each gateway lets the pages of exactly these origins use it
  --ice-server URL     STUN/TURN server for the gateways' WebRTC peer connections, repeatable:
                       stun:HOST:PORT, turn:USER:PASS@HOST:PORT[?transport=tcp], turns:... (default none)
  --rtc-ports MIN-MAX  UDP ports for the gateways' WebRTC peer connections, cut into one range per gateway
                       in order (default any free port)
  --pvp                players may attack each other outside the map's safe zones, across borders too
  --max-players N      sessions one region holds at most, joins beyond refused (default ${DEFAULT_GAME_OPTIONS.maxPlayers})
  --join-rate N        guest joins per minute per source address, kept by each gateway (default 60)
  --admin-token-file F serve the admin API at the gateways (/api/admin/*: players, kick, ban, mute, announce,
                       log; docs/server.md § Admin) to requests bearing the token in file F (at least 32
                       characters); or the environment's CAVES_ADMIN_TOKEN. Bans are kept in the PostgreSQL
  --record DIR         each region records its inputs into DIR (docs/recording.md § In a cluster), one file
                       per region and start (caves-r<N>-….fcrec), replayable alone with npm run -s replay;
                       "off" records nothing (default data/recordings; bounds as --record-max-mb and the
                       server's defaults).
  --record-max-mb N    one region's recording stops (loudly; the world plays on) past N MiB (default ${DEFAULT_RECORDING_LIMITS.maxBytes / MIB})
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
    "gateway-url": { type: "string", multiple: true, default: [] },
    "public-url": { type: "string" },
    "ice-server": { type: "string", multiple: true, default: [] },
    "rtc-ports": { type: "string" },
    record: { type: "string", default: DEFAULT_CLUSTER_RECORDINGS },
    "record-max-mb": { type: "string", default: String(DEFAULT_RECORDING_LIMITS.maxBytes / MIB) },
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

/** --record and --record-max-mb: where a region records and within what, or undefined (off). */
function recordFlag(): RegionOptions["record"] {
  const dir = values.record!;
  const maxMb = Number(values["record-max-mb"]);
  if (!Number.isInteger(maxMb) || maxMb < 1) {
    fail(`--record-max-mb must be a whole number of MiB, at least 1, got "${values["record-max-mb"]}"`);
  }
  if (dir === "off") return undefined;
  return { dir, limits: { maxBytes: maxMb * MIB } };
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
    record: recordFlag(),
    // Checked by the launcher, which set it.
    adminToken: process.env.CAVES_ADMIN_TOKEN,
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
  // The launcher sends the health of every part of the cluster (supervisor.ts) over the IPC channel.
  let health: PartHealth[] | null = null;
  process.on("message", (message: unknown) => {
    const sent = (message as { health?: unknown } | null)?.health;
    if (isHealthList(sent)) health = sent;
  });
  process.channel?.unref();
  const running = await startGateway({
    health: () => health,
    id: values.id ?? fail("--id is required"),
    host: values.host,
    httpPort: port("http-port", values["http-port"]),
    udpPort: port("udp-port", values["udp-port"]),
    redisUrl: values.redis ?? fail("--redis is required"),
    regionCount: count("regions", values.regions),
    clientDir: values["client-dir"],
    guestJoinsPerAddress: joinRate(),
    logger,
    postgresUrl: values.postgres,
    publicUrl: values["public-url"] === undefined ? undefined : gatewayUrl(values["public-url"]),
    iceServers: rtcFlag(() => (values["ice-server"] ?? []).map(iceServerFlag)),
    rtcPorts: rtcFlag(() => (values["rtc-ports"] === undefined ? undefined : rtcPortsFlag(values["rtc-ports"]))),
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

/** A WebRTC flag's value (rtc-flags.ts), or exit 2 with its error. */
function rtcFlag<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof RtcFlagError) fail(error.message);
    throw error;
  }
}

/** A gateway's public base URL (--gateway-url): an http(s) origin, nothing after the host and port. */
function gatewayUrl(value: string): string {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // said below
  }
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:") || url.href !== `${url.origin}/`) {
    fail(`--gateway-url must be an http(s) origin such as https://g0.example.org, got "${value}"`);
  }
  return url.origin;
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

/** How long a child may take to say it is ready before it is killed and its start counted as failed. */
const READY_TIMEOUT_MS = 60_000;

/** Starts this file again (SELF_ARGS) with `...args` (with an IPC channel when `ipc`) and resolves with its ready line. */
function startChild(name: string, args: string[], ipc = false): Promise<Child> {
  const child = spawn(process.execPath, [...SELF_ARGS, ...args], {
    stdio: ipc ? ["ignore", "pipe", "inherit", "ipc"] : ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${name} was not ready within ${READY_TIMEOUT_MS} ms`));
    }, READY_TIMEOUT_MS);
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${String(signal ?? code)}) before it was ready`));
    };
    child.once("exit", onExit);
    lines.once("line", (line) => {
      clearTimeout(timer);
      child.off("exit", onExit);
      try {
        resolve({ name, child, ready: JSON.parse(line) as Record<string, unknown> });
      } catch {
        child.kill("SIGKILL");
        reject(new Error(`${name} said: ${line}`));
      }
    });
  });
}

/** A started child as the supervisor sees it: its end, and a stop (SIGTERM, then SIGKILL after 5 s). */
function childPart(entry: Child): RunningPart {
  const { child } = entry;
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const ended = new Promise<string>((resolve) => {
    if (gone()) return resolve(`${entry.name} exited (${String(child.signalCode ?? child.exitCode)})`);
    child.once("exit", (code, signal) => resolve(`${entry.name} exited (${String(signal ?? code)})`));
  });
  return {
    pid: child.pid ?? null,
    ended,
    async stop() {
      if (gone()) return;
      child.kill("SIGTERM");
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (!gone()) child.kill("SIGKILL");
    },
  };
}

async function runCluster(): Promise<void> {
  // Every flag is checked before anything starts: a bad one must not leave a Redis or a PostgreSQL behind.
  const regionCount = count("regions", values.regions);
  const gatewayCount = count("gateways", values.gateways);
  const httpBase = port("http-port", values["http-port"]);
  const udpBase = port("udp-port", values["udp-port"]);
  const players = maxPlayers();
  const joinsPerMinute = joinRate();
  recordFlag(); // checked before anything starts; each region reads it again
  const gatewayUrls = (values["gateway-url"] ?? []).map(gatewayUrl);
  if (gatewayUrls.length > gatewayCount) fail(`${gatewayUrls.length} --gateway-url for ${gatewayCount} gateways`);
  const iceServers = rtcFlag(() => (values["ice-server"] ?? []).map(iceServerFlag));
  const rtcPorts = values["rtc-ports"];
  const gatewayRtcPorts =
    rtcPorts === undefined ? null : rtcFlag(() => splitRtcPorts(rtcPortsFlag(rtcPorts), gatewayCount));
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
  // Every process started is a supervised part (supervisor.ts), restarted whenever it ends; all are
  // stopped on SIGTERM / SIGINT, also while the rest is still starting.
  let redis: RedisProcess | null = null;
  let postgres: PostgresProcess | null = null;
  let stopping = false;
  const parts: SupervisedPart[] = [];
  /** The gateways' processes now, by name: each is sent the parts' health (cluster-health.ts). */
  const gatewayProcesses = new Map<string, ChildProcess>();
  const sendHealth = (to: Iterable<ChildProcess> = gatewayProcesses.values()) => {
    const health = parts.map((part) => part.health);
    for (const child of to) if (child.connected) child.send({ health }, () => {});
  };
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // The regions and gateways first (a region writes its characters' last states), then the stores.
    const processes = parts.filter((part) => part.kind === "region" || part.kind === "gateway");
    void Promise.race([
      Promise.all(processes.map((part) => part.stop())),
      new Promise((resolve) => setTimeout(resolve, 8000)),
    ])
      .then(() => Promise.all(parts.filter((part) => !processes.includes(part)).map((part) => part.stop())))
      .then(() => {
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
  const epochMs = await directory.tickEpochMs(Date.now());
  await directory.close();
  if (redis !== null) {
    const { port: redisPort, dir } = redis;
    const redisPart = (process: RedisProcess): RunningPart => ({
      pid: process.child.pid ?? null,
      ended: process.ended,
      stop: async () => {
        process.child.kill("SIGKILL");
        await process.ended;
      },
    });
    parts.push(
      new SupervisedPart(
        "redis-server",
        "redis",
        redisPart(redis),
        async () => redisPart(await startRedis(10_000, { port: redisPort, dir })),
        logger,
        () => sendHealth(),
        DEFAULT_BACKOFF,
        // A private Redis keeps nothing (no persistence): what the launcher wrote is written again; the
        // regions and gateways write their own parts again when their connections come back (directory.ts).
        async () => {
          const again = new Directory(redisUrl);
          try {
            await again.connect();
            await again.publishLayout(layout);
            await again.tickEpochMs(epochMs);
          } finally {
            await again.close();
          }
        },
      ),
    );
  }
  if (postgres !== null) {
    let current: PostgresProcess = postgres;
    const postgresPart = (process: PostgresProcess): RunningPart => ({
      pid: process.pid,
      ended: process.ended,
      stop: () => Promise.resolve(process.stop()),
    });
    parts.push(
      new SupervisedPart(
        "postgres",
        "postgres",
        postgresPart(current),
        async () => {
          current = await current.restart();
          return postgresPart(current);
        },
        logger,
        () => sendHealth(),
      ),
    );
  }
  const common = ["--redis", redisUrl, "--map", values.map, "--host", values.host, "--log-level", level];
  const regionArgs = (region: number) => [
    "--record",
    values.record!,
    "--record-max-mb",
    values["record-max-mb"]!,
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
  const regionChildren = await Promise.all(
    Array.from({ length: layout.regionCount }, (_, region) => startChild(`region ${region}`, regionArgs(region))),
  );
  regionChildren.forEach((entry, region) =>
    parts.push(
      new SupervisedPart(
        entry.name,
        "region",
        childPart(entry),
        async () => childPart(await startChild(entry.name, regionArgs(region))),
        logger,
        () => sendHealth(),
      ),
    ),
  );
  const gateways: Record<string, unknown>[] = [];
  for (let index = 0; index < gatewayCount; index++) {
    const args = (httpPort: number, udpPort: number) => [
      // The address bans are read from the shared store (pg-bans.ts).
      ...(postgresUrl === undefined ? [] : ["--postgres", postgresUrl]),
      "--role",
      "gateway",
      "--id",
      `g${index}`,
      "--regions",
      String(layout.regionCount),
      "--http-port",
      String(httpPort),
      "--udp-port",
      String(udpPort),
      "--join-rate",
      String(joinsPerMinute),
      "--client-dir",
      values["client-dir"],
      ...(index < gatewayUrls.length ? ["--public-url", gatewayUrls[index]] : []),
      ...iceServers.flatMap((server) => ["--ice-server", server]),
      ...(gatewayRtcPorts === null
        ? []
        : ["--rtc-ports", `${gatewayRtcPorts[index].min}-${gatewayRtcPorts[index].max}`]),
      ...common,
    ];
    const name = `gateway ${index}`;
    const entry = await startChild(
      name,
      args(httpBase === 0 ? 0 : httpBase + index, udpBase === 0 ? 0 : udpBase + index),
      true,
    );
    gateways.push(entry.ready);
    gatewayProcesses.set(name, entry.child);
    // A gateway started again listens where it did (the ports it was given, or picked when given 0): its
    // clients' datagrams and pages keep their address.
    const again = args(Number(entry.ready.httpPort), Number(entry.ready.udpPort));
    parts.push(
      new SupervisedPart(
        name,
        "gateway",
        childPart(entry),
        async () => {
          const next = await startChild(name, again, true);
          gatewayProcesses.set(name, next.child);
          sendHealth([next.child]);
          return childPart(next);
        },
        logger,
        () => sendHealth(),
      ),
    );
  }
  sendHealth();
  const regions = regionChildren.map((c) => c.ready);
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
