// The HTTP half of joining (docs/server.md § HTTP API): POST /api/guest for a
// session, GET /api/world for the rules' tile data, NPC kinds and items. Uses the platform fetch,
// so it runs unchanged in Node and in the browser.
import { PROTOCOL_VERSION } from "../../protocol/header.js";
import { CLIENT_READS } from "../../protocol/reads.js";
import { type ItemDef, parseItems } from "./item-catalogue.js";
import { type NpcKind, parseKinds } from "./kinds.js";

/** What POST /api/guest grants. */
export interface GuestSession {
  nick: string;
  /** The auth_token as a u64 value (the server sends it as 16 hex digits; LE on the wire). */
  token: bigint;
  /**
   * The session key (32 bytes, sent as 64 hex digits) a UDP link tags ActionPackets with
   * (docs/protocol.md § 6.1); undefined from a server that sends none.
   */
  key?: Uint8Array;
  entityId: number;
  protocolVersion: number;
  udpPort: number;
  /**
   * The gateways of a cluster the session may go on through when its own stops answering, its own first
   * (docs/protocol.md § 6.2); absent: one server.
   */
  gateways?: GatewayAddress[];
}

/** A gateway of a cluster: at its `url` when the join named one, else on the host the client joined through. */
export interface GatewayAddress {
  httpPort: number;
  udpPort: number;
  /** Its public base URL (an http(s) origin): where a browser reaches it, and the host of its udpPort. */
  url?: string;
}

/** The most characters of a gateway's url accepted. */
const MAX_GATEWAY_URL_CHARS = 256;

export interface WorldTile {
  id: number;
  name?: string;
  collides: boolean;
  opaque: boolean;
  look: number;
  /** A light source: its radius in tiles (1 … 8); absent: none (docs/world-time.md § Light). */
  light?: number;
  /** An animated id of the map's own art: atlas tile and duration per segment, looping (tile-animation.ts). */
  frames?: { look: number; durationMs: number }[];
  /** A stack id of the map's own art with tiles of over layers: the atlas tile drawn over the entities (map-art.ts). */
  over?: number;
}

/** The map's own art as GET /api/world names it (ts/server/http/map-art-route.ts): where its atlas is and its shape. */
export interface MapArtInfo {
  /** Path of the atlas on the server, content-hashed. */
  url: string;
  tileSizePx: number;
  /** Atlas tiles per row. */
  columns: number;
  /** Atlas tiles, tile 0 unused. */
  tileCount: number;
  bytes: number;
}

/** What GET /api/world describes. */
export interface WorldInfo {
  name: string;
  mapWidth: number;
  mapHeight: number;
  chunksX: number;
  chunksY: number;
  tickHz: number;
  tiles: WorldTile[];
  /** NPC kinds (kinds.ts); empty from a server that sends none. */
  kinds: NpcKind[];
  /** The item catalogue (item-catalogue.ts); empty from a server that sends none. */
  items: ItemDef[];
  /** The map's own art, or null / absent: the client draws the map with its built-in tiles. */
  art?: MapArtInfo | null;
}

export class SessionError extends Error {
  constructor(
    message: string,
    /** HTTP status, or 0 when the request never got an answer or the answer made no sense. */
    readonly status: number,
  ) {
    super(message);
  }
}

export type FetchFn = (input: string, init?: RequestInit) => Promise<Response>;

function url(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, "") + path;
}

async function readJson(response: Response, what: string): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new SessionError(`${what}: answer is not JSON (status ${response.status})`, response.status);
  }
  if (typeof body !== "object" || body === null) throw new SessionError(`${what}: answer is not an object`, 0);
  const record = body as Record<string, unknown>;
  if (!response.ok) {
    const reason = typeof record.error === "string" ? record.error : `status ${response.status}`;
    throw new SessionError(`${what}: ${reason}`, response.status);
  }
  return record;
}

function integerField(record: Record<string, unknown>, name: string, what: string): number {
  const value = record[name];
  if (typeof value !== "number" || !Number.isInteger(value)) throw new SessionError(`${what}: ${name} is missing`, 0);
  return value;
}

/**
 * The `gateways` of a join answer: absent (undefined), or a list of ports, each with a url or not; throws
 * SessionError when malformed.
 */
export function parseGateways(value: unknown, what: string): GatewayAddress[] | undefined {
  if (value === undefined) return undefined;
  const port = (raw: unknown) => typeof raw === "number" && Number.isInteger(raw) && raw > 0 && raw <= 65535;
  if (!Array.isArray(value) || value.length > 64) throw new SessionError(`${what}: gateways must be a list`, 0);
  return value.map((entry: unknown) => {
    const { httpPort, udpPort, url } = (entry ?? {}) as Record<string, unknown>;
    if (!port(httpPort) || !port(udpPort)) throw new SessionError(`${what}: a gateway needs httpPort and udpPort`, 0);
    const gateway: GatewayAddress = { httpPort: httpPort as number, udpPort: udpPort as number };
    if (url === undefined) return gateway;
    const origin = typeof url === "string" && url.length <= MAX_GATEWAY_URL_CHARS ? originOf(url) : null;
    if (origin === null) throw new SessionError(`${what}: a gateway's url must be an http(s) origin`, 0);
    return { ...gateway, url: origin };
  });
}

/** `text` as an http(s) origin ("https://host:port", nothing after it), or null when it is something else. */
function originOf(text: string): string | null {
  try {
    const url = new URL(text);
    const web = url.protocol === "http:" || url.protocol === "https:";
    return web && url.href === `${url.origin}/` ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * Where `gateway` answers HTTP (and a browser's WebRTC signalling and WebSocket): its url, else the host
 * the client joined through (`joinedThrough`, a base URL) at the gateway's httpPort.
 */
export function gatewayBaseUrl(joinedThrough: string, gateway: GatewayAddress): string {
  if (gateway.url !== undefined) return gateway.url;
  const base = new URL(joinedThrough);
  base.port = String(gateway.httpPort);
  return base.origin;
}

/** The u64 value of a 16-hex-digit token. */
export function parseToken(hex: unknown): bigint {
  if (typeof hex !== "string" || !/^[0-9a-fA-F]{16}$/.test(hex)) {
    throw new SessionError(`join: token must be 16 hex digits`, 0);
  }
  return BigInt(`0x${hex}`);
}

/** The session key of a join answer: 64 hex digits, or absent (undefined). */
export function parseSessionKey(hex: unknown): Uint8Array | undefined {
  if (hex === undefined) return undefined;
  if (typeof hex !== "string" || !/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new SessionError(`join: key must be 64 hex digits`, 0);
  }
  const key = new Uint8Array(32);
  for (let index = 0; index < 32; index++) key[index] = parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return key;
}

/**
 * Joins as a guest. `replaces` is the token of this client's previous session (a rejoin after a
 * lost link), which the server then ends at once instead of leaving its entity standing until
 * eviction. Throws SessionError on refusal (e.g. 400 bad nick, 503 full) or a protocol mismatch.
 */
export async function joinGuest(
  baseUrl: string,
  nick: string,
  fetchFn: FetchFn = fetch,
  replaces?: bigint,
  appearance?: number,
): Promise<GuestSession> {
  let response: Response;
  // What this client reads beyond the seed's packets (docs/protocol.md § 19.1): whole wide chunks.
  const request: { nick: string; replaces?: string; appearance?: number; reads: readonly string[] } = {
    nick,
    reads: CLIENT_READS,
  };
  if (replaces !== undefined) request.replaces = replaces.toString(16).padStart(16, "0");
  if (appearance !== undefined) request.appearance = appearance;
  try {
    response = await fetchFn(url(baseUrl, "/api/guest"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
    });
  } catch (error) {
    throw new SessionError(`join: ${String(error)}`, 0);
  }
  const body = await readJson(response, "join");
  const protocolVersion = integerField(body, "protocolVersion", "join");
  if (protocolVersion !== PROTOCOL_VERSION) {
    throw new SessionError(`join: server speaks protocol ${protocolVersion}, this client ${PROTOCOL_VERSION}`, 0);
  }
  return {
    nick,
    token: parseToken(body.token),
    key: parseSessionKey(body.key),
    entityId: integerField(body, "entityId", "join"),
    protocolVersion,
    udpPort: integerField(body, "udpPort", "join"),
    gateways: parseGateways(body.gateways, "join"),
  };
}

/** Fetches the world description. Throws SessionError. */
export async function fetchWorld(baseUrl: string, fetchFn: FetchFn = fetch): Promise<WorldInfo> {
  let response: Response;
  try {
    response = await fetchFn(url(baseUrl, "/api/world"));
  } catch (error) {
    throw new SessionError(`world: ${String(error)}`, 0);
  }
  const body = await readJson(response, "world");
  if (!Array.isArray(body.tiles)) throw new SessionError("world: tiles is missing", 0);
  const tiles: WorldTile[] = [];
  for (const raw of body.tiles as unknown[]) {
    const tile = raw as Record<string, unknown>;
    if (typeof tile !== "object" || tile === null) throw new SessionError("world: a tile is not an object", 0);
    const id = integerField(tile, "id", "world tile");
    if (id < 0 || id > 0xffff) throw new SessionError(`world: tile id ${id} is not a u16`, 0);
    tiles.push({
      id,
      name: typeof tile.name === "string" ? tile.name : undefined,
      collides: tile.collides === true,
      opaque: tile.opaque === true,
      look: typeof tile.look === "number" ? tile.look : id,
      ...(typeof tile.light === "number" && Number.isInteger(tile.light) && tile.light > 0 && tile.light <= 8
        ? { light: tile.light }
        : {}),
      ...(Array.isArray(tile.frames) ? { frames: framesOf(tile.frames as unknown[], id) } : {}),
      // Checked against the atlas when it is installed (map-art.ts), like `look`.
      ...(typeof tile.over === "number" ? { over: tile.over } : {}),
    });
  }
  const kinds = parseKinds(body.kinds);
  if (typeof kinds === "string") throw new SessionError(`world: ${kinds}`, 0);
  const items = parseItems(body.items);
  if (typeof items === "string") throw new SessionError(`world: ${items}`, 0);
  const art = parseMapArt(body.art);
  return {
    name: typeof body.name === "string" ? body.name : "",
    mapWidth: integerField(body, "mapWidth", "world"),
    mapHeight: integerField(body, "mapHeight", "world"),
    chunksX: integerField(body, "chunksX", "world"),
    chunksY: integerField(body, "chunksY", "world"),
    tickHz: integerField(body, "tickHz", "world"),
    tiles,
    kinds,
    items,
    art,
  };
}

/** An animated tile's frames as sent; their looks are checked against the atlas when it is installed (map-art.ts). */
function framesOf(raw: unknown[], id: number): { look: number; durationMs: number }[] {
  return raw.map((frame) => {
    if (typeof frame !== "object" || frame === null)
      throw new SessionError(`world: tile ${id}'s frame is not an object`, 0);
    const entry = frame as Record<string, unknown>;
    return {
      look: integerField(entry, "look", "world tile frame"),
      durationMs: integerField(entry, "durationMs", "world tile frame"),
    };
  });
}

/** Validates /api/world's `art`: absent or null (an older server, or the built-in art) is null. */
function parseMapArt(raw: unknown): MapArtInfo | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "object" || Array.isArray(raw)) throw new SessionError("world: art is not an object", 0);
  const art = raw as Record<string, unknown>;
  if (typeof art.url !== "string" || !art.url.startsWith("/api/"))
    throw new SessionError("world: art.url is not an API path", 0);
  const info: MapArtInfo = {
    url: art.url,
    tileSizePx: integerField(art, "tileSizePx", "world art"),
    columns: integerField(art, "columns", "world art"),
    tileCount: integerField(art, "tileCount", "world art"),
    bytes: integerField(art, "bytes", "world art"),
  };
  if (info.tileSizePx < 4 || info.tileSizePx > 64 || info.columns <= 0 || info.tileCount <= 0 || info.bytes <= 0) {
    throw new SessionError("world: art's sizes are out of range", 0);
  }
  return info;
}

/** Fetches the map's atlas that /api/world named (RGB332 bytes). Throws SessionError. */
export async function fetchMapArt(baseUrl: string, art: MapArtInfo, fetchFn: FetchFn = fetch): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetchFn(url(baseUrl, art.url));
  } catch (error) {
    throw new SessionError(`map art: ${String(error)}`, 0);
  }
  if (!response.ok) throw new SessionError(`map art: status ${response.status}`, response.status);
  const pixels = new Uint8Array(await response.arrayBuffer());
  if (pixels.length !== art.bytes) {
    throw new SessionError(`map art: ${pixels.length} bytes, the world says ${art.bytes}`, 0);
  }
  return pixels;
}

// The TILE_FLAGS table the server decides movement with, built from
// /api/world's tiles by the same builder as the server's, so that prediction,
// send-time validation and A* use exactly the server's collision data.
export { tileFlagsTable } from "../../tile-flags.js";
