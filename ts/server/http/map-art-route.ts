// The map atlas over HTTP (docs/server.md § Map art): GET /api/map-art/<hash>
// sends the RGB332 atlas pixels that map-atlas.ts built, gzipped once at start
// when the client accepts it. The URL names the content hash, so the reply may
// be cached for ever; a changed map is a new URL.
import { gzipSync } from "node:zlib";
import type { HttpApi, HttpReply } from "./http-api.js";
import type { MapArt } from "../map/map-atlas.js";

/** The path the atlas of `art` is served at. */
export function mapArtPath(art: Pick<MapArt, "hash">): string {
  return `/api/map-art/${art.hash}.rgb332`;
}

/** What /api/world says of the map's art: null for the client's built-in art. */
export function mapArtDescription(art: MapArt | null): Record<string, unknown> | null {
  if (!art) return null;
  return {
    url: mapArtPath(art),
    tileSizePx: art.tileWidthPx,
    columns: art.columns,
    tileCount: art.tileCount,
    bytes: art.pixels.length,
  };
}

/** Registers the atlas route; nothing for a map with the built-in art. */
export function installMapArtRoute(http: HttpApi, art: MapArt | null): void {
  if (!art) return;
  const plain = Buffer.from(art.pixels.buffer, art.pixels.byteOffset, art.pixels.byteLength);
  const gzipped = gzipSync(plain);
  const headers = { "cache-control": "public, max-age=31536000, immutable" };
  http.route("GET", mapArtPath(art), ({ raw }): HttpReply => {
    const acceptsGzip = /\bgzip\b/.test(String(raw.headers["accept-encoding"] ?? ""));
    return acceptsGzip
      ? { body: gzipped, contentType: "application/octet-stream", headers: { ...headers, "content-encoding": "gzip" } }
      : { body: plain, contentType: "application/octet-stream", headers };
  });
}
