// The operators' console's replay viewers through the admin API (docs/recording.md § Watching from the
// console), behind the admin token like every /api/admin route:
//   POST /api/admin/recordings/watch {"name"}  starts a viewer of that recording (or cut): its page is
//                                              /api/admin/viewers/ID/?replay, through this server
//   GET  /api/admin/viewers                    the viewers running
//   POST /api/admin/viewers/stop {"id"}        stops one (the console does when its frame is closed)
//   ANY  /api/admin/viewers/ID/…               the viewer's own page, files, routes and WebSocket, passed on
// Starts and stops are in the admin log. The viewers themselves are viewer-pool.ts.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { AdminError } from "../admin/admin-service.js";
import { type AdminAuthorizer, objectBody } from "../http/admin-routes.js";
import { type HttpApi, HttpError } from "../http/http-api.js";
import { refuseForeignOrigin } from "../http/http-guard.js";
import { findRecording } from "../http/recording-routes.js";
import { ReplayViewers, VIEWERS_PATH, ViewerError } from "./viewer-pool.js";

export interface ViewerRoutesOptions {
  /** The recordings' folder (--record DIR): the names a start may give. */
  readonly dir: string;
  /** Which files of the folder are this server's (as the recording routes' `owns`); absent: all of them. */
  readonly owns?: (name: string) => boolean;
  /** Writes a done action to the admin log (AdminService.noted). */
  readonly noted: (action: string, request: Record<string, unknown>, result: Record<string, unknown>) => void;
}

/** What the server hands its fallback and its WebSocket transport: the viewers' own paths, passed on. */
export interface ViewerDoors {
  /** Handles a request under /api/admin/viewers/ID/ (after the admin login); false for any other path. */
  request(req: IncomingMessage, res: ServerResponse): boolean;
  /** Takes a WebSocket upgrade under /api/admin/viewers/ID/ (refused without the login); false for any other. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
}

export function installViewerRoutes(
  http: HttpApi,
  authorize: AdminAuthorizer,
  viewers: ReplayViewers,
  options: ViewerRoutesOptions,
): ViewerDoors {
  const field = (body: unknown, name: string): string => {
    let value;
    try {
      value = objectBody(body)[name];
    } catch (error) {
      if (error instanceof AdminError) throw new HttpError(error.status, error.message);
      throw error;
    }
    if (typeof value !== "string") throw new HttpError(400, `"${name}" must be a string`);
    return value;
  };

  http.route("POST", "/api/admin/recordings/watch", async ({ body, raw }) => {
    authorize(raw, "recording watch");
    const name = field(body, "name");
    const found = findRecording(options.dir, name, options.owns);
    try {
      const viewer = await viewers.start(name, found.path);
      options.noted("recording watch", { name }, { id: viewer.id });
      return { body: viewer };
    } catch (error) {
      if (error instanceof ViewerError) throw new HttpError(error.status, error.message);
      throw error;
    }
  });
  http.route("GET", VIEWERS_PATH, ({ raw }) => {
    authorize(raw, "viewers");
    return { body: { viewers: viewers.list() } };
  });
  http.route("POST", `${VIEWERS_PATH}/stop`, ({ body, raw }) => {
    authorize(raw, "viewer stop");
    const id = field(body, "id");
    if (!viewers.stop(id, "closed")) throw new HttpError(404, `no replay viewer ${JSON.stringify(id)}`);
    options.noted("viewer stop", { id }, {});
    return { body: { stopped: id } };
  });

  return {
    request(req, res) {
      const route = ReplayViewers.route(req.url ?? "/");
      if (route === null) return false;
      // A refusal (HttpError) reaches the server's answer, with its login challenge.
      authorize(req, "viewer");
      viewers.proxy(route.id, route.path, req, res);
      return true;
    },
    upgrade(req, socket, head) {
      const route = ReplayViewers.route(req.url ?? "/");
      if (route === null) return false;
      // A page of another site could open the link with the operator's saved login (browsers send it).
      const foreign = refuseForeignOrigin(req, http.limits.allowedOrigins);
      if (foreign !== null) {
        socket.end(`HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
        socket.destroy();
        return true;
      }
      try {
        authorize(req, "viewer link");
      } catch {
        socket.end("HTTP/1.1 401 Unauthorized\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
        socket.destroy();
        return true;
      }
      viewers.upgrade(route.id, route.path, req, socket, head);
      return true;
    },
  };
}
