// Blows across a border (ts/cluster/strikes.ts) between two real Games in this process, linked as two
// regions are: each holds the other's player as a ghost (GhostTable), and the STRIKE / STRIKE_ANSWER
// frames travel on real loopback TCP sockets (link-frames.ts). A bump onto the ghost is resolved once,
// by the defender's game; its report reaches the attacker's client; the owner refuses what cannot land
// and the attacker's side refuses an answer a CombatPacket cannot carry. Between real region
// processes: test/cluster.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FRAME_STRIKE,
  FRAME_STRIKE_ANSWER,
  FrameError,
  FrameReader,
  FrameWriter,
  jsonOf,
} from "../ts/cluster/link-frames.js";
import { type GhostEntry, GhostTable } from "../ts/cluster/ghosts.js";
import { StrikeLink } from "../ts/cluster/strikes.js";
import { decodePacketPlain } from "../ts/protocol/packet.js";
import { Game } from "../ts/server/game-server.js";
import type { StoredEntity } from "../ts/server/entities/entities.js";
import { Logger } from "../ts/server/ops/log.js";
import type { Session } from "../ts/server/sessions/session.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { boundGuest, type CapturingPeer, floorMap } from "./support/game-without-network.js";
import { closeSocketPairs, socketPair } from "./support/socket-pair.js";

let core: Core;
beforeAll(async () => {
  core = await loadCore();
});
afterAll(() => {
  closeSocketPairs();
});

function bound(game: Game, nick: string, x: number, y: number): { session: Session; peer: CapturingPeer } {
  const bound = boundGuest(game, nick);
  game.entities.move(bound.session.entity, x, y);
  return bound;
}

const entryOf = (e: StoredEntity): GhostEntry => [
  e.id,
  e.typeId,
  e.x,
  e.y,
  e.hp,
  e.hpMax,
  e.elo,
  e.flags,
  e.name,
  e.meta,
];

const until = async (what: string, predicate: () => boolean) => {
  for (let round = 0; !predicate(); round++) {
    if (round > 300) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe("a blow across a border", () => {
  it("is resolved once by the defender's game and reported to the attacker's client", async () => {
    const silent = new Logger("silent");
    const west = new Game(
      core,
      floorMap("open", 64, { x: 20, y: 20 }),
      { pvp: true, firstEntityId: 2 ** 24 + 1 },
      silent,
    );
    const east = new Game(
      core,
      floorMap("open", 64, { x: 20, y: 20 }),
      { pvp: true, firstEntityId: 2 ** 25 + 1 },
      silent,
    );
    const attacker = bound(west, "Ann", 31, 20);
    const defender = bound(east, "Bob", 32, 20);
    const westGhosts = new GhostTable(west.entities);
    const eastGhosts = new GhostTable(east.entities);
    westGhosts.apply(1, [entryOf(defender.session.entity)]);
    eastGhosts.apply(0, [entryOf(attacker.session.entity)]);
    // west → east and east → west, each on its own socket, read by the other side as a region link is.
    const [westOut, eastIn] = await socketPair();
    const [eastOut, westIn] = await socketPair();
    const westLink = new StrikeLink(west.combat, westGhosts, (n) => (n === 1 ? new FrameWriter(westOut) : undefined));
    const eastLink = new StrikeLink(east.combat, eastGhosts, (n) => (n === 0 ? new FrameWriter(eastOut) : undefined));
    const eastReader = new FrameReader((kind, _client, payload) => {
      if (kind === FRAME_STRIKE) eastLink.onStrike(0, jsonOf(payload, "strike"));
    });
    const westReader = new FrameReader((kind, _client, payload) => {
      if (kind === FRAME_STRIKE_ANSWER) westLink.onAnswer(jsonOf(payload, "strike answer"));
    });
    eastIn.on("data", (chunk: Buffer) => eastReader.push(chunk));
    westIn.on("data", (chunk: Buffer) => westReader.push(chunk));

    // Ann's step east onto Bob's ghost: an attack, not a move, and not resolved here.
    expect(west.combat.bump(attacker.session.entity, 32, 20)).toBe(true);
    expect(west.combat.stats.attacks).toBe(0);
    await until("the answer", () => westLink.stats.answered === 1);
    expect(east.combat.stats.attacks).toBe(1);
    expect(eastLink.stats.resolved).toBe(1);
    const hp = defender.session.entity.hp;
    expect(hp).toBe(100 - east.combat.stats.damage);
    // The report reaches Ann's client with the tick's CombatPackets, and Bob's from his own game.
    west.step();
    east.step();
    const combatOf = (peer: CapturingPeer) =>
      peer.datagrams.flatMap((d) => {
        const decoded = decodePacketPlain(d);
        return decoded.ok && decoded.packet.type === "combat" ? decoded.packet.events : [];
      });
    const event = {
      attackerId: attacker.session.entity.id,
      targetId: defender.session.entity.id,
      targetHp: hp,
    };
    expect(combatOf(attacker.peer)).toEqual([expect.objectContaining(event)]);
    expect(combatOf(defender.peer)).toEqual(combatOf(attacker.peer));

    // What cannot land is refused by the owner, counted, and changes nothing.
    eastLink.onStrike(0, { attacker: 999, target: defender.session.entity.id, weapon: 6 }); // no such ghost
    eastLink.onStrike(1, { attacker: attacker.session.entity.id, target: defender.session.entity.id, weapon: 6 }); // not from its owner
    eastLink.onStrike(0, { attacker: attacker.session.entity.id, target: 12345, weapon: 6 }); // no such defender
    eastLink.onStrike(0, { attacker: attacker.session.entity.id, target: defender.session.entity.id, weapon: -5 });
    eastGhosts.apply(0, [entryOf({ ...attacker.session.entity, x: 28 } as StoredEntity)]); // out of reach now
    eastLink.onStrike(0, { attacker: attacker.session.entity.id, target: defender.session.entity.id, weapon: 6 });
    expect(() => eastLink.onStrike(0, { attacker: "Ann", target: 1, weapon: 6 })).toThrow(FrameError);
    expect(eastLink.stats.refused).toBe(5);
    expect(east.combat.stats.attacks).toBe(1);
    expect(defender.session.entity.hp).toBe(hp);

    // An answer a CombatPacket cannot carry is dropped whole; the next tick sends nothing for it.
    const id = attacker.session.entity.id;
    const elo = attacker.session.entity.elo;
    const bad = [
      { attacker: id, events: [7, id, 1, 0, 0], attackerElo: elo }, // no such event kind
      { attacker: id, events: [0, id, 1, 70_000, 0], attackerElo: elo }, // amount past u16
      { attacker: id, events: [0, id, 1, 0], attackerElo: elo }, // not whole events
      { attacker: id, events: [0, id, 1, 0, 0], attackerElo: 1.5 },
      { attacker: 4242, events: [0, 4242, 1, 0, 0], attackerElo: elo }, // nobody here
    ];
    for (const answer of bad) westLink.onAnswer(answer);
    expect(westLink.stats.answersDropped).toBe(bad.length);
    const before = attacker.peer.datagrams.length;
    west.step();
    expect(combatOf({ datagrams: attacker.peer.datagrams.slice(before) } as CapturingPeer)).toEqual([]);
    expect(attacker.session.entity.elo).toBe(elo);
    west.shutdown();
    east.shutdown();
  });
});
