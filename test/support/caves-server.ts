// The real server in-process on the bundled default map (maps/caves.tmj),
// on 127.0.0.1 with ports 0 and a silent logger: the one setup every test
// that plays on the default map starts from, so they all run the same server.
import { fileURLToPath } from "node:url";
import { Logger } from "../../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../../ts/server/server.js";

const CAVES_MAP_PATH = fileURLToPath(new URL("../../maps/caves.tmj", import.meta.url));

export interface CavesServer {
  server: RunningServer;
  /** http://127.0.0.1:<httpPort>, what clients and bots join through. */
  baseUrl: string;
}

export async function startCavesServer(): Promise<CavesServer> {
  const server = await startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: CAVES_MAP_PATH,
    logger: new Logger("silent"),
  });
  return { server, baseUrl: `http://127.0.0.1:${server.httpPort}` };
}
