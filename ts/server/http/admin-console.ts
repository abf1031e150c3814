// The operators' console (issue 43): `GET /admin`, a page showing the whole world's map with every player
// and creature on it, refreshed each second, behind the admin token like the admin API (nothing is served
// without it: 401, and the browser's own login prompt, the token as its password). The page reads these
// routes, also behind the token: `GET /api/admin/map`, the map's cells once (one byte each: 0 blocked,
// 1 walkable); `GET /api/admin/world`, where everyone is now; `GET /api/admin/entity?id=N`, one entity as
// the panel shows it. It acts through the admin API's own routes (admin-routes.ts), so every action takes
// the one path into the admin service and its log. docs/server.md § Admin.
import type { IncomingMessage } from "node:http";
import type { HttpApi } from "./http-api.js";
import type { AdminAuthorizer } from "./admin-routes.js";
import { HttpError } from "./http-api.js";
import { ADMIN_CONSOLE_PAGE } from "./admin-console-page.js";
import { levelOf } from "../combat/experience.js";
import type { HealthHistory } from "../ops/health-history.js";
import { UPLOT_FILES, uplotFile } from "./admin-console-assets.js";
import { type ConsoleWorld, ConsoleWorldAnswer } from "./console-world-answer.js";

// What the console reads of the game is declared beside the answer built from it (one way: this file → that one).
export type { ConsoleGround, ConsoleWorld } from "./console-world-answer.js";

/** The server's health over the last hour (http/health-sampler.ts), and how often it is sampled. */
export interface ConsoleHealth {
  readonly history: Pick<HealthHistory, "since" | "capacity">;
  readonly intervalMs: number;
}

export function installAdminConsole(
  http: HttpApi,
  authorize: AdminAuthorizer,
  game: ConsoleWorld,
  health: ConsoleHealth,
): void {
  const guarded = (action: string, raw: IncomingMessage) => authorize(raw, action);
  http.route("GET", "/admin", ({ raw }) => {
    guarded("console", raw);
    return { body: ADMIN_CONSOLE_PAGE, contentType: "text/html; charset=utf-8" };
  });
  for (const [path, { file, contentType }] of Object.entries(UPLOT_FILES)) {
    http.route("GET", path, ({ raw }) => {
      guarded("console", raw);
      return { body: uplotFile(file), contentType };
    });
  }
  // The samples after `since` (ms, the newest the page holds): a page open for hours asks for a few each time.
  http.route("GET", "/api/admin/history", ({ raw }) => {
    guarded("history", raw);
    const sinceParam = new URL(raw.url ?? "/", "http://localhost").searchParams.get("since");
    if (sinceParam !== null && !/^\d{1,16}$/.test(sinceParam)) {
      throw new HttpError(400, "since must be a time in ms (a whole number)");
    }
    return {
      body: {
        intervalMs: health.intervalMs,
        capacity: health.history.capacity,
        ...health.history.since(sinceParam === null ? undefined : Number(sinceParam)),
      },
    };
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
  // One entity for the console's panel: a player as the admin API lists it, a creature by its kind.
  http.route("GET", "/api/admin/entity", ({ raw }) => {
    guarded("entity", raw);
    const idParam = new URL(raw.url ?? "/", "http://localhost").searchParams.get("id") ?? "";
    const id = Number(idParam);
    if (!/^\d{1,10}$/.test(idParam) || id < 1) throw new HttpError(400, "id must be an entity id (a positive integer)");
    const player = game.admin.player(id);
    if (player !== null) return { body: { kind: "player", ...player } };
    const entity = game.entities.get(id);
    if (entity === undefined) throw new HttpError(404, `entity ${id} is not in the world (it left, or was removed)`);
    return {
      body: {
        kind: "creature",
        entityId: entity.id,
        name: entity.name,
        typeId: entity.typeId,
        x: entity.x,
        y: entity.y,
        hp: entity.hp,
        hpMax: entity.hpMax,
        level: levelOf(entity),
      },
    };
  });
  // Built at most once per WORLD_ANSWER_MAX_AGE_MS and shared by every console that asks (console-world-answer.ts).
  const worldAnswer = new ConsoleWorldAnswer(game);
  http.route("GET", "/api/admin/world", ({ raw }) => {
    guarded("world", raw);
    return { body: worldAnswer.current(), contentType: "application/json" };
  });
}
