// A real server process for the crash test: the server as startServer
// composes it, with its database opened from --db exactly as main.ts is to do
// it (openGameDatabase, passed as the `database` option; game.shutdown() on
// SIGTERM). Prints one JSON line {"httpPort", "udpPort"} on stdout once it
// listens.
//
//   node --import tsx test/support/persistent-server.ts --db PATH --map PATH [--session-timeout-ms N]
//     [--dungeon-seed N] [--record DIR]
import { parseArgs } from "node:util";
import { Logger } from "../../ts/server/ops/log.js";
import { openGameDatabase } from "../../ts/server/persistence/database.js";
import { startServer } from "../../ts/server/server.js";

const { values } = parseArgs({
  options: {
    db: { type: "string" },
    map: { type: "string" },
    "session-timeout-ms": { type: "string", default: "10000" },
    "dungeon-seed": { type: "string" },
    record: { type: "string" },
  },
});
if (!values.db || !values.map) {
  process.stderr.write("usage: persistent-server.ts --db PATH --map PATH\n");
  process.exit(2);
}

const database = openGameDatabase(values.db);
const server = await startServer({
  host: "127.0.0.1",
  httpPort: 0,
  udpPort: 0,
  mapPath: values.map,
  logger: new Logger("silent"),
  sessionTimeoutMs: Number(values["session-timeout-ms"]),
  ...(values["dungeon-seed"] === undefined ? {} : { dungeonSeed: Number(values["dungeon-seed"]) }),
  ...(values.record === undefined ? {} : { record: { dir: values.record } }),
  database,
});
process.stdout.write(`${JSON.stringify({ httpPort: server.httpPort, udpPort: server.udpPort })}\n`);
process.on("SIGTERM", () => {
  void server.close().then(() => {
    server.game.shutdown();
    process.exit(0);
  });
});
