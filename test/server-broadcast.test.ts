// The server's per-client broadcast against the protocol library's plain
// encoders: for a crowd of entities with and without metadata, spread over
// chunk corners so views span four buckets and need several datagrams, every
// State and Entity datagram a client receives equals what encodeState and
// splitEntities make of an independently computed view (every entity within 15
// tiles, by id), the entity datagrams are skipped exactly when the checksum is
// unchanged, and a keep-alive re-sends them.
import { beforeAll, describe, expect, it } from "vitest";
import { BROADCAST_EVERY_TICKS, CHUNK_SIZE } from "../ts/constants.js";
import {
  type EntityEntry,
  type Tlv,
  PACKET_ENTITY,
  PACKET_STATE,
  chunkId,
  createActionPacket,
  encodeAction,
  encodeState,
  entityChecksum,
  manifestChunkId,
  splitEntities,
} from "../ts/protocol/index.js";
import { mulberry32 } from "../ts/random.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/log.js";
import type { Peer, Session } from "../ts/server/session.js";
import { VIEW_RADIUS } from "../ts/server/view.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { CapturingPeer, floorMap } from "./support/game-without-network.js";

const SIZE = 160;

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});

function bind(game: Game, session: Session, peer: Peer, targetTick = 0): void {
  const action = createActionPacket();
  action.authToken = session.token;
  action.targetTick = targetTick;
  const bytes = new Uint8Array(74);
  encodeAction(action, bytes);
  session.joinSource = peer.address; // as if it joined over HTTP from there: its address is proven (address-proof.ts)
  game.receive(bytes, peer);
}

/** What the client should see: every entity within the view square, by id, as plain entries. */
function expectedView(game: Game, x: number, y: number): EntityEntry[] {
  return [...game.entities.values()]
    .filter((e) => Math.abs(e.x - x) <= VIEW_RADIUS && Math.abs(e.y - y) <= VIEW_RADIUS)
    .sort((a, b) => a.id - b.id)
    .map(({ id, typeId, x, y, hp, hpMax, elo, flags, meta }) => ({ id, typeId, x, y, hp, hpMax, elo, flags, meta }));
}

function manifest(game: Game, x: number, y: number) {
  const centre = chunkId(Math.floor(x / CHUNK_SIZE), Math.floor(y / CHUNK_SIZE));
  return Array.from({ length: 9 }, (_, index) => {
    const id = manifestChunkId(centre, index);
    return { chunkId: id, version: game.world.chunkVersion((id << 16) >> 16, id >> 16) };
  });
}

describe("per-client broadcast", () => {
  it("sends exactly the plain encoders' State and Entity datagrams, skipping unchanged entries", () => {
    const game = new Game(core, floorMap("open", SIZE, { x: 64, y: 64 }), {}, new Logger("silent"));
    const random = mulberry32(20240601);
    const metas: Tlv[][] = [
      [],
      [{ kind: "name", value: "Zoë" }],
      [
        { kind: "weapon", value: 3 },
        { kind: "unknown", tag: 0x42, bytes: new Uint8Array([1, 2, 3]) },
      ],
    ];
    // A crowd around the chunk corner (64, 64), so views span 2×2 buckets and more than one datagram.
    for (let i = 0; i < 140; i++) {
      game.entities.spawn({
        typeId: 1 + (i % 3),
        x: 64 + Math.floor(random() * 40) - 20,
        y: 64 + Math.floor(random() * 40) - 20,
        hp: i,
        hpMax: 100,
        elo: i * 7,
        flags: i % 8,
        name: "",
        meta: metas[i % metas.length],
      });
    }
    const viewers = [game.join("ada"), game.join("bo")];
    const peers = viewers.map((_, i) => new CapturingPeer(`test:${i}`, `10.0.0.${i}`));
    viewers.forEach((session, i) => bind(game, session, peers[i]));
    game.entities.move(viewers[1].entity, 40, 90);

    const lastChecksum = [-1, -1];
    let entityRounds = 0;
    let skippedRounds = 0;
    for (let step = 0; step < 40; step++) {
      // Some of the crowd wander, across bucket edges; sometimes nothing moves at all.
      if (step % 5 !== 4) {
        for (const entity of game.entities.values()) {
          if (random() < 0.1) {
            game.entities.move(
              entity,
              Math.min(SIZE - 1, Math.max(0, entity.x + Math.floor(random() * 3) - 1)),
              Math.min(SIZE - 1, Math.max(0, entity.y + Math.floor(random() * 3) - 1)),
            );
          }
        }
      }
      if (step === 30) bind(game, viewers[0], peers[0]); // a keep-alive: entries re-sent though unchanged
      for (const peer of peers) peer.datagrams.length = 0;
      game.step();
      viewers.forEach((session, i) => {
        const received = peers[i].datagrams.filter((d) => d[3] === PACKET_STATE || d[3] === PACKET_ENTITY);
        if (game.tick % BROADCAST_EVERY_TICKS !== session.sendPhase) {
          expect(received).toHaveLength(0);
          return;
        }
        const { x, y } = session.entity;
        const entityDatagrams = splitEntities(expectedView(game, x, y), game.tick);
        const checksum = entityChecksum(entityDatagrams);
        const state = new Uint8Array(72);
        encodeState(
          {
            type: "state",
            clientType: 0,
            tick: game.tick,
            chunks: manifest(game, x, y),
            playerEntityId: session.entity.id,
            entityChecksum: checksum,
          },
          state,
        );
        expect(received[0]).toEqual(state);
        const resend = step === 30 && i === 0;
        if (checksum === lastChecksum[i] && !resend) {
          skippedRounds++;
          expect(received).toHaveLength(1);
        } else {
          entityRounds++;
          expect(received.slice(1)).toEqual(entityDatagrams);
        }
        lastChecksum[i] = checksum;
      });
    }
    // Both paths ran, and the crowded view needed more than one datagram.
    expect(entityRounds).toBeGreaterThan(10);
    expect(skippedRounds).toBeGreaterThan(2);
    expect(splitEntities(expectedView(game, viewers[0].entity.x, viewers[0].entity.y), 1).length).toBeGreaterThan(1);
    game.shutdown();
  });
});
