// The browser's first contact: the game server serves the built client (dist/client/) from the
// same origin as its API, WebSocket and WebRTC signalling, so the page needs no configuration
// and no cross-origin rules. Installed as the HTTP API's fallback for paths no route claims.
import { createReadStream, existsSync } from "node:fs";
import { stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, resolve, sep } from "node:path";
import type { FallbackHandler } from "../http/http-api.js";

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".tga": "image/x-tga",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".map": "application/json",
  ".txt": "text/plain; charset=utf-8",
};

export const CLIENT_NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Forgotten Caves: client not built</title></head>
<body>
<h1>Forgotten Caves</h1>
<p>The game server is running, but the browser client has not been built yet.</p>
<p>Build it into <code>dist/client/</code> with <code>node scripts/build-client.mjs</code> (Vite),
then reload this page. The API (<code>/api/status</code>) works without it.</p>
</body>
</html>
`;

/** The content type for a file name, by extension. */
export function contentTypeFor(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
}

/**
 * The file under `root` a request path names, or undefined when it names none: "/" and paths
 * ending in "/" mean index.html; anything escaping `root` (.., encoded or not) or holding a NUL is refused.
 */
export function resolveStaticPath(root: string, requestPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(requestPath);
  } catch {
    return undefined; // malformed %-escape
  }
  if (decoded.includes("\0") || decoded.includes("\\")) return undefined;
  if (decoded.endsWith("/")) decoded += "index.html";
  const base = resolve(root);
  const file = resolve(base, "." + decoded);
  return file.startsWith(base + sep) ? file : undefined;
}

/**
 * Serves GET and HEAD requests from `root`. Missing files fall through (the API answers 404 JSON).
 * When `root` does not exist, "/" answers a page saying how to build the client.
 */
export function staticFiles(root: string): FallbackHandler {
  return async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (!existsSync(root)) {
      if (path !== "/" && path !== "/index.html") return false;
      res.writeHead(200, headers("text/html; charset=utf-8", Buffer.byteLength(CLIENT_NOT_BUILT_PAGE)));
      res.end(req.method === "GET" ? CLIENT_NOT_BUILT_PAGE : undefined);
      return true;
    }
    const file = resolveStaticPath(root, path);
    if (!file) return false;
    let size: number;
    let etag: string;
    try {
      const info = await stat(file);
      if (!info.isFile()) return false;
      size = info.size;
      etag = `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
    } catch {
      return false;
    }
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, { etag, "cache-control": "no-cache" });
      res.end();
      return true;
    }
    res.writeHead(200, { ...headers(contentTypeFor(file), size), etag });
    if (req.method === "HEAD") {
      res.end();
      return true;
    }
    const stream = createReadStream(file);
    stream.on("error", () => res.destroy());
    stream.pipe(res);
    return true;
  };
}

function headers(contentType: string, size: number): Record<string, string> {
  return {
    "content-type": contentType,
    "content-length": String(size),
    // Revalidate on every load (cheap, by ETag): a rebuilt client must never meet a stale cached module.
    "cache-control": "no-cache",
    "x-content-type-options": "nosniff",
  };
}
