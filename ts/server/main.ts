// `npm start`: runs the game server on the bundled map (or --map).
import { iceServerFlag, RtcFlagError, rtcPortsFlag } from "./transports/rtc-flags.js";
import { DEFAULT_RECORDING_LIMITS } from "./recording/recording-files.js";
import { startupSummary } from "./ops/startup-summary.js";
import { DAY_MINUTES_MAX, DAY_MINUTES_MIN } from "../world-time.js";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkAdminToken } from "./http/admin-routes.js";
import { DEFAULT_SPECTATOR_POLICY, SPECTATOR_POLICIES, type SpectatorPolicy } from "./http/spectate-route.js";
import { parseArgs } from "node:util";
import { formatProfile, parseProfileSpec, ProfileError, randomSeed } from "../netsim/index.js";
import { DEFAULT_GAME_OPTIONS } from "./game-options.js";
import { DEFAULT_HTTP_LIMITS } from "./http/http-guard.js";
import { parseTrustedProxy } from "./edge/client-address.js";
import { isLogLevel, Logger } from "./ops/log.js";
import { DatabaseBackups, DEFAULT_BACKUP_INTERVAL_MS, DEFAULT_BACKUPS_KEPT } from "./persistence/backup.js";
import { DEFAULT_DATABASE_PATH, MEMORY_DATABASE, openGameDatabase } from "./persistence/database.js";
import { DEFAULT_CLIENT_DIR, DEFAULT_MAX_REPLAY_VIEWERS, type ServerOptions, startServer } from "./server.js";
import {
  DEFAULT_RECEIVE_INTERVAL_MS,
  DEFAULT_SEND_THREAD,
  UDP_BACKENDS,
  type UdpBackend,
} from "./transports/udp-transport.js";

const DEFAULT_MAP = fileURLToPath(new URL("../../maps/caves.tmj", import.meta.url));

const MIB = 1024 * 1024;

const HELP = `Forgotten Caves game server

usage: npm start -- [options]
       ./forgotten-caves [options]     (the single file: npm run -s package)

  --host ADDRESS        address to bind HTTP and UDP (default 127.0.0.1)
  --http-port PORT      HTTP API and client page (default 8080; 0 picks a free port)
  --udp-port PORT       UDP datagrams (default 7777; 0 picks a free port)
  --map PATH            Tiled map: .tmj, .tmx or .csv, with its tile data (NAME.tiles.json)
                        and creatures (NAME.npcs.json) beside it (default maps/caves.tmj)
  --watch               reload the map's tiles when its folder changes; clients get the changed
                        cells without a restart (docs/maps.md § Reloading a map)
  --max-players N       refuse joins beyond N sessions (default ${DEFAULT_GAME_OPTIONS.maxPlayers})
  --spectators WHO      who may watch the world with a free camera, bodiless and unseen
                        (POST /api/spectate, /?spectate): anyone | admin | off (default ${DEFAULT_SPECTATOR_POLICY};
                        an admin watches with the admin token; docs/server.md § Spectators)
  --max-spectators N    spectators at once, not counted among the players (default ${DEFAULT_GAME_OPTIONS.maxSpectators})
  --max-replay-viewers N  replays the operators' console watches at once, each a process of its own
                        (default ${DEFAULT_MAX_REPLAY_VIEWERS}; docs/recording.md § Watching from the console)
  --send-unchanged      send every entity update even when nothing in view changed
                        (the seed's behaviour; by default unchanged updates are skipped)
  --session-rate N      inbound datagrams per second per session (default ${DEFAULT_GAME_OPTIONS.sessionRatePerSecond})
  --address-rate N      inbound datagrams per second per source address (default ${DEFAULT_GAME_OPTIONS.addressRatePerSecond})
  --db PATH             SQLite file for accounts and characters
                        (default ${DEFAULT_DATABASE_PATH}; ":memory:" keeps nothing). A file that
                        exists but is empty or damaged is refused, never replaced
  --db-backup DIR       back the database up into DIR with SQLite's online backup API:
                        at start, every --db-backup-minutes, and before every migration
  --db-backup-minutes N minutes between backups (default ${DEFAULT_BACKUP_INTERVAL_MS / 60_000})
  --db-backup-keep N    scheduled backups kept, oldest deleted first (default ${DEFAULT_BACKUPS_KEPT})
  --record DIR          the flight recorder (docs/recording.md): every input the world consumes,
                        written to DIR, replayable with npm run -s replay. Default: recordings/
                        beside the --db file; "off" records nothing. A :memory: world records
                        only when given a DIR
  --record-max-mb N     a recording stops (loudly; the world plays on) past N MiB (default ${DEFAULT_RECORDING_LIMITS.maxBytes / MIB})
  --record-keep-mb N    at start, the oldest recordings in DIR are deleted beyond N MiB together
                        (default ${DEFAULT_RECORDING_LIMITS.keepBytes / MIB})
  --record-keep-days N  at start, recordings older than N days are deleted (default ${DEFAULT_RECORDING_LIMITS.keepDays})
  --npc-budget N        NPC think budget: N / (players + 1) units per entity tick
                        (default ${DEFAULT_GAME_OPTIONS.npcThinkBudgetBase}; docs/server.md § NPCs)
  --max-tick-stretch N  time dilation: when the loop cannot keep its rate (NPC thinking already shed),
                        each tick's period may stretch up to N times (default ${DEFAULT_GAME_OPTIONS.maxTickStretch}; 1 turns it off;
                        docs/server.md § Overload)
  --npc-seed N          seed of the creatures' wandering and spawn cells (default ${DEFAULT_GAME_OPTIONS.npcSeed})
  --pvp                 players may attack each other (bump into them) outside the map's
                        safe_zone areas; the map's "pvp" property can turn it on too (docs/combat.md)
  --combat-seed N       seed of the hit rolls (default ${DEFAULT_GAME_OPTIONS.combatSeed})
  --day-minutes N       real minutes per in-game day, ${DAY_MINUTES_MIN}..${DAY_MINUTES_MAX} (default ${DEFAULT_GAME_OPTIONS.dayMinutes})
  --time HH:MM          the time of day the world starts at (default 09:00; docs/world-time.md)
  --weather-seed N      seed of the weather schedule (default ${DEFAULT_GAME_OPTIONS.weatherSeed})
  --admin-token-file F  serve the admin API (/api/admin/*: kick, ban, mute, announce; docs/server.md § Admin)
                        to requests bearing the token in file F (at least 32 characters). The token may
                        come from the environment instead, CAVES_ADMIN_TOKEN; without either there is
                        no admin API. npm run -s admin -- --help is its command-line client
  --log-level LEVEL     debug | info | warn | error | silent (default info)
  --udp-backend NAME    auto | mmsg | dgram: how UDP datagrams move (default auto: batched
                        sendmmsg/recvmmsg through native/udp-mmsg where it is built, else
                        node:dgram; mmsg refuses to start without it)
  --udp-send-thread N   the batched socket makes its sendmmsg calls on a thread of its own at
                        niceness N, 0-19, so a broadcast's system calls run beside the tick, not
                        in it; "off": on the event loop's thread (default 0; docs/udp-batching.md)
  --udp-receive-interval MS  while busy (10,000 datagrams a second or more) the batched socket
                        reads at most once per MS milliseconds, 0-1000: one wake-up per interval
                        instead of one per few datagrams; an inbound datagram waits at most MS
                        (default ${DEFAULT_RECEIVE_INTERVAL_MS}; 0: read each at once)

Browser transports (docs/transports.md):
  --ice-server URL      STUN/TURN server for WebRTC peer connections, repeatable:
                        stun:HOST:PORT, turn:USER:PASS@HOST:PORT[?transport=tcp], turns:...
                        (default none: enough when browsers can reach the bind address)
  --rtc-bind ADDRESS    address WebRTC binds to and offers as its host candidate
                        (default --host, or every interface when --host is 0.0.0.0 / ::)
  --rtc-ports MIN-MAX   UDP port range for WebRTC peer connections (default any free port)
  --client-dir PATH     the built browser client served at / (default dist/client)
  --join-rate N         guest joins per minute per source address (default 60)
  --allow-origin ORIGIN a page origin besides the server's own that may POST to the API,
                        e.g. http://localhost:5173; repeatable (docs/server.md § HTTP limits)
  --trusted-proxy ADDRESS[/PREFIX]  a reverse proxy (e.g. 127.0.0.1, ::1, 10.0.0.0/8) whose
                        X-Forwarded-For names the client: every per-address limit and ban then
                        applies to the player, not the proxy; repeatable (default none: the TCP
                        peer is the client; docs/server.md § Behind a reverse proxy)
  --netsim SPEC         impair every link, both directions, e.g. "delay=80,jitter=30,loss=5"
                        (settings delay, jitter, loss, dup, up-*/down-*, seed; docs/netsim.md)
  -h, --help            this text
`;

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n\n${HELP}`);
  process.exit(2);
}

function port(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) fail(`--${name} must be a port number 0..65535, got "${value}"`);
  return n;
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

function sendThreadOption(value: string): { nice: number } | null {
  if (value === "off") return null;
  const nice = Number(value);
  if (!/^\d+$/.test(value) || nice > 19) fail(`--udp-send-thread must be a niceness 0..19 or "off", got "${value}"`);
  return { nice };
}

function netsimSpec(value: string): NonNullable<ServerOptions["netsim"]> {
  try {
    const { profile, seed } = parseProfileSpec(value);
    return { profile, seed: seed ?? randomSeed() };
  } catch (error) {
    if (error instanceof ProfileError) fail(`--netsim: ${error.message}`);
    throw error;
  }
}

function origin(value: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(value);
  } catch {
    // reported below
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== value) {
    fail(
      `--allow-origin must be an origin such as http://localhost:5173 (scheme, host, port; no path), got "${value}"`,
    );
  }
  return value;
}

function trustedProxy(value: string): string {
  try {
    parseTrustedProxy(value);
  } catch (error) {
    fail(`--trusted-proxy: ${(error as Error).message}`);
  }
  return value;
}

/** A tick stretched further than this (under 1.5 ticks a second at 24 Hz) is a server that has stopped. */
const MAX_TICK_STRETCH_LIMIT = 16;

function positive(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} must be a positive integer, got "${value}"`);
  return n;
}

function spectatorPolicy(value: string): SpectatorPolicy {
  const policy = SPECTATOR_POLICIES.find((name) => name === value);
  if (policy === undefined) fail(`--spectators must be one of ${SPECTATOR_POLICIES.join(", ")}, got "${value}"`);
  return policy;
}

function tickStretch(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 1 || n > MAX_TICK_STRETCH_LIMIT) {
    fail(`--max-tick-stretch must be a number from 1 (no dilation) to ${MAX_TICK_STRETCH_LIMIT}, got "${value}"`);
  }
  return n;
}

function dayMinutes(value: string): number {
  const n = positive("day-minutes", value);
  if (n > DAY_MINUTES_MAX) fail(`--day-minutes must be at most ${DAY_MINUTES_MAX} (a real day), got "${value}"`);
  return n;
}

/** "HH:MM" → 0 … 1 of a day. */
function timeOfDay(value: string): number {
  const match = /^(\d{1,2}):(\d{2})$/.exec(value);
  const hours = match ? Number(match[1]) : -1;
  const minutes = match ? Number(match[2]) : -1;
  if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59)
    fail(`--time must be HH:MM (00:00..23:59), got "${value}"`);
  return (hours * 60 + minutes) / (24 * 60);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        host: { type: "string", default: "127.0.0.1" },
        "http-port": { type: "string", default: "8080" },
        "udp-port": { type: "string", default: "7777" },
        map: { type: "string", default: DEFAULT_MAP },
        watch: { type: "boolean", default: false },
        "max-players": { type: "string", default: String(DEFAULT_GAME_OPTIONS.maxPlayers) },
        spectators: { type: "string", default: DEFAULT_SPECTATOR_POLICY },
        "max-spectators": { type: "string", default: String(DEFAULT_GAME_OPTIONS.maxSpectators) },
        "max-replay-viewers": { type: "string", default: String(DEFAULT_MAX_REPLAY_VIEWERS) },
        "send-unchanged": { type: "boolean", default: false },
        "session-rate": { type: "string", default: String(DEFAULT_GAME_OPTIONS.sessionRatePerSecond) },
        "address-rate": { type: "string", default: String(DEFAULT_GAME_OPTIONS.addressRatePerSecond) },
        "log-level": { type: "string", default: "info" },
        "npc-budget": { type: "string", default: String(DEFAULT_GAME_OPTIONS.npcThinkBudgetBase) },
        "npc-seed": { type: "string", default: String(DEFAULT_GAME_OPTIONS.npcSeed) },
        "max-tick-stretch": { type: "string", default: String(DEFAULT_GAME_OPTIONS.maxTickStretch) },
        pvp: { type: "boolean", default: false },
        "combat-seed": { type: "string", default: String(DEFAULT_GAME_OPTIONS.combatSeed) },
        "day-minutes": { type: "string", default: String(DEFAULT_GAME_OPTIONS.dayMinutes) },
        time: { type: "string", default: "09:00" },
        "weather-seed": { type: "string", default: String(DEFAULT_GAME_OPTIONS.weatherSeed) },
        db: { type: "string", default: DEFAULT_DATABASE_PATH },
        "db-backup": { type: "string" },
        "db-backup-minutes": { type: "string", default: String(DEFAULT_BACKUP_INTERVAL_MS / 60_000) },
        "db-backup-keep": { type: "string", default: String(DEFAULT_BACKUPS_KEPT) },
        record: { type: "string" },
        "record-max-mb": { type: "string", default: String(DEFAULT_RECORDING_LIMITS.maxBytes / MIB) },
        "record-keep-mb": { type: "string", default: String(DEFAULT_RECORDING_LIMITS.keepBytes / MIB) },
        "record-keep-days": { type: "string", default: String(DEFAULT_RECORDING_LIMITS.keepDays) },
        "ice-server": { type: "string", multiple: true, default: [] },
        "rtc-bind": { type: "string" },
        "rtc-ports": { type: "string" },
        "client-dir": { type: "string", default: DEFAULT_CLIENT_DIR },
        "allow-origin": { type: "string", multiple: true, default: [] },
        "trusted-proxy": { type: "string", multiple: true, default: [] },
        "join-rate": { type: "string", default: String(DEFAULT_HTTP_LIMITS.guestJoinsPerAddress) },
        netsim: { type: "string" },
        "udp-backend": { type: "string", default: "auto" },
        "udp-send-thread": { type: "string", default: String(DEFAULT_SEND_THREAD.nice) },
        "udp-receive-interval": { type: "string", default: String(DEFAULT_RECEIVE_INTERVAL_MS) },
        "admin-token-file": { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
      allowPositionals: false,
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const v = parsed.values;
  if (v.help) {
    process.stdout.write(HELP);
    return;
  }
  const level = v["log-level"]!;
  if (!isLogLevel(level)) fail(`--log-level must be debug, info, warn, error or silent, got "${level}"`);
  const logger = new Logger(level);
  const netsim = v.netsim === undefined ? undefined : netsimSpec(v.netsim);
  const udpBackend = v["udp-backend"] as UdpBackend;
  if (!UDP_BACKENDS.includes(udpBackend)) fail(`--udp-backend must be auto, mmsg or dgram, got "${udpBackend}"`);
  const udpSendThread = sendThreadOption(v["udp-send-thread"]!);
  const intervalText = v["udp-receive-interval"]!;
  const udpReceiveIntervalMs = Number(intervalText);
  if (!/^\d+$/.test(intervalText) || udpReceiveIntervalMs > 1000) {
    fail(`--udp-receive-interval must be whole milliseconds 0..1000, got "${intervalText}"`);
  }
  const webrtc: ServerOptions["webrtc"] = { iceServers: rtcFlag(() => v["ice-server"]!.map(iceServerFlag)) };
  if (v["rtc-bind"] !== undefined) webrtc.bindAddress = v["rtc-bind"];
  const rtcPorts = v["rtc-ports"];
  if (rtcPorts !== undefined) webrtc.portRange = rtcFlag(() => rtcPortsFlag(rtcPorts));
  let adminToken: string | undefined;
  try {
    const fromFile = v["admin-token-file"] === undefined ? undefined : readFileSync(v["admin-token-file"], "utf8");
    const raw = fromFile ?? process.env.CAVES_ADMIN_TOKEN;
    adminToken = raw === undefined ? undefined : checkAdminToken(raw);
  } catch (error) {
    fail(`admin token: ${(error as Error).message}`);
  }
  const backupDir = v["db-backup"];
  const backupMinutes = positive("db-backup-minutes", v["db-backup-minutes"]!);
  const backupKeep = positive("db-backup-keep", v["db-backup-keep"]!);
  if (backupDir !== undefined && v.db === MEMORY_DATABASE)
    fail(`--db-backup needs a database file, not ${MEMORY_DATABASE}`);
  // The flight recorder: on by default where the world persists (beside its database), off for :memory:.
  const recordDir =
    v.record === "off"
      ? undefined
      : (v.record ?? (v.db === MEMORY_DATABASE ? undefined : join(dirname(v.db!), "recordings")));
  const record =
    recordDir === undefined
      ? undefined
      : {
          dir: recordDir,
          limits: {
            maxBytes: positive("record-max-mb", v["record-max-mb"]!) * MIB,
            keepBytes: positive("record-keep-mb", v["record-keep-mb"]!) * MIB,
            keepDays: positive("record-keep-days", v["record-keep-days"]!),
          },
        };
  let database;
  try {
    database = openGameDatabase(v.db!, undefined, { backupDir });
  } catch (error) {
    process.stderr.write(`error: could not open the database ${v.db}: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const backups = backupDir === undefined ? null : new DatabaseBackups(database, { dir: backupDir, keep: backupKeep });
  backups?.start(backupMinutes * 60_000, (path, error) => {
    if (path) logger.info("database backed up", { path, ms: Math.round(backups.stats.lastMs ?? 0) });
    else logger.error("database backup failed", { error: String(error) });
  });
  let server;
  try {
    server = await startServer({
      database,
      host: v.host!,
      httpPort: port("http-port", v["http-port"]!),
      udpPort: port("udp-port", v["udp-port"]!),
      mapPath: v.map!,
      watchMap: v.watch!,
      maxPlayers: positive("max-players", v["max-players"]!),
      maxSpectators: positive("max-spectators", v["max-spectators"]!),
      replayViewers: { max: positive("max-replay-viewers", v["max-replay-viewers"]!) },
      spectators: spectatorPolicy(v.spectators!),
      sendUnchangedEntities: v["send-unchanged"]!,
      sessionRatePerSecond: positive("session-rate", v["session-rate"]!),
      addressRatePerSecond: positive("address-rate", v["address-rate"]!),
      npcThinkBudgetBase: positive("npc-budget", v["npc-budget"]!),
      npcSeed: positive("npc-seed", v["npc-seed"]!),
      maxTickStretch: tickStretch(v["max-tick-stretch"]!),
      pvp: v.pvp!,
      combatSeed: positive("combat-seed", v["combat-seed"]!),
      dayMinutes: dayMinutes(v["day-minutes"]!),
      startTimeOfDay: timeOfDay(v.time!),
      weatherSeed: positive("weather-seed", v["weather-seed"]!),
      webrtc,
      netsim,
      clientDir: v["client-dir"]!,
      http: {
        allowedOrigins: v["allow-origin"]!.map(origin),
        guestJoinsPerAddress: positive("join-rate", v["join-rate"]!),
      },
      trustedProxies: v["trusted-proxy"]!.map(trustedProxy),
      udpBackend,
      udpSendThread,
      udpReceiveIntervalMs,
      logger,
      adminToken,
      record,
    });
  } catch (error) {
    process.stderr.write(`error: could not start the server: ${(error as Error).message}\n`);
    database.close();
    process.exit(1);
  }
  const world = server.game.world;
  const host = server.host.includes(":") ? `[${server.host}]` : server.host;
  logger.info("listening", {
    http: `http://${host}:${server.httpPort}/`,
    udp: `${host}:${server.udpPort}`,
    udpBackend: server.udpBackend,
    map: world.name,
    chunks: `${world.chunksX}x${world.chunksY}`,
    npcs: server.game.npcs.size,
    npcKinds: world.npcKinds.length,
    pvp: server.game.pvp.enabled ? `on (${world.safeZones.length} safe zones)` : "off",
    admin: adminToken === undefined ? "off" : "on",
    recording: server.game.recorder?.status.path ?? "off",
  });
  process.stdout.write(
    `Forgotten Caves is running: http://${host}:${server.httpPort}/  (UDP ${host}:${server.udpPort}, map ${world.name})\n`,
  );
  for (const line of startupSummary({
    host,
    httpPort: server.httpPort,
    udpPort: server.udpPort,
    udpBackend: server.udpBackend,
    udpFallbackReason: server.udpFallbackReason,
    webrtcUnavailableReason: server.webrtc.unavailableReason,
    database: v.db!,
  })) {
    process.stdout.write(`${line}\n`);
  }
  if (netsim) {
    process.stdout.write(
      `netsim: every link impaired: ${formatProfile(netsim.profile)}, seed ${netsim.seed} (add seed=${netsim.seed} to repeat it)\n`,
    );
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    // A backup in progress finishes before the database closes.
    (backups?.stop() ?? Promise.resolve())
      .then(() => server.close())
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        logger.error("shutdown failed", { error: String(error) });
        process.exit(1);
      });
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

void main();
