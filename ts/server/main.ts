// `npm start`: runs the game server on the bundled map (or --map).
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DEFAULT_GAME_OPTIONS } from "./game-server.js";
import { isLogLevel, Logger } from "./log.js";
import { startServer } from "./server.js";

const DEFAULT_MAP = fileURLToPath(new URL("../../maps/caves.tmj", import.meta.url));

const HELP = `Forgotten Caves game server

usage: npm start -- [options]

  --host ADDRESS        address to bind HTTP and UDP (default 127.0.0.1)
  --http-port PORT      HTTP API and client page (default 8080; 0 picks a free port)
  --udp-port PORT       UDP datagrams (default 7777; 0 picks a free port)
  --map PATH            Tiled map: .tmj, .tmx or .csv, with PATH.tiles.json beside it
                        (default maps/caves.tmj)
  --max-players N       refuse joins beyond N sessions (default ${DEFAULT_GAME_OPTIONS.maxPlayers})
  --send-unchanged      send every entity update even when nothing in view changed
                        (the seed's behaviour; by default unchanged updates are skipped)
  --session-rate N      inbound datagrams per second per session (default ${DEFAULT_GAME_OPTIONS.sessionRatePerSecond})
  --address-rate N      inbound datagrams per second per source address (default ${DEFAULT_GAME_OPTIONS.addressRatePerSecond})
  --log-level LEVEL     debug | info | warn | error | silent (default info)
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

function positive(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} must be a positive integer, got "${value}"`);
  return n;
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
        "max-players": { type: "string", default: String(DEFAULT_GAME_OPTIONS.maxPlayers) },
        "send-unchanged": { type: "boolean", default: false },
        "session-rate": { type: "string", default: String(DEFAULT_GAME_OPTIONS.sessionRatePerSecond) },
        "address-rate": { type: "string", default: String(DEFAULT_GAME_OPTIONS.addressRatePerSecond) },
        "log-level": { type: "string", default: "info" },
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
  let server;
  try {
    server = await startServer({
      host: v.host!,
      httpPort: port("http-port", v["http-port"]!),
      udpPort: port("udp-port", v["udp-port"]!),
      mapPath: v.map!,
      maxPlayers: positive("max-players", v["max-players"]!),
      sendUnchangedEntities: v["send-unchanged"]!,
      sessionRatePerSecond: positive("session-rate", v["session-rate"]!),
      addressRatePerSecond: positive("address-rate", v["address-rate"]!),
      logger,
    });
  } catch (error) {
    process.stderr.write(`error: could not start the server: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const world = server.game.world;
  const host = server.host.includes(":") ? `[${server.host}]` : server.host;
  logger.info("listening", {
    http: `http://${host}:${server.httpPort}/`,
    udp: `${host}:${server.udpPort}`,
    map: world.name,
    chunks: `${world.chunksX}x${world.chunksY}`,
  });
  process.stdout.write(
    `Forgotten Caves is running: http://${host}:${server.httpPort}/  (UDP ${host}:${server.udpPort}, map ${world.name})\n`,
  );
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    server
      .close()
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
