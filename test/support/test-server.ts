// The real server (startServer: UDP, HTTP, WebRTC, WebSocket) on a freshly
// written test map, silent, on free ports: what the server and client-core
// tests start in their beforeAll. close() also removes the map.
import { Logger } from "../../ts/server/ops/log.js";
import { type RunningServer, type ServerOptions, startServer } from "../../ts/server/server.js";
import { writeTestMap } from "./test-map.js";

export interface TestServer {
  server: RunningServer;
  baseUrl: string;
  close(): Promise<void>;
}

export async function startServerOnTestMap(options: Partial<ServerOptions> = {}): Promise<TestServer> {
  const map = writeTestMap();
  let server: RunningServer;
  try {
    server = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: map.path,
      logger: new Logger("silent"),
      ...options,
    });
  } catch (error) {
    map.dispose();
    throw error;
  }
  return {
    server,
    baseUrl: `http://127.0.0.1:${server.httpPort}`,
    async close() {
      await server.close();
      map.dispose();
    },
  };
}
