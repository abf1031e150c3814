// The operators' console (issue 43), its start: `GET /admin`, a page showing the whole world's map with every
// player and creature on it, refreshed each second, behind the admin token like the admin API (nothing is
// served without it: 401, and the browser's own login prompt, the token as its password). The page reads
// two routes, also behind the token: `GET /api/admin/map`, the map's cells once (one byte each: 0 blocked,
// 1 walkable), and `GET /api/admin/world`, where everyone is now. docs/server.md § Admin.
import type { IncomingMessage } from "node:http";
import type { HttpApi } from "./http-api.js";
import type { AdminAuthorizer } from "./admin-routes.js";
import { ADMIN_CONSOLE_PAGE } from "./admin-console-page.js";

/** The most creatures one answer lists (a world of 100,000 would be megabytes a second); the count says the rest. */
export const CONSOLE_CREATURES_MAX = 20_000;

/** What the console shows of the game (the Game is one). */
export interface ConsoleWorld {
  readonly tick: number;
  readonly world: {
    readonly name: string;
    readonly mapWidth: number;
    readonly mapHeight: number;
    walkable(x: number, y: number): boolean;
  };
  readonly entities: {
    readonly size: number;
    values(): Iterable<{ id: number; name: string; typeId: number; x: number; y: number; hp: number; hpMax: number }>;
  };
  readonly sessions: { byEntityId(id: number): { readonly nick: string } | undefined };
}

export function installAdminConsole(http: HttpApi, authorize: AdminAuthorizer, game: ConsoleWorld): void {
  const guarded = (action: string, raw: IncomingMessage) => authorize(raw, action);
  http.route("GET", "/admin", ({ raw }) => {
    guarded("console", raw);
    return { body: ADMIN_CONSOLE_PAGE, contentType: "text/html; charset=utf-8" };
  });
  // The map's cells change only when a map is reloaded (--watch) or a door opens; the page asks once.
  http.route("GET", "/api/admin/map", ({ raw }) => {
    guarded("map", raw);
    const { mapWidth: width, mapHeight: height } = game.world;
    const cells = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) cells[y * width + x] = game.world.walkable(x, y) ? 1 : 0;
    }
    return { body: cells, contentType: "application/octet-stream", headers: { "x-map-width": String(width) } };
  });
  http.route("GET", "/api/admin/world", ({ raw }) => {
    guarded("world", raw);
    const players: { entityId: number; nick: string; x: number; y: number; hp: number; hpMax: number }[] = [];
    // Creatures as [id, x, y, hp, hpMax, typeId]: the bulk of the answer, kept compact; their kinds' names once.
    const creatures: number[][] = [];
    const kinds: Record<number, string> = {};
    let creatureCount = 0;
    for (const entity of game.entities.values()) {
      const session = game.sessions.byEntityId(entity.id);
      if (session !== undefined) {
        players.push({
          entityId: entity.id,
          nick: session.nick,
          x: entity.x,
          y: entity.y,
          hp: entity.hp,
          hpMax: entity.hpMax,
        });
      } else {
        creatureCount++;
        if (creatures.length < CONSOLE_CREATURES_MAX) {
          creatures.push([entity.id, entity.x, entity.y, entity.hp, entity.hpMax, entity.typeId]);
          kinds[entity.typeId] ??= entity.name;
        }
      }
    }
    return {
      body: {
        tick: game.tick,
        map: { name: game.world.name, width: game.world.mapWidth, height: game.world.mapHeight },
        players,
        creatures,
        creatureCount,
        kinds,
      },
    };
  });
}
