// The broadcast among thousands of creatures, without sockets: a real Game on a 1024² floor map with
// PLAYERS bound sessions (peers that count and drop what they are sent) and CREATURES entities spread
// at random, an eighth of them stepping each tick (what the npcs suite's creatures do at speed 25),
// the players a step a window. Times Game.step() — the broadcast is nearly all of it here — so a
// change to the view query, the kept entries or the checksum shows in the JavaScript alone, without
// the kernel's share and the bots' noise of the npcs suite.
// With --deltas every session takes entity deltas (P-21) and acknowledges the newest list it was sent every
// 500 ms (12 ticks, each session on its own tick), as the bench's delta bots do.
// Run: taskset -c 0 npx tsx bench/micro/broadcast-round.ts [--ticks N] [--players N] [--creatures N] [--creature-steps N] [--deltas]
// (note `uptime` beside the figures; compare runs made back to back).
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { Game } from "../../ts/server/game-server.js";
import { Logger } from "../../ts/server/ops/log.js";
import type { Peer } from "../../ts/server/edge/peer.js";
import { EntityBaselines } from "../../ts/server/sessions/entity-baselines.js";
import type { Session } from "../../ts/server/sessions/session.js";
import { loadCore } from "../../ts/wasm/node.js";
import { PACKET_ENTITY, PACKET_STATE_DELTA, readPacketType } from "../../ts/protocol/header.js";
import { floorMap, joinAndBind } from "../../test/support/game-without-network.js";
import { xorshift } from "../lib/data.js";

const { values } = parseArgs({
  options: {
    ticks: { type: "string", default: "960" },
    players: { type: "string", default: "2000" },
    creatures: { type: "string", default: "20000" },
    deltas: { type: "boolean", default: false },
    "creature-steps": { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  process.stdout.write(
    "usage: npx tsx bench/micro/broadcast-round.ts [--ticks 960] [--players 2000] [--creatures 20000] [--creature-steps N] [--deltas]\n",
  );
  process.exit(0);
}
const TICKS = Number(values.ticks);
const PLAYERS = Number(values.players);
const CREATURES = Number(values.creatures);
/**
 * Creature steps a tick: an eighth of them by default; the npcs suite's 100,000-creature row takes ~1,000 (its
 * 22,400 decisions a second, the rest shed).
 */
const CREATURE_STEPS = Number(values["creature-steps"] ?? Math.ceil(CREATURES / 8));
for (const [flag, value] of [
  ["--ticks", TICKS],
  ["--players", PLAYERS],
  ["--creatures", CREATURES],
  ["--creature-steps", CREATURE_STEPS],
] as const) {
  if (!Number.isInteger(value) || value < 0) {
    process.stderr.write(`${flag} takes a whole number ≥ 0\n`);
    process.exit(2);
  }
}
const SIZE = 1024;
const WARMUP_TICKS = 240;
const CREATURE_TYPE = 20;

class DroppingPeer implements Peer {
  readonly transport = "udp";
  datagrams = 0;
  bytes = 0;
  entityPackets = 0;
  stateDeltas = 0;
  constructor(
    readonly key: string,
    readonly address: string,
  ) {}
  send(datagram: Uint8Array): void {
    this.datagrams++;
    this.bytes += datagram.length;
    const type = readPacketType(datagram);
    if (type === PACKET_ENTITY) this.entityPackets++;
    else if (type === PACKET_STATE_DELTA) this.stateDeltas++;
  }
}

const map = floorMap("broadcast-round", SIZE, { x: SIZE / 2, y: SIZE / 2 });
const core = await loadCore();
// Nobody sends here after binding: an hour before a silent session times out.
const game = new Game(
  core,
  map,
  { maxPlayers: PLAYERS + 1, levelSlots: 0, sessionTimeoutMs: 3_600_000 },
  new Logger("silent"),
);
const random = xorshift(20261203);
const at = (): number => 4 + Math.floor(random() * (SIZE - 8));

const peers: DroppingPeer[] = [];
const players = [];
const sessions: Session[] = [];
for (let index = 0; index < PLAYERS; index++) {
  const peer = new DroppingPeer(`bench:${index}`, "10.0.0.1");
  const session = joinAndBind(game, `p${index}`, peer);
  game.entities.move(session.entity, at(), at());
  // As a session's first EntityAck makes it (datagram-handler.ts).
  if (values.deltas) session.baselines = new EntityBaselines(false);
  peers.push(peer);
  players.push(session.entity);
  sessions.push(session);
}
/** Ticks between a delta session's acknowledgements: 500 ms, as the bench's bots (bench/server/bots.ts). */
const ACK_EVERY_TICKS = 12;
const creatures = [];
for (let index = 0; index < CREATURES; index++) {
  creatures.push(
    game.entities.spawn(
      { typeId: CREATURE_TYPE, x: at(), y: at(), hp: 10, hpMax: 10, elo: 0, flags: 0, name: "", meta: [] },
      "room",
    ),
  );
}

const step = (entity: { x: number; y: number }): void => {
  const x = Math.min(SIZE - 2, Math.max(1, entity.x + Math.floor(random() * 3) - 1));
  const y = Math.min(SIZE - 2, Math.max(1, entity.y + Math.floor(random() * 3) - 1));
  game.entities.move(entity as never, x, y);
};
const times: number[] = [];
/** The process's CPU time (user + system, µs) over the measured steps: less moved than wall time on a busy machine. */
let cpuUs = 0;
for (let tick = 0; tick < WARMUP_TICKS + TICKS; tick++) {
  // CREATURE_STEPS creatures step each tick, taken in turn; the players a step a window (every 4th tick).
  for (let index = 0; index < CREATURE_STEPS && creatures.length > 0; index++) {
    step(creatures[(tick * CREATURE_STEPS + index) % creatures.length]);
  }
  if (tick % 4 === 0) for (const player of players) step(player);
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  game.step();
  if (tick >= WARMUP_TICKS) {
    times.push(performance.now() - start);
    const cpu = process.cpuUsage(cpuStart);
    cpuUs += cpu.user + cpu.system;
  }
  if (values.deltas) {
    // Each session acknowledges the newest list it was sent, every ACK_EVERY_TICKS on a tick of its own.
    for (let index = tick % ACK_EVERY_TICKS; index < sessions.length; index += ACK_EVERY_TICKS) {
      const session = sessions[index];
      if (session.lastEntityTick > 0) session.baselines!.acknowledge(session.lastEntityTick, performance.now());
    }
  }
}
times.sort((a, b) => a - b);
const pick = (p: number): string => times[Math.floor((times.length - 1) * p)].toFixed(2);
const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
const datagrams = peers.reduce((sum, peer) => sum + peer.datagrams, 0);
const entityPackets = peers.reduce((sum, peer) => sum + peer.entityPackets, 0);
const stateDeltas = peers.reduce((sum, peer) => sum + peer.stateDeltas, 0);
const perTick = (count: number): string => (count / (WARMUP_TICKS + TICKS)).toFixed(0);
const load = (await import("node:os")).loadavg()[0].toFixed(2);
process.stdout.write(
  `${PLAYERS} players, ${CREATURES} creatures${values.deltas ? " (entity deltas)" : ""}, ${TICKS} ticks: Game.step mean ${mean.toFixed(2)} ms, ` +
    `p50 ${pick(0.5)}, p99 ${pick(0.99)}; CPU ${(cpuUs / 1000 / TICKS).toFixed(2)} ms per step; ${((mean * 1000 * 24) / Math.max(1, PLAYERS)).toFixed(1)} µs per client-second ` +
    `(JavaScript only, at 24 ticks/s); ${perTick(datagrams)} datagrams per tick (${perTick(entityPackets)} EntityPackets, ` +
    `${perTick(stateDeltas)} StateDeltas); load ${load}\n`,
);
