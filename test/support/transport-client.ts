// Helpers for the browser-transport tests: a running server on ports 0, datagrams built and
// decoded with the protocol library, and a recorder for what arrives over any link.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { Transport } from "../../ts/client/core/transport.js";
import { createActionPacket, encodeAction, sealAction } from "../../ts/protocol/action.js";
import { nodeActionMac } from "../../ts/protocol/action-mac-node.js";
import { parseSessionKey } from "../../ts/client/core/session-api.js";
import type { ChunkPacket } from "../../ts/protocol/chunk.js";
import type { EntityPacket } from "../../ts/protocol/entity.js";
import { decodePacketPlain, type Packet } from "../../ts/protocol/packet.js";
import { encodePing } from "../../ts/protocol/ping.js";
import type { StatePacket } from "../../ts/protocol/state.js";
import { Logger } from "../../ts/server/ops/log.js";
import { type RunningServer, type ServerOptions, startServer } from "../../ts/server/server.js";
import { writeTestMap } from "./test-map.js";

export interface TestServer {
  server: RunningServer;
  baseUrl: string;
  /** Closes the server and removes its map and client directory. */
  dispose(): Promise<void>;
}

/** Starts the real server in-process on 127.0.0.1, ports 0, on the test map; no built client unless given. */
export async function startTestServer(overrides: Partial<ServerOptions> = {}): Promise<TestServer> {
  const map = writeTestMap();
  const emptyDir = mkdtempSync(join(tmpdir(), "caves-no-client-"));
  try {
    const server = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: map.path,
      logger: new Logger("silent"),
      clientDir: join(emptyDir, "missing"),
      ...overrides,
    });
    return {
      server,
      baseUrl: `http://127.0.0.1:${server.httpPort}`,
      async dispose() {
        await server.close();
        map.dispose();
        rmSync(emptyDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    map.dispose();
    rmSync(emptyDir, { recursive: true, force: true });
    throw error;
  }
}

export interface Joined {
  token: string;
  /** The session key, 64 hex digits (docs/protocol.md § 6.1). */
  key: string;
  tokenValue: bigint;
  entityId: number;
  udpPort: number;
}

/** Nicks in play are unique (look-alikes are refused): each default join gets its own. */
let testers = 0;

export async function joinSession(baseUrl: string, nick = `tester${++testers}`): Promise<Joined> {
  const response = await fetch(`${baseUrl}/api/guest`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ nick }),
  });
  if (response.status !== 200) throw new Error(`join failed: ${response.status} ${await response.text()}`);
  const body = (await response.json()) as { token: string; key: string; entityId: number; udpPort: number };
  return { ...body, tokenValue: BigInt(`0x${body.token}`) };
}

/** A keep-alive with an empty cache, tagged with the session key at `sequence` (what may move a session). */
export function signedActionDatagram(joined: Joined, sequence: number): Uint8Array {
  const out = new Uint8Array(1200);
  out.set(actionDatagram(joined.tokenValue));
  const size = sealAction(out, 0, sequence, 0, 0, nodeActionMac(parseSessionKey(joined.key)!));
  return out.slice(0, size);
}

/** An ActionPacket datagram; the defaults make a keep-alive with an empty cache (asks for every chunk). */
export function actionDatagram(token: bigint, targetTick = 0, action = 0): Uint8Array {
  const packet = createActionPacket();
  packet.authToken = token;
  packet.targetTick = targetTick;
  packet.action = action;
  const out = new Uint8Array(1200);
  return out.slice(0, encodeAction(packet, out));
}

export function pingDatagram(timestampMs = 0n): Uint8Array {
  const out = new Uint8Array(14);
  encodePing({ type: "ping", clientType: 0, timestampMs }, out);
  return out;
}

/** Everything a link delivered, decoded. */
export class DatagramLog {
  readonly raw: Uint8Array[] = [];
  readonly packets: Packet[] = [];
  readonly states: StatePacket[] = [];
  readonly chunks: ChunkPacket[] = [];
  readonly entityPackets: EntityPacket[] = [];
  undecodable = 0;
  /** performance.now() of the first datagram, if any. */
  firstAtMs: number | undefined;

  readonly record = (datagram: Uint8Array): void => {
    this.firstAtMs ??= performance.now();
    this.raw.push(datagram);
    const decoded = decodePacketPlain(datagram);
    if (!decoded.ok) {
      this.undecodable++;
      return;
    }
    const packet = decoded.packet;
    this.packets.push(packet);
    if (packet.type === "state") this.states.push(packet);
    if (packet.type === "chunk") this.chunks.push(packet);
    if (packet.type === "entity") this.entityPackets.push(packet);
  };
}

/** Resolves with the predicate's value once it is truthy, polling every 10 ms; rejects after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  predicate: () => T | undefined | null | false,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = predicate();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * What every browser transport must deliver after a session's first datagram, checked the same way for each:
 * states and the chunks, all decodable, for the joined player, with every chunk of the manifest among them.
 */
export async function expectFirstView(log: DatagramLog, joined: Joined): Promise<void> {
  await waitFor("a state and the chunks", () => log.states.length >= 2 && log.chunks.length >= 4);
  expect(log.undecodable).toBe(0);
  expect(log.states.at(-1)!.playerEntityId).toBe(joined.entityId);
  const manifest = log.states.at(-1)!.chunks.filter((entry) => entry.version > 0);
  for (const entry of manifest) expect(log.chunks.some((chunk) => chunk.chunkId === entry.chunkId)).toBe(true);
}

/** The client Transport contract on close, the same for each: close() is safe twice and nothing more is delivered. */
export async function expectSilentAfterClose(transport: Transport, log: DatagramLog): Promise<void> {
  transport.close();
  transport.close();
  const count = log.raw.length;
  await sleep(300);
  expect(log.raw.length).toBe(count);
}
