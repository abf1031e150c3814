// The scaffolding the NPC and combat tests over UDP share: a written map with
// creatures (npc-map.ts) served by an in-process game (game-harness.ts), protocol
// clients joined over HTTP and bound over UDP, and one cleanup for all of it.
import type { EntityEntry } from "../../ts/protocol/entity.js";
import type { GameOptions } from "../../ts/server/game-options.js";
import { type Harness, startHarness } from "./game-harness.js";
import { type NpcMap, writeNpcMap } from "./npc-map.js";
import { UdpTestClient } from "./udp-client.js";

export class NpcGame {
  private current: Harness | undefined;
  private map: NpcMap | undefined;
  private readonly clients: UdpTestClient[] = [];

  /** The running game (after start). */
  get harness(): Harness {
    if (this.current === undefined) throw new Error("NpcGame.start was not called");
    return this.current;
  }

  /** Writes the map and starts a game on it. */
  async start(spec: Parameters<typeof writeNpcMap>[0], options: Partial<GameOptions> = {}): Promise<Harness> {
    this.map = writeNpcMap(spec);
    this.current = await startHarness(this.map.map, options);
    return this.current;
  }

  /** A client joined as `nick`, bound with a keep-alive, once its own position is known. */
  async connect(nick: string): Promise<UdpTestClient> {
    const client = await UdpTestClient.connect(this.harness.httpPort, nick);
    this.clients.push(client);
    client.action(0, 0);
    await client.waitFor("own position", () => client.position());
    return client;
  }

  /** Closes the clients and the game and removes the map (afterEach). */
  async cleanup(): Promise<void> {
    for (const client of this.clients.splice(0)) client.close();
    await this.current?.close();
    this.current = undefined;
    this.map?.dispose();
    this.map = undefined;
  }
}

/** The latest entry of entity `id` the client holds. */
export function latestEntry(client: UdpTestClient, id: number): EntityEntry | undefined {
  for (let i = client.entityPackets.length - 1; i >= 0; i--) {
    const found = client.entityPackets[i].entities.find((entity) => entity.id === id);
    if (found) return found;
  }
  return undefined;
}
