// The broadcast among thousands of creatures, without sockets: a real Game on a 1024² floor map with
// PLAYERS bound sessions (peers that count and drop what they are sent) and CREATURES entities spread
// at random, an eighth of them stepping each tick (what the npcs suite's creatures do at speed 25),
// the players a step a window. Times Game.step() — the broadcast is nearly all of it here — so a
// change to the view query, the kept entries or the checksum shows in the JavaScript alone, without
// the kernel's share and the bots' noise of the npcs suite.
// Run: taskset -c 0 npx tsx bench/micro/broadcast-round.ts [--ticks N] [--players N] [--creatures N]
// (note `uptime` beside the figures; compare runs made back to back).
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { Game } from "../../ts/server/game-server.js";
import { Logger } from "../../ts/server/ops/log.js";
import type { Peer } from "../../ts/server/edge/peer.js";
import { loadCore } from "../../ts/wasm/node.js";
import { floorMap, joinAndBind } from "../../test/support/game-without-network.js";
import { xorshift } from "../lib/data.js";

const { values } = parseArgs({
  options: {
    ticks: { type: "string", default: "960" },
    players: { type: "string", default: "2000" },
    creatures: { type: "string", default: "20000" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  process.stdout.write(
    "usage: npx tsx bench/micro/broadcast-round.ts [--ticks 960] [--players 2000] [--creatures 20000]\n",
  );
  process.exit(0);
}
const TICKS = Number(values.ticks);
const PLAYERS = Number(values.players);
const CREATURES = Number(values.creatures);
for (const [flag, value] of [
  ["--ticks", TICKS],
  ["--players", PLAYERS],
  ["--creatures", CREATURES],
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
  constructor(
    readonly key: string,
    readonly address: string,
  ) {}
  send(datagram: Uint8Array): void {
    this.datagrams++;
    this.bytes += datagram.length;
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
for (let index = 0; index < PLAYERS; index++) {
  const peer = new DroppingPeer(`bench:${index}`, "10.0.0.1");
  const session = joinAndBind(game, `p${index}`, peer);
  game.entities.move(session.entity, at(), at());
  peers.push(peer);
  players.push(session.entity);
}
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
for (let tick = 0; tick < WARMUP_TICKS + TICKS; tick++) {
  // An eighth of the creatures step each tick; the players a step a window (every 4th tick).
  for (let index = tick % 8; index < creatures.length; index += 8) step(creatures[index]);
  if (tick % 4 === 0) for (const player of players) step(player);
  const start = performance.now();
  game.step();
  if (tick >= WARMUP_TICKS) times.push(performance.now() - start);
}
times.sort((a, b) => a - b);
const pick = (p: number): string => times[Math.floor((times.length - 1) * p)].toFixed(2);
const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
const datagrams = peers.reduce((sum, peer) => sum + peer.datagrams, 0);
const load = (await import("node:os")).loadavg()[0].toFixed(2);
process.stdout.write(
  `${PLAYERS} players, ${CREATURES} creatures, ${TICKS} ticks: Game.step mean ${mean.toFixed(2)} ms, ` +
    `p50 ${pick(0.5)}, p99 ${pick(0.99)}; ${((mean * 1000 * 24) / Math.max(1, PLAYERS)).toFixed(1)} µs per client-second ` +
    `(JavaScript only, at 24 ticks/s); ${(datagrams / (WARMUP_TICKS + TICKS)).toFixed(0)} datagrams per tick; load ${load}\n`,
);
