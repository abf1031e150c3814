// The HTTP API of the game server: guest join, status and metrics.
// docs/server.md documents every route.
import { PROTOCOL_VERSION } from "../protocol/header.js";
import { type Game, JoinError } from "./game-server.js";
import { HttpError, type HttpApi, stringField } from "./http-api.js";
import { checkNick } from "./nick.js";
import { prometheusText } from "./prometheus.js";

export function installApiRoutes(http: HttpApi, game: Game, udpPort: () => number): void {
  http.route("POST", "/api/guest", ({ body }) => {
    const checked = checkNick(stringField(body, "nick"));
    if (!checked.ok) throw new HttpError(400, checked.reason);
    try {
      const session = game.join(checked.nick);
      return {
        body: {
          token: session.tokenHex,
          entityId: session.entity.id,
          protocolVersion: PROTOCOL_VERSION,
          udpPort: udpPort(),
        },
      };
    } catch (error) {
      if (error instanceof JoinError) throw new HttpError(error.status, error.message);
      throw error;
    }
  });

  // Everything a client needs before its first datagram: the rules' tile data
  // (collision and looks, so prediction uses the server's exact table) and the world's extent.
  http.route("GET", "/api/world", () => {
    const world = game.world;
    return {
      body: {
        name: world.name,
        protocolVersion: PROTOCOL_VERSION,
        mapWidth: world.mapWidth,
        mapHeight: world.mapHeight,
        chunksX: world.chunksX,
        chunksY: world.chunksY,
        tickHz: game.options.tickHz,
        tiles: world.tileInfo,
      },
    };
  });

  http.route("GET", "/api/status", () => ({ body: game.status() }));

  http.route("GET", "/metrics", () => ({
    body: prometheusText(game),
    contentType: "text/plain; version=0.0.4; charset=utf-8",
  }));
}
