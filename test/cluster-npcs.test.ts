// Creatures across borders (ts/cluster/npc-link.ts) between two real Games in this process, linked as
// two regions are: each publishes its entities near the other's ground as ghosts (GhostTable, as the
// region's GHOSTS round does), and the creature frames travel on real loopback TCP sockets
// (link-frames.ts). A hostile of the west's spawn wakes for a player across the border, chases it onto
// the east's ground, is handed over there with its chase, and fights on; its death there is told to
// its home, whose spawn replaces it; a creature walking home is its spawn's again; a lost link settles
// what crossed it. Between real region processes: test/cluster.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GhostTable, ghostsFor } from "../ts/cluster/ghosts.js";
import { gridLayout } from "../ts/cluster/layout.js";
import {
  FRAME_NPC_DIED,
  FRAME_NPC_HANDOFF,
  FRAME_NPC_HELD,
  FrameError,
  FrameReader,
  FrameWriter,
  jsonOf,
} from "../ts/cluster/link-frames.js";
import { type NpcLink, npcLinkFor } from "../ts/cluster/npc-link.js";
import { Game } from "../ts/server/game-server.js";
import { Logger } from "../ts/server/ops/log.js";
import type { Core } from "../ts/wasm/core.js";
import { loadCore } from "../ts/wasm/node.js";
import { boundGuest } from "./support/game-without-network.js";
import { type NpcMap, testKind, writeNpcMap } from "./support/npc-map.js";
import { closeSocketPairs, socketPair } from "./support/socket-pair.js";

let core: Core;
const maps: NpcMap[] = [];
beforeAll(async () => {
  core = await loadCore();
});
afterEach(closeSocketPairs);
afterAll(() => {
  for (const map of maps) map.dispose();
});

const WOLF = testKind({
  name: "wolf",
  typeId: 0x301,
  behaviour: "hostile",
  speed: 50,
  hp: 30,
  perception: 16,
  leash: 30,
  attack: 3,
  respawnSeconds: 1,
});

/** Two regions of a 64 × 32 walled room: west x < 32 (with a wolf's spawn at (26, 16)), east x ≥ 32. */
interface Pair {
  west: Game;
  east: Game;
  westLink: NpcLink;
  eastLink: NpcLink;
  westGhosts: GhostTable;
  eastGhosts: GhostTable;
  /** One tick of both games, then each one's ghosts published to the other (every 2nd tick), as a region does. */
  step(): void;
  /** Steps both games until `predicate` holds (at most `ticks`), letting the frames on the sockets arrive. */
  until(what: string, predicate: () => boolean, ticks?: number): Promise<void>;
  /** Steps both games `ticks` times, letting the frames arrive. */
  run(ticks: number): Promise<void>;
}

async function pair(): Promise<Pair> {
  const map = writeNpcMap({
    width: 64,
    height: 32,
    spawn: { x: 40, y: 16 },
    kinds: [WOLF],
    spawns: [{ kind: "wolf", x: 26, y: 16 }],
  });
  maps.push(map);
  const layout = gridLayout(2, 1, 2);
  const silent = new Logger("silent");
  const spawns = map.map.npcSpawns ?? [];
  const west = new Game(core, map.map, { firstEntityId: 2 ** 24 + 1 }, silent);
  const east = new Game(core, { ...map.map, npcSpawns: [] }, { firstEntityId: 2 ** 25 + 1 }, silent);
  const westGhosts = new GhostTable(west.entities);
  const eastGhosts = new GhostTable(east.entities);
  const [westOut, eastIn] = await socketPair();
  const [eastOut, westIn] = await socketPair();
  const westWriter = new FrameWriter(westOut);
  const eastWriter = new FrameWriter(eastOut);
  const westLink = npcLinkFor(west, map.map.npcKinds ?? [], spawns, westGhosts, layout, 0, (n) =>
    n === 1 ? westWriter : undefined,
  );
  const eastLink = npcLinkFor(east, map.map.npcKinds ?? [], spawns, eastGhosts, layout, 1, (n) =>
    n === 0 ? eastWriter : undefined,
  );
  west.otherPlayers = () => westGhosts.players();
  east.otherPlayers = () => eastGhosts.players();
  const dispatch = (link: NpcLink, from: number) =>
    new FrameReader((kind, _client, payload) => {
      if (kind === FRAME_NPC_HANDOFF) link.onHandoff(jsonOf(payload, "npc handoff"));
      else if (kind === FRAME_NPC_HELD) link.onHeld(from, jsonOf(payload, "npc held"));
      else if (kind === FRAME_NPC_DIED) link.onDied(jsonOf(payload, "npc died"));
    });
  const eastReader = dispatch(eastLink, 0);
  const westReader = dispatch(westLink, 1);
  eastIn.on("data", (chunk: Buffer) => eastReader.push(chunk));
  westIn.on("data", (chunk: Buffer) => westReader.push(chunk));
  const own = (game: Game, ghosts: GhostTable) => [...game.entities.values()].filter((e) => !ghosts.isGhost(e.id));
  const step = () => {
    west.step();
    east.step();
    if (west.tick % 2 === 0) {
      westLink.handOff();
      eastLink.handOff();
      eastGhosts.apply(0, ghostsFor(layout, 1, own(west, westGhosts)));
      westGhosts.apply(1, ghostsFor(layout, 0, own(east, eastGhosts)));
    }
  };
  const until = async (what: string, predicate: () => boolean, ticks = 600) => {
    for (let tick = 0; !predicate(); tick++) {
      if (tick > ticks) throw new Error(`timed out waiting for ${what}`);
      step();
      // The frames sent this tick cross the loopback sockets before the next one.
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  };
  const run = async (ticks: number) => {
    let left = ticks;
    await until(`${ticks} ticks`, () => left-- === 0, ticks + 1);
  };
  return { west, east, westLink, eastLink, westGhosts, eastGhosts, step, until, run };
}

describe("a creature across a border", () => {
  it("wakes for a player across it, chases onto the other ground, is handed over with its chase and fights on", async () => {
    const p = await pair();
    const [wolf] = [...p.west.npcs.values()];
    expect(wolf.entity.x).toBe(26);
    // Bob plays in the east, 7 tiles from the wolf across the border: a ghost in the west only.
    const bob = boundGuest(p.east, "Bob");
    p.east.entities.move(bob.session.entity, 33, 16);
    await p.until("the wolf on Bob's trail", () => p.west.npcs.get(wolf.entity.id)?.targetId === bob.session.entity.id);
    // Bob runs deeper into the east; the wolf follows past the margin and is the east's from then on.
    p.east.entities.move(bob.session.entity, 44, 16);
    await p.until("the wolf handed to the east", () => p.east.npcs.get(wolf.entity.id) !== undefined);
    expect(p.west.npcs.get(wolf.entity.id)).toBeUndefined();
    expect(p.west.entities.get(wolf.entity.id)).toBeUndefined(); // not simulated there, and not yet a ghost
    const adopted = p.east.npcs.get(wolf.entity.id)!;
    expect(adopted.entity.x).toBeGreaterThan(31 + 2); // past the margin
    expect(adopted.spawn).toBeNull();
    expect(adopted.homeX).toBe(26);
    expect(adopted.targetId).toBe(bob.session.entity.id);
    expect(p.westLink.away).toBe(1);
    expect(p.eastLink.holding).toBe(1);
    expect(p.west.npcs.size).toBe(0);
    // The chase goes on in the east, and its bumps are blows at Bob, resolved there.
    await p.until("the wolf biting Bob", () => bob.session.entity.hp < bob.session.entity.hpMax);
    expect(p.east.combat.stats.attacks).toBeGreaterThan(0);
    // The west sees it as the east's ghost now; never both owned.
    await p.until("the wolf a ghost in the west", () => p.westGhosts.isGhost(wolf.entity.id));
    expect(p.eastGhosts.isGhost(wolf.entity.id)).toBe(false);

    // It dies in the east: its home's spawn hears of it and brings a new one after its respawn time.
    expect(p.east.npcs.kill(wolf.entity.id)).toBe(true);
    await p.until("a new wolf at home", () => p.west.npcs.size === 1);
    const [replacement] = [...p.west.npcs.values()];
    expect(replacement.entity.id).not.toBe(wolf.entity.id);
    expect(p.westLink.stats.diedAway).toBe(1);
    expect(p.westLink.away).toBe(0);
    expect(p.eastLink.holding).toBe(0);
    expect(p.eastLink.stats.diedHere).toBe(1);
  });

  it("walks home and is its spawn's again; a spawn does not replace a creature that is only away", async () => {
    const p = await pair();
    const [wolf] = [...p.west.npcs.values()];
    const id = wolf.entity.id;
    // Placed deep in the east as if it had walked there. It arrives awake and walks back towards home
    // (idle, it keeps within its wander radius of home) until it falls asleep with no player near.
    p.west.entities.move(wolf.entity, 56, 10);
    await p.until("the wolf in the east", () => p.east.npcs.get(id) !== undefined);
    // Away for longer than its respawn time: its spawn keeps counting it and brings no second wolf.
    await p.run(60);
    expect(p.west.npcs.size).toBe(0);
    const there = p.east.npcs.get(id)!;
    p.east.entities.move(there.entity, 20, 10);
    await p.until("the wolf back in the west", () => p.west.npcs.get(id) !== undefined);
    const home = p.west.npcs.get(id)!;
    expect(home.spawn).not.toBeNull();
    expect(p.westLink.away).toBe(0);
    expect(p.eastLink.holding).toBe(0);
    // Dying at home now is a death at home: one replacement, as for any creature of the spawn.
    p.west.npcs.kill(id);
    await p.until("a new wolf", () => p.west.npcs.size === 1);
    await p.run(60);
    expect(p.west.npcs.size).toBe(1);
    expect(p.west.npcs.stats.respawns).toBe(1);
  });

  it("a lost link settles what crossed it: away counted dead at home, a lost home's creatures dropped", async () => {
    const p = await pair();
    const [wolf] = [...p.west.npcs.values()];
    p.west.entities.move(wolf.entity, 40, 10);
    await p.until("the wolf in the east", () => p.east.npcs.get(wolf.entity.id) !== undefined);
    // The east's process died, as the west sees it: its wolf died with it, and the spawn replaces it.
    p.westLink.linkLost(1);
    expect(p.westLink.stats.lostWithLinks).toBe(1);
    await p.until("a new wolf at home", () => p.west.npcs.size === 1);
    // The west's process died, as the east sees it: the wolf of its spawn held here goes (a restarted
    // west fills its spawn again), so it is never in the world twice.
    p.eastLink.linkLost(0);
    expect(p.east.npcs.get(wolf.entity.id)).toBeUndefined();
    expect(p.east.entities.get(wolf.entity.id)).toBeUndefined();
    expect(p.eastLink.stats.droppedWithHome).toBe(1);
    // A death told afterwards for a creature already settled changes nothing.
    p.westLink.onDied({ id: wolf.entity.id });
    await p.run(60);
    expect(p.west.npcs.size).toBe(1);
  });

  it("refuses a malformed handoff, and counts an arrival under a taken id as a death at home", async () => {
    const p = await pair();
    const [wolf] = [...p.west.npcs.values()];
    const good = {
      id: 77,
      typeId: WOLF.typeId,
      x: 40,
      y: 10,
      hp: 30,
      hpMax: 30,
      elo: 1000,
      flags: 0,
      name: "wolf",
      kind: "wolf",
      spawn: wolf.spawnId,
      homeX: 26,
      homeY: 16,
      energy: 0,
      state: 0,
      targetId: 0,
      calmFor: 0,
    };
    const bad: [string, unknown][] = [
      ["not an object", { npc: 5, hops: 1 }],
      ["no hops", { npc: good }],
      ["hp 0", { npc: { ...good, hp: 0 }, hops: 1 }],
      ["hp above max", { npc: { ...good, hp: 31 }, hops: 1 }],
      ["a state out of range", { npc: { ...good, state: 9 }, hops: 1 }],
      ["an unknown kind", { npc: { ...good, kind: "dragon" }, hops: 1 }],
      ["no such spawn", { npc: { ...good, spawn: 999 }, hops: 1 }],
      ["on the sender's ground", { npc: { ...good, x: 10 }, hops: 1 }],
      ["a name too long", { npc: { ...good, name: "w".repeat(65) }, hops: 1 }],
      ["a fractional field", { npc: { ...good, energy: 0.5 }, hops: 1 }],
    ];
    for (const [what, payload] of bad) expect(() => p.eastLink.onHandoff(payload), what).toThrow(FrameError);
    expect(p.east.npcs.size).toBe(0);
    // An id taken here: the creature cannot stand beside the other one, so it is reported dead to its home.
    const bob = boundGuest(p.east, "Bob");
    p.eastLink.onHandoff({ npc: { ...good, id: bob.session.entity.id }, hops: 1 });
    expect(p.eastLink.stats.idTaken).toBe(1);
    expect(p.east.npcs.size).toBe(0);
    expect(p.east.entities.get(bob.session.entity.id)).toBe(bob.session.entity);
  });
});
