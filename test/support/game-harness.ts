// An in-process game server for the account, chat, dialog and tile-update
// tests: the Game with a given world map and database, real loopback UDP and
// the real HTTP routes — the same parts startServer composes, minus the
// browser transports, plus what startServer cannot take yet (a map's
// interactables).
import type { AddressInfo } from "node:net";
import { loadCore } from "../../ts/wasm/node.js";
import { installApiRoutes } from "../../ts/server/http/api-routes.js";
import type { GameOptions } from "../../ts/server/game-options.js";
import { Game } from "../../ts/server/game-server.js";
import { HttpApi } from "../../ts/server/http/http-api.js";
import { Logger } from "../../ts/server/ops/log.js";
import { loadMap } from "../../ts/server/map/load-map.js";
import { readWorldMap } from "../../ts/server/server.js";
import { UdpTransport } from "../../ts/server/transports/udp-transport.js";
import type { WorldMap } from "../../ts/server/world/world.js";
import { writeTestMap } from "./test-map.js";

export interface Harness {
  game: Game;
  httpPort: number;
  udpPort: number;
  close(): Promise<void>;
}

/** The map at `path` as the World needs it, with its interactables (signs, notice boards). */
export function worldMapWithInteractables(path: string): WorldMap {
  // Chests are the item room's, not signs (world-map.ts leaves them out the same way).
  return {
    ...readWorldMap(path),
    interactables: loadMap(path).interactables.filter((object) => object.kind !== "chest"),
  };
}

export async function startHarness(map: WorldMap, options: Partial<GameOptions> = {}): Promise<Harness> {
  const core = await loadCore();
  const game = new Game(core, map, options, new Logger("silent"));
  const udp = await UdpTransport.listen("127.0.0.1", 0, (datagram, peer) => game.receive(datagram, peer));
  const http = new HttpApi((error) => {
    throw error;
  });
  installApiRoutes(http, game, () => udp.port);
  await new Promise<void>((resolve) => http.server.listen(0, "127.0.0.1", resolve));
  game.start();
  return {
    game,
    httpPort: (http.server.address() as AddressInfo).port,
    udpPort: udp.port,
    async close() {
      game.shutdown();
      http.server.closeAllConnections();
      await Promise.all([new Promise<void>((resolve) => http.server.close(() => resolve())), udp.close()]);
    },
  };
}

/**
 * The harness on a freshly written test map (test-map.ts), for the tests that need nothing else: its close()
 * also removes the map, so one handle is all there is to clean up.
 */
export async function startHarnessOnTestMap(): Promise<Harness> {
  const map = writeTestMap();
  let harness: Harness;
  try {
    harness = await startHarness(readWorldMap(map.path));
  } catch (error) {
    map.dispose();
    throw error;
  }
  return {
    ...harness,
    async close() {
      await harness.close();
      map.dispose();
    },
  };
}

/** POSTs a JSON body to the harness; returns the status and the parsed body. */
export async function postJson(
  httpPort: number,
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${httpPort}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
