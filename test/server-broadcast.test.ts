// The server's per-client broadcast against the protocol library's plain
// encoders: for a crowd of entities with and without metadata, spread over
// chunk corners so views span four buckets and need several datagrams, every
// State and Entity datagram a client receives equals what encodeState and
// splitEntities make of an independently computed view (every entity within 15
// tiles — in a crowd the VIEW_ENTITIES_MAX nearest — by id), the entity datagrams are skipped exactly when the checksum is
// unchanged, and a keep-alive re-sends them.
import { beforeAll, describe, expect, it } from "vitest";
import { BROADCAST_EVERY_TICKS, CHUNK_SIZE } from "../ts/constants.js";
import {
  type EntityEntry,
  type StateDeltaView,
  type Tlv,
  ENTITY_ACK_BYTES,
  EntryList,
  PACKET_ENTITY,
  PACKET_STATE,
  PACKET_STATE_DELTA,
  PACKET_STATE_DELTA_COMPACT,
  type StateDeltaCompactView,
  expandStateDeltaCompact,
  applyEntityDelta,
  decodePacket,
  decodePacketPlain,
  emptyEntryList,
  encodeEntityAck,
  encodeEntityEntry,
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
import { Logger } from "../ts/server/ops/log.js";
import type { Session } from "../ts/server/sessions/session.js";
import type { Peer } from "../ts/server/edge/peer.js";
import { VIEW_ENTITIES_MAX, VIEW_RADIUS } from "../ts/server/entities/view.js";
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

/**
 * What the client should see: every entity within the view square — in a crowd, the VIEW_ENTITIES_MAX nearest
 * (Chebyshev distance, then the lower id) — by id, as plain entries.
 */
function expectedView(game: Game, x: number, y: number): EntityEntry[] {
  const distance = (e: { x: number; y: number }): number => Math.max(Math.abs(e.x - x), Math.abs(e.y - y));
  return [...game.entities.values()]
    .filter((e) => distance(e) <= VIEW_RADIUS)
    .sort((a, b) => distance(a) - distance(b) || a.id - b.id)
    .slice(0, VIEW_ENTITIES_MAX)
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
      // Longer than the entries the broadcast keeps between rounds: written afresh every round.
      [{ kind: "name", value: "Bartholomew the Long-Winded" }],
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
          // Every other field an entry carries changes too (hits, levels, flags, a new meta array):
          // the broadcast keeps entries encoded between rounds, and must never send a stale one.
          if (entity.typeId !== 0 && random() < 0.05) {
            const field = Math.floor(random() * 6);
            if (field === 0) entity.hp = Math.floor(random() * 100);
            else if (field === 1) entity.hpMax = 100 + Math.floor(random() * 50);
            else if (field === 2) entity.elo = Math.floor(random() * 3000);
            else if (field === 3) entity.flags = Math.floor(random() * 8);
            else if (field === 4) entity.typeId = 1 + Math.floor(random() * 3);
            else entity.meta = metas[Math.floor(random() * metas.length)].slice();
            game.entities.changed(entity);
          }
        }
        // A creature leaves and a newcomer takes its place with the very same fields (and its slot in the
        // store): only the id differs, so a kept entry must not stand in for the newcomer's.
        if (step % 7 === 3) {
          const leaving = [...game.entities.values()].find((e) => e.typeId !== 0 && random() < 0.2);
          if (leaving) {
            game.entities.remove(leaving);
            const { typeId, x, y, hp, hpMax, elo, flags, meta } = leaving;
            const newcomer = game.entities.spawn({ typeId, x, y, hp, hpMax, elo, flags, name: "", meta });
            expect(newcomer.slot).toBe(leaving.slot);
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
    // Both paths ran, the crowded view was capped, and it still needed more than one datagram.
    const inSquare = [...game.entities.values()].filter(
      (e) => Math.abs(e.x - viewers[0].entity.x) <= VIEW_RADIUS && Math.abs(e.y - viewers[0].entity.y) <= VIEW_RADIUS,
    );
    expect(inSquare.length).toBeGreaterThan(VIEW_ENTITIES_MAX);
    expect(entityRounds).toBeGreaterThan(10);
    expect(skippedRounds).toBeGreaterThan(2);
    expect(splitEntities(expectedView(game, viewers[0].entity.x, viewers[0].entity.y), 1).length).toBeGreaterThan(1);
    game.shutdown();
  });

  it("keeps every entry right while its slots grow mid-game and long entries overflow the round's area", () => {
    // The broadcaster keeps one record per entity slot and writes entries too long to keep (a long name) into
    // a round's area after the records; both grow while the game runs — the records when the store's slots
    // pass theirs, the area when a round's long entries pass it. Every datagram must stay what the plain
    // encoders make of the view throughout (sendUnchangedEntities: each broadcast sends the entries).
    const size = 400;
    const game = new Game(
      core,
      floorMap("open", size, { x: 200, y: 200 }),
      { sendUnchangedEntities: true, maxPlayers: 64 },
      new Logger("silent"),
    );
    const random = mulberry32(20261208);
    const names = [[], [{ kind: "name", value: "a name too long to be kept ok" }]] as Tlv[][];
    const spawnSome = (count: number): void => {
      for (let i = 0; i < count; i++) {
        game.entities.spawn({
          typeId: 16 + (i % 4),
          x: 60 + Math.floor(random() * 280),
          y: 60 + Math.floor(random() * 280),
          hp: 5,
          hpMax: 9,
          elo: i,
          flags: 0,
          name: "",
          meta: names[i % 2],
        });
      }
    };
    spawnSome(600);
    const viewers = Array.from({ length: 40 }, (_, i) => game.join(`v${i}`));
    const peers = viewers.map((_, i) => new CapturingPeer(`test:g${i}`, `10.0.1.${i}`));
    viewers.forEach((session, i) => {
      bind(game, session, peers[i]);
      game.entities.move(session.entity, 70 + Math.floor(random() * 260), 70 + Math.floor(random() * 260));
    });
    let checked = 0;
    for (let step = 0; step < 16; step++) {
      // 400 more creatures every other step: the store's slots pass 1024 and then 2048 on the way.
      if (step % 2 === 0) spawnSome(400);
      for (const entity of game.entities.values()) {
        if (entity.typeId !== 0 && random() < 0.2) {
          game.entities.move(entity, entity.x + Math.floor(random() * 3) - 1, entity.y + Math.floor(random() * 3) - 1);
        }
      }
      for (const peer of peers) peer.datagrams.length = 0;
      game.step();
      viewers.forEach((session, i) => {
        if (game.tick % BROADCAST_EVERY_TICKS !== session.sendPhase) return;
        const received = peers[i].datagrams.filter((d) => d[3] === PACKET_ENTITY);
        expect(received).toEqual(splitEntities(expectedView(game, session.entity.x, session.entity.y), game.tick));
        checked++;
      });
    }
    expect(game.entities.slotCount).toBeGreaterThan(2048);
    expect(checked).toBeGreaterThan(200);
    game.shutdown();
  });

  it("a field written without EntityStore.changed is caught when verifying, and otherwise goes out stale", () => {
    // The broadcast keeps each entry while its change count stands still (EntityStore.changed): what a
    // writer that forgets the call would do to its viewers, and the tests' guard that finds the writer.
    for (const verifyEntityChanges of [true, false]) {
      const game = new Game(
        core,
        floorMap("open", SIZE, { x: 64, y: 64 }),
        { verifyEntityChanges },
        new Logger("silent"),
      );
      const creature = game.entities.spawn(
        { typeId: 7, x: 66, y: 64, hp: 10, hpMax: 10, elo: 0, flags: 0, name: "", meta: [] },
        "room",
      );
      const viewer = game.join("ada");
      const peer = new CapturingPeer("test:ada", "10.0.0.1");
      bind(game, viewer, peer);
      const hpSent = (): number[] =>
        peer.datagrams
          .filter((d) => d[3] === PACKET_ENTITY)
          .flatMap((d) => {
            const decoded = decodePacketPlain(d);
            if (!decoded.ok || decoded.packet.type !== "entity") return [];
            return decoded.packet.entities.filter((e) => e.id === creature.id).map((e) => e.hp);
          });
      game.step();
      game.step();
      expect(hpSent()).toEqual([10]);
      creature.hp = 4; // no EntityStore.changed
      peer.datagrams.length = 0;
      if (verifyEntityChanges) {
        expect(() => {
          game.step();
          game.step();
        }).toThrow(/hp went from 10 to 4 without EntityStore.changed/);
      } else {
        game.step();
        game.step();
        expect(hpSent()).toEqual([]); // the stale entry: nothing sent, the checksum unchanged
        game.entities.changed(creature);
        game.step();
        game.step();
        expect(hpSent()).toEqual([4]);
      }
      game.shutdown();
    }
  });
});

for (const compact of [false, true])
  describe(`per-client broadcast with ${compact ? "compact " : ""}entity deltas (${compact ? "P-25" : "P-21"})`, () => {
    const DELTA_TYPE = compact ? PACKET_STATE_DELTA_COMPACT : PACKET_STATE_DELTA;
    it("sends StateDeltas that rebuild exactly the view from any acknowledged baseline, the seed's packets when too big, and idles", () => {
      const game = new Game(core, floorMap("open", SIZE, { x: 64, y: 64 }), {}, new Logger("silent"));
      const random = mulberry32(20240602);
      // A crowd too big for one delta from nothing (140 entries, of which a view sends the VIEW_ENTITIES_MAX
      // nearest; every other one named, so even those do not fit), then a sparse view for steady deltas.
      const crowd = Array.from({ length: 140 }, (_, i) =>
        game.entities.spawn({
          typeId: 16 + (i % 3),
          x: 64 + Math.floor(random() * 30) - 15,
          y: 64 + Math.floor(random() * 30) - 15,
          hp: 8,
          hpMax: 8,
          elo: 1000,
          flags: 0,
          name: "",
          meta:
            i % 4 === 0 ? [{ kind: "weapon", value: 2 }] : i % 2 === 1 ? [{ kind: "name", value: `crowd ${i}` }] : [],
        }),
      );
      const viewer = game.join("dee");
      const peer = new CapturingPeer("test:d", "10.0.0.9");
      bind(game, viewer, peer);
      const ack = (tick: number) => {
        const bytes = new Uint8Array(ENTITY_ACK_BYTES);
        const type = compact ? ("compact_ack" as const) : ("entity_ack" as const);
        encodeEntityAck({ type, clientType: 0, authToken: viewer.token, tick }, bytes);
        game.receive(bytes, peer);
      };
      ack(0); // turns deltas on: the empty list is held

      /** The client's side: verified lists by tick, as the official client keeps them. */
      const held = new Map<number, EntryList>([[0, emptyEntryList()]]);
      const expectedList = (tick: number): EntryList => {
        const list = new EntryList();
        const scratch = new Uint8Array(300);
        for (const entry of expectedView(game, viewer.entity.x, viewer.entity.y)) {
          list.append(scratch, 0, encodeEntityEntry(entry, scratch, 0));
        }
        list.tick = tick;
        list.checksum = list.computeChecksum();
        return list;
      };
      let deltas = 0;
      let fallbacks = 0;
      let broadcasts = 0;
      const run = (steps: number, moveEvery: number, acking: boolean): number => {
        let sent = 0;
        for (let step = 0; step < steps; step++) {
          if (moveEvery > 0 && step % moveEvery === 0) {
            for (const entity of crowd) {
              if (random() < 0.2) game.entities.move(entity, entity.x + Math.floor(random() * 3) - 1, entity.y);
            }
          }
          peer.datagrams.length = 0;
          game.step();
          if (game.tick % BROADCAST_EVERY_TICKS !== viewer.sendPhase) {
            expect(peer.datagrams.filter((d) => d[3] === DELTA_TYPE || d[3] === PACKET_STATE)).toHaveLength(0);
            continue;
          }
          broadcasts++;
          const expected = expectedList(game.tick);
          const ours = peer.datagrams.filter((d) =>
            [PACKET_STATE, PACKET_ENTITY, PACKET_STATE_DELTA, PACKET_STATE_DELTA_COMPACT].includes(d[3]),
          );
          if (ours.length === 0) continue; // idle: skipped
          sent++;
          if (ours[0][3] !== PACKET_STATE) {
            // One form per session: the one its first acknowledgement asked for.
            expect(ours[0][3]).toBe(DELTA_TYPE);
            expect(ours).toHaveLength(1);
            const decoded = decodePacket(ours[0]);
            expect(decoded.ok).toBe(true);
            const packet = (decoded as { packet: StateDeltaView | StateDeltaCompactView }).packet;
            const view = packet.type === "state_delta_compact" ? expandStateDeltaCompact(packet) : packet;
            expect(view.tick).toBe(game.tick);
            expect(view.playerEntityId).toBe(viewer.entity.id);
            expect(view.chunks).toEqual(manifest(game, viewer.entity.x, viewer.entity.y));
            expect(view.entityChecksum).toBe(expected.checksum);
            const base = held.get(view.baselineTick);
            expect(base, `baseline ${view.baselineTick} is one the client acknowledged`).toBeDefined();
            const applied = applyEntityDelta(
              base!,
              view.delta,
              0,
              view.delta.length,
              view.removedCount,
              view.changedCount,
            );
            expect(applied).not.toBeNull();
            expect(applied!.bytes.subarray(0, applied!.byteLength)).toEqual(
              expected.bytes.subarray(0, expected.byteLength),
            );
            deltas++;
          } else {
            // Too big for one datagram: the seed's State and EntityPackets, which the client verifies by checksum.
            expect(ours[0][3]).toBe(PACKET_STATE);
            expect(ours.slice(1)).toEqual(
              splitEntities(expectedView(game, viewer.entity.x, viewer.entity.y), game.tick),
            );
            fallbacks++;
          }
          held.set(game.tick, expected);
          if (acking) ack(game.tick);
        }
        return sent;
      };
      // From nothing, 140 entries do not fit one datagram: the seed's packets; acknowledged, deltas follow.
      run(12, 2, true);
      expect(fallbacks).toBeGreaterThanOrEqual(1);
      expect(deltas).toBeGreaterThanOrEqual(3);
      // Acknowledgements lost: every delta is still against the last acknowledged list, and still rebuilds the view.
      const before = deltas;
      run(10, 2, false);
      expect(deltas - before).toBe(5);
      // The crowd moves every other broadcast and acknowledgements are lost: P-21 sends every broadcast (each is a
      // delta against the old baseline); P-25 holds back each one that repeats the one before it — half of them.
      broadcasts = 0;
      const halves = run(16, 4, false);
      expect(broadcasts).toBe(8);
      expect(halves).toBe(compact ? 4 : 8);
      // Nothing moves and the client holds the current list: a State every 8 ticks instead of every 2.
      run(4, 0, true); // acknowledge the settled list
      broadcasts = 0;
      const sent = run(48, 0, true);
      expect(broadcasts).toBe(24);
      expect(sent).toBe(6);
      // Something moves again: back to every broadcast at once.
      broadcasts = 0;
      expect(run(8, 1, true)).toBe(4);
      game.shutdown();
    });
  });
