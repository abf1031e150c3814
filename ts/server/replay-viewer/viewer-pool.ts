// The replay viewers a running server starts for the operators' console (docs/recording.md § Watching from
// the console): each a process of its own (ts/tools/replay-viewer.ts) serving one recording's replay on 127.0.0.1,
// reached only through this server's own HTTP, under /api/admin/viewers/ID/, behind the admin login. So
// the operator's browser, wherever it is, reaches the viewer where it reaches the console, and no one
// without the login reaches it at all (its port is this machine's alone).
//
// Why a process and not the server's own: a replay is a whole world made again (wasm memory, a SQLite
// database, the scripts' Lua states, a level worker) that runs as fast as it can while it seeks. In the
// server's event loop it would take the live world's tick time; as a process the system shares the cores,
// a replay that fails or runs out of memory takes nothing else with it, and stopping it frees all it held.
//
// Bounded: at most `maxViewers` at once (a start beyond is refused in words); one unused for `idleMs`
// (no request through it: an open page asks where the replay is four times a second) is stopped, as is
// every one when the server closes. A viewer's process also ends by itself when this one is gone.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname, sep } from "node:path";
import { isSea } from "node:sea";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import type { Logger } from "../ops/log.js";
import {
  answerError,
  headersPassedOn,
  passRequestOn,
  passUpgradeOn,
  type PassOnTarget,
  refuseUpgrade,
} from "../http/pass-on.js";
import type { ViewerMessage } from "./viewer-message.js";

/** Where the viewers are reached: /api/admin/viewers/ID/ is viewer ID's own root. */
export const VIEWERS_PATH = "/api/admin/viewers";

const SOURCE = fileURLToPath(new URL("../../tools/replay-viewer.ts", import.meta.url));
const BUNDLE = fileURLToPath(new URL("../../../build/node/replay-viewer.mjs", import.meta.url));
/** A viewer told to stop that has not ended this long after is killed. */
const STOP_GRACE_MS = 5000;
/** How often idle viewers are looked for. */
const SWEEP_MS = 10_000;
/** Headers never passed on to a viewer: the admin's login stays here. */
const WITHHELD = new Set(["authorization", "cookie", "proxy-authorization"]);

export class ViewerError extends Error {
  constructor(
    /** The HTTP status a refusal is answered with. */
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ViewerPoolOptions {
  /** Viewers at once (`--max-replay-viewers`): each is a replayed world, as costly as the world it recorded. */
  readonly maxViewers: number;
  /** A viewer nothing went through for this long is stopped. */
  readonly idleMs: number;
  /** How long a viewer may take to read its recording and start serving (a long recording is read whole). */
  readonly startTimeoutMs: number;
  /** What each viewer's id starts with (a cluster's region: `r1-`, so a gateway knows where it runs); default none. */
  readonly idPrefix?: string;
  /** The built browser client the viewers serve. */
  readonly clientDir: string;
  /** The map the recordings were made on (this server's). */
  readonly mapPath: string;
  readonly log: Logger;
}

/** One viewer as listed. */
export interface ViewerListing {
  readonly id: string;
  /** The recording it replays. */
  readonly name: string;
  /** Its process. */
  readonly pid: number;
  readonly startedAt: string;
  /** Seconds since anything went through it. */
  readonly idleSeconds: number;
  readonly firstTick: number;
  readonly lastTick: number;
  /** The replay's page, through this server: what the console opens in a frame. */
  readonly page: string;
}

interface Viewer {
  readonly id: string;
  readonly name: string;
  readonly child: ChildProcess;
  readonly startedAt: Date;
  httpPort: number;
  firstTick: number;
  lastTick: number;
  lastUsedMs: number;
  /** Links passed on to it (WebSockets), closed with it. */
  readonly sockets: Set<Duplex>;
}

export class ReplayViewers {
  private readonly viewers = new Map<string, Viewer>();
  /** Starts under way, which count against the bound too. */
  private starting = 0;
  private readonly sweeper: ReturnType<typeof setInterval>;
  private closed = false;

  constructor(private readonly options: ViewerPoolOptions) {
    this.sweeper = setInterval(
      () => this.sweep(performance.now()),
      Math.min(SWEEP_MS, Math.max(250, options.idleMs / 2)),
    );
    this.sweeper.unref();
  }

  get size(): number {
    return this.viewers.size;
  }

  /**
   * Starts a viewer of recording `name` (the file at `path`); resolves with it once it serves. Throws
   * ViewerError: 503 when `maxViewers` run (or start) already, 422 with the replay tool's words for a file
   * that is not a whole recording, 500 when the viewer could not start.
   */
  async start(name: string, path: string): Promise<ViewerListing> {
    const { maxViewers, startTimeoutMs, log } = this.options;
    if (this.closed) throw new ViewerError(503, "the server is stopping");
    // The single file (docs/packaging.md) is its own node: it carries no viewer to start as a process yet.
    if (isSea()) {
      throw new ViewerError(
        501,
        "this server is the single-file build, which cannot start replay viewers yet: download the recording and " +
          "watch it with npm run -s replay -- watch FILE",
      );
    }
    if (this.viewers.size + this.starting >= maxViewers) {
      throw new ViewerError(
        503,
        `${maxViewers} replay viewer${maxViewers === 1 ? " runs" : "s run"} already, the most this server runs at once ` +
          `(--max-replay-viewers): close one first`,
      );
    }
    this.starting++;
    const child = spawn(
      process.execPath,
      [...viewerArgs(), "--file", path, "--client", this.options.clientDir, "--map", this.options.mapPath],
      { stdio: ["ignore", "inherit", "inherit", "ipc"] },
    );
    try {
      const ready = await new Promise<Extract<ViewerMessage, { type: "ready" }>>((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill("SIGKILL");
          reject(new ViewerError(500, `the viewer did not start within ${Math.round(startTimeoutMs / 1000)} s`));
        }, startTimeoutMs);
        child.once("message", (message: ViewerMessage) => {
          clearTimeout(timer);
          if (message.type === "ready") resolve(message);
          else reject(new ViewerError(422, message.message));
        });
        child.once("error", (error) => {
          clearTimeout(timer);
          reject(new ViewerError(500, `the viewer could not start: ${error.message}`));
        });
        child.once("exit", (code, signal) => {
          clearTimeout(timer);
          reject(new ViewerError(500, `the viewer stopped before it served (${signal ?? `exit ${code}`})`));
        });
      });
      const id = `${this.options.idPrefix ?? ""}${randomBytes(8).toString("hex")}`;
      const viewer: Viewer = {
        id,
        name,
        child,
        startedAt: new Date(),
        httpPort: ready.httpPort,
        firstTick: ready.firstTick,
        lastTick: ready.lastTick,
        lastUsedMs: performance.now(),
        sockets: new Set(),
      };
      this.viewers.set(id, viewer);
      child.once("exit", (code, signal) => {
        if (this.viewers.get(id) !== viewer) return;
        this.viewers.delete(id);
        for (const socket of viewer.sockets) socket.destroy();
        log.warn("replay viewer ended by itself", { id, name, code, signal });
      });
      log.info("replay viewer started", { id, name, port: ready.httpPort });
      return this.listing(viewer, performance.now());
    } catch (error) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      throw error;
    } finally {
      this.starting--;
    }
  }

  /** The viewers running, oldest first. */
  list(): ViewerListing[] {
    const nowMs = performance.now();
    return [...this.viewers.values()].map((viewer) => this.listing(viewer, nowMs));
  }

  /** Stops viewer `id` (its process told to end, killed after a grace); false when there is none. */
  stop(id: string, reason: string): boolean {
    const viewer = this.viewers.get(id);
    if (viewer === undefined) return false;
    this.viewers.delete(id);
    for (const socket of viewer.sockets) socket.destroy();
    const child = viewer.child;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      killer.unref();
      child.once("exit", () => clearTimeout(killer));
    }
    this.options.log.info("replay viewer stopped", { id, name: viewer.name, reason });
    return true;
  }

  /** The viewer a path under VIEWERS_PATH names, and the path within it; null when the path is not a viewer's. */
  static route(url: string): { id: string; path: string } | null {
    const prefix = `${VIEWERS_PATH}/`;
    if (!url.startsWith(prefix)) return null;
    const rest = url.slice(prefix.length);
    const slash = rest.indexOf("/");
    if (slash <= 0) return null;
    return { id: rest.slice(0, slash), path: rest.slice(slash) };
  }

  /**
   * Passes an HTTP request for `id` at `path` (its own, with the query) to the viewer and its answer back.
   * The caller has checked the admin login; the login itself is not passed on.
   */
  proxy(id: string, path: string, req: IncomingMessage, res: ServerResponse): void {
    const viewer = this.viewers.get(id);
    if (viewer === undefined) return answerError(res, 404, "no such replay viewer (it was closed, or stopped unused)");
    viewer.lastUsedMs = performance.now();
    passRequestOn(this.target(viewer, path, req, false), req, res, "the replay viewer");
  }

  /** Passes a WebSocket upgrade for `id` at `path` to the viewer, then the link's bytes both ways. */
  upgrade(id: string, path: string, req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const viewer = this.viewers.get(id);
    if (viewer === undefined) return refuseUpgrade(socket, 404, "Not Found");
    viewer.lastUsedMs = performance.now();
    passUpgradeOn(this.target(viewer, path, req, true), socket, head, {
      opened: () => viewer.sockets.add(socket),
      closed: () => viewer.sockets.delete(socket),
      // The link's traffic keeps the viewer in use.
      data: () => (viewer.lastUsedMs = performance.now()),
    });
  }

  private target(viewer: Viewer, path: string, req: IncomingMessage, upgrade: boolean): PassOnTarget {
    return { host: "127.0.0.1", port: viewer.httpPort, path, headers: headersPassedOn(req.headers, WITHHELD, upgrade) };
  }

  /** Stops the viewers unused for `idleMs` as of `nowMs`. */
  sweep(nowMs: number): void {
    for (const viewer of [...this.viewers.values()]) {
      if (nowMs - viewer.lastUsedMs >= this.options.idleMs) this.stop(viewer.id, "unused");
    }
  }

  /** Stops every viewer and waits until their processes have ended. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const children = [...this.viewers.values()].map((viewer) => viewer.child);
    const ended = children.map((child) =>
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise((resolve) => child.once("exit", resolve)),
    );
    for (const viewer of [...this.viewers.values()]) this.stop(viewer.id, "the server stopped");
    await Promise.all(ended);
  }

  private listing(viewer: Viewer, nowMs: number): ViewerListing {
    return {
      id: viewer.id,
      name: viewer.name,
      pid: viewer.child.pid ?? 0,
      startedAt: viewer.startedAt.toISOString(),
      idleSeconds: Math.floor((nowMs - viewer.lastUsedMs) / 1000),
      firstTick: viewer.firstTick,
      lastTick: viewer.lastTick,
      // Over the WebSocket: a data channel would need the viewer's own UDP ports, which are this machine's alone.
      page: `${VIEWERS_PATH}/${viewer.id}/?replay&transport=websocket`,
    };
  }
}

/**
 * How a viewer's process is started: as this server runs — node on the prebuilt bundle when this server
 * runs from build/node (`npm start`: scripts/build-node.mjs builds both), else tsx on the source.
 */
function viewerArgs(): string[] {
  const entry = process.argv[1];
  const fromBundles = entry !== undefined && existsSync(entry) && realpathSync(entry).startsWith(dirname(BUNDLE) + sep);
  return fromBundles && existsSync(BUNDLE) ? ["--enable-source-maps", BUNDLE] : ["--import", "tsx", SOURCE];
}
