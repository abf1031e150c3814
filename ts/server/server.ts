// Composes a running server: the Game, its UDP transport and its HTTP API.
// Tests start it in-process on port 0; main.ts starts it from the command line.
import type { AddressInfo } from "node:net";
import { loadCore } from "../wasm/node.js";
import { installApiRoutes } from "./api-routes.js";
import { Game, type GameOptions } from "./game-server.js";
import { HttpApi } from "./http-api.js";
import { Logger } from "./log.js";
import { loadMap } from "./map/load-map.js";
import { tileFlagsTable } from "./map/tile-data.js";
import { UdpTransport } from "./udp-transport.js";
import type { WorldMap } from "./world.js";

export interface ServerOptions extends Partial<GameOptions> {
  host: string;
  httpPort: number;
  udpPort: number;
  mapPath: string;
  logger?: Logger;
}

export interface RunningServer {
  game: Game;
  httpPort: number;
  udpPort: number;
  host: string;
  close(): Promise<void>;
}

/** Reads a Tiled map (and its tile data) into what the World needs. */
export function readWorldMap(path: string): WorldMap {
  const map = loadMap(path);
  return {
    name: map.name,
    width: map.width,
    height: map.height,
    tiles: map.tiles,
    flags: tileFlagsTable(map.tileData),
    spawns: map.spawns,
    tileInfo: [...map.tileData.values()].map(({ id, name, collides, opaque, look }) => ({
      id,
      name,
      collides,
      opaque,
      look,
    })),
  };
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const logger = options.logger ?? new Logger("info");
  const core = await loadCore();
  const game = new Game(core, readWorldMap(options.mapPath), options, logger);
  const udp = await UdpTransport.listen(options.host, options.udpPort, (datagram, peer) =>
    game.receive(datagram, peer),
  );
  const http = new HttpApi((error) => logger.error("http handler failed", { error: String(error) }));
  installApiRoutes(http, game, () => udp.port);
  try {
    await new Promise<void>((resolve, reject) => {
      http.server.once("error", reject);
      http.server.listen(options.httpPort, options.host, () => {
        http.server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await udp.close();
    throw error;
  }
  game.start();
  let closed = false;
  return {
    game,
    host: options.host,
    httpPort: (http.server.address() as AddressInfo).port,
    udpPort: udp.port,
    async close() {
      if (closed) return;
      closed = true;
      game.stop();
      http.server.closeAllConnections();
      await Promise.all([new Promise<void>((resolve) => http.server.close(() => resolve())), udp.close()]);
    },
  };
}
