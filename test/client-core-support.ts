// Shared fixtures for the client-core tests: real encoded server packets, a
// scripted transport that records what the client sends, and a test world.
import { CHUNK_TILE_COUNT } from "../ts/constants.js";
import { connectGuest, GameClient, type GameClientOptions } from "../ts/client/core/game-client.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { loadCore } from "../ts/wasm/node.js";
import type { Transport } from "../ts/client/core/transport.js";
import type { GuestSession, WorldInfo } from "../ts/client/core/session-api.js";
import {
  type ActionPacket,
  chunkId,
  createStatePacket,
  decodePacketPlain,
  encodeChunkFromTiles,
  encodePing,
  encodeState,
  type EntityEntry,
  encodeEntityDetail,
  entityChecksum,
  ENTITY_FLAG_INTERACTABLE,
  ENTITY_FLAG_STATIC,
  manifestChunkId,
  MANIFEST_ENTRIES,
  type Packet,
  splitEntities,
} from "../ts/protocol/index.js";

export const FLOOR = 1;
export const GRAVEL = 2;
export const WALL = 5;

/** The tiles a test world serves at /api/world. */
export const TEST_WORLD: WorldInfo = {
  name: "scripted",
  mapWidth: 96,
  mapHeight: 96,
  chunksX: 3,
  chunksY: 3,
  tickHz: 24,
  tiles: [
    { id: FLOOR, collides: false, opaque: false, look: FLOOR },
    { id: GRAVEL, collides: false, opaque: false, look: GRAVEL },
    { id: WALL, collides: true, opaque: true, look: WALL },
  ],
  kinds: [],
  items: [],
};

export function testSession(entityId = 7, token = 0x1122334455667788n): GuestSession {
  return { nick: "Ada", token, entityId, protocolVersion: 1, udpPort: 7777 };
}

/** A StatePacket around chunk (cx, cy); `version(cx, cy)` gives each manifest chunk's version (0 = no chunk). */
export function stateDatagram(
  tick: number,
  cx: number,
  cy: number,
  checksum: number,
  playerEntityId = 7,
  version: (cx: number, cy: number) => number = (x, y) => (x >= 0 && y >= 0 && x < 3 && y < 3 ? 1 : 0),
): Uint8Array {
  const state = createStatePacket();
  state.tick = tick;
  state.playerEntityId = playerEntityId;
  state.entityChecksum = checksum;
  const centre = chunkId(cx, cy);
  for (let index = 0; index < MANIFEST_ENTRIES; index++) {
    const id = manifestChunkId(centre, index);
    state.chunks[index].chunkId = id;
    state.chunks[index].version = version(cx + (index % 3) - 1, cy + Math.floor(index / 3) - 1);
  }
  const out = new Uint8Array(72);
  encodeState(state, out);
  return out;
}

export function player(id: number, x: number, y: number): EntityEntry {
  return { id, typeId: 0, x, y, hp: 100, hpMax: 100, elo: 1000, flags: 0, meta: [] };
}

/** A sign post as the server lists it: static and interactable, the entity the dialog and hover tests use. */
export function sign(id: number, x: number, y: number): EntityEntry {
  return {
    id,
    typeId: 3,
    x,
    y,
    hp: 0,
    hpMax: 0,
    elo: 0,
    flags: ENTITY_FLAG_STATIC | ENTITY_FLAG_INTERACTABLE,
    meta: [],
  };
}

/** A tick's EntityPackets as the server splits them, and their checksum (decision 9). */
export function entityUpdate(tick: number, entries: EntityEntry[]): { datagrams: Uint8Array[]; checksum: number } {
  const datagrams = splitEntities(entries, tick);
  return { datagrams, checksum: entityChecksum(datagrams) };
}

/** A ChunkPacket for chunk (cx, cy) whose tiles come from `tile(x, y)` in world coordinates. */
export function chunkDatagram(cx: number, cy: number, version: number, tile: (x: number, y: number) => number) {
  const tiles = new Uint16Array(CHUNK_TILE_COUNT);
  for (let y = 0; y < 32; y++) for (let x = 0; x < 32; x++) tiles[y * 32 + x] = tile(cx * 32 + x, cy * 32 + y);
  const out = new Uint8Array(1200);
  return out.slice(0, encodeChunkFromTiles(0, chunkId(cx, cy), version, tiles, out));
}

export function pongDatagram(timestampMs: bigint): Uint8Array {
  const out = new Uint8Array(14);
  encodePing({ type: "pong", clientType: 0, timestampMs }, out);
  return out;
}

export function nameDatagram(entityId: number, name: string, tick = 1): Uint8Array {
  const out = new Uint8Array(1200);
  const size = encodeEntityDetail(
    { type: "entity_detail", clientType: 0, tick, entityId, meta: [{ kind: "name", value: name }] },
    out,
  );
  return out.slice(0, size);
}

/** A transport under the test's control: records what the client sends and delivers what the test injects. */
export class ScriptedLink implements Transport {
  readonly name = "udp" as const;
  readonly sent: Packet[] = [];
  closed = false;
  private handler: (datagram: Uint8Array) => void = () => {};
  private closeHandler: (reason: string) => void = () => {};

  send(datagram: Uint8Array): void {
    const decoded = decodePacketPlain(datagram);
    if (!decoded.ok) throw new Error(`client sent an undecodable datagram: ${decoded.error.message}`);
    this.sent.push(decoded.packet);
  }
  onDatagram(handler: (datagram: Uint8Array) => void): void {
    this.handler = handler;
  }
  onClose(handler: (reason: string) => void): void {
    this.closeHandler = handler;
  }
  close(): void {
    this.closed = true;
  }
  deliver(...datagrams: Uint8Array[]): void {
    for (const datagram of datagrams) this.handler(datagram);
  }
  /** Simulates the link reporting its own death (a closed WebSocket or data channel). */
  die(reason: string): void {
    this.closeHandler(reason);
  }
  /** ActionPackets sent so far (optionally only since index `from` of `sent`). */
  actions(from = 0): ActionPacket[] {
    return this.sent.slice(from).filter((packet): packet is ActionPacket => packet.type === "action");
  }
  count(type: Packet["type"], from = 0): number {
    return this.sent.slice(from).filter((packet) => packet.type === type).length;
  }
}

/** A transport whose link can be cut in both directions (the datagrams simply vanish, as on a dead route). */
export function cuttable(inner: Transport): { transport: Transport; cut(): void } {
  let cut = false;
  return {
    transport: {
      name: inner.name,
      actionMac: inner.actionMac,
      send: (datagram) => {
        if (!cut) inner.send(datagram);
      },
      onDatagram: (handler) =>
        inner.onDatagram((datagram) => {
          if (!cut) handler(datagram);
        }),
      close: () => inner.close(),
    },
    cut: () => {
      cut = true;
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether every chunk of the client's latest manifest that exists is held at the manifest's version. */
export function neighbourhoodComplete(client: GameClient): boolean {
  const manifest = client.neighbourhood;
  return (
    !!manifest &&
    manifest.every((entry) => entry.version === 0 || client.chunks.version(entry.chunkId) === entry.version)
  );
}

/**
 * Drives clients in real time the way a bot does (update every ~10 ms) until
 * `done` holds; `each` runs after every round of updates (for invariants).
 * Throws, naming `what`, after `timeoutMs`.
 */
export async function drive(
  clients: readonly { update(): void }[],
  what: string,
  done: () => boolean,
  timeoutMs = 10_000,
  each: () => void = () => {},
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    for (const client of clients) client.update();
    each();
    if (done()) return;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

/**
 * Joins the real server at `baseUrl` as guest `nick` over UDP loopback (through `wrap`, e.g. an impaired
 * link), adds the client to `clients` (for the suite's afterAll to close) and drives it until it plays.
 */
export async function joinOverUdp(
  baseUrl: string,
  nick: string,
  clients: GameClient[],
  wrap: (udp: Transport) => Transport = (udp) => udp,
  options: Partial<GameClientOptions> = {},
): Promise<GameClient> {
  const connection = await connectGuest(baseUrl, nick, async (session) =>
    wrap(await UdpNodeTransport.connect("127.0.0.1", session.udpPort, session.key)),
  );
  const client = GameClient.create({ core: await loadCore(), ...connection, options });
  clients.push(client);
  await drive([client], `${nick} playing`, () => client.state === "playing" && client.confirmed !== null);
  return client;
}
