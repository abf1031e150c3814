// The session figures of the operators' console (issue 43): a player's round trip, as the server times it from
// the entity acknowledgements its client sends anyway (sessions/round-trip.ts, docs/server.md § Admin), over
// real UDP on loopback — a bot (the shared client core, asking for compact deltas) has one, present in the
// admin API's answers and positive; a spec-only client, which acknowledges nothing, has none, said as null.
// And its loss on the way down, from the pong counts its client reports in its Pings (docs/protocol.md § 12.4,
// sessions/downstream-loss.ts): none for the bot on a clean link, some for one behind a link that drops half
// of what comes down (netsim), none measured for the spec-only client.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Swarm } from "../ts/bots/swarm.js";
import { type DuplexProfile, parseProfileSpec } from "../ts/netsim/index.js";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { loadCore } from "../ts/wasm/node.js";
import { MAP_PATH } from "./e2e/browser-support.js";
import { UdpTestClient } from "./support/udp-client.js";

const TOKEN = "round-trip-test-token-0123456789abcdef";

interface Described {
  nick: string;
  transport: string;
  rtt: { ms: number; lastMs: number; samples: number } | null;
  inboundLoss: { sent: number; lost: number } | null;
  outboundLoss: { sent: number; lost: number } | null;
}

let server: RunningServer;
let bots: Swarm;
let lossy: Swarm;
let plain: UdpTestClient;
let startedMs: number;
let keepAlive: NodeJS.Timeout | undefined;

/** One wandering bot (the shared client core, asking for compact deltas) behind `netsim`, playing. */
async function wanderer(nickPrefix: string, netsim: DuplexProfile | null, seed: number): Promise<Swarm> {
  const swarm = new Swarm({
    count: 1,
    http: `http://127.0.0.1:${server.httpPort}`,
    server: null,
    behaviour: "wander",
    goal: null,
    netsim,
    seed,
    nickPrefix,
    joinParallel: 1,
    updateMs: 20,
    loadCore: () => loadCore(),
  });
  await swarm.joinAll();
  swarm.start();
  return swarm;
}

beforeAll(async () => {
  server = await startServer({
    host: "127.0.0.1",
    httpPort: 0,
    udpPort: 0,
    mapPath: MAP_PATH,
    logger: new Logger("silent"),
    adminToken: TOKEN,
  });
  startedMs = performance.now();
  bots = await wanderer("timed", null, 3);
  lossy = await wanderer("lossy", parseProfileSpec("down-loss=50").profile, 4);
  plain = await UdpTestClient.connect(server.httpPort, "Plain");
  plain.action(0, 0);
  await plain.waitFor("its position", () => plain.position());
  keepAlive = setInterval(() => plain.action(0, 0), 1000);
}, 60_000);

afterAll(async () => {
  clearInterval(keepAlive);
  bots?.stop();
  lossy?.stop();
  plain?.close();
  await server?.close();
});

async function players(): Promise<Described[]> {
  const response = await fetch(`http://127.0.0.1:${server.httpPort}/api/admin/players`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return ((await response.json()) as { players: Described[] }).players;
}

describe("a session's round trip, timed by the server", () => {
  it("is present and positive for a client that acknowledges its entity lists, over real UDP", async () => {
    let timed: Described | undefined;
    await expect
      .poll(
        async () => {
          timed = (await players()).find((player) => player.nick === "timed1");
          return timed?.rtt?.samples ?? 0;
        },
        { timeout: 15_000, interval: 200 },
      )
      .toBeGreaterThanOrEqual(2);
    const rtt = timed!.rtt!;
    expect(timed!.transport).toBe("udp");
    expect(rtt.ms).toBeGreaterThan(0);
    // The low of the recent samples is at most the newest one, and no round trip outlasts the test so far.
    expect(rtt.lastMs).toBeGreaterThanOrEqual(rtt.ms);
    expect(rtt.lastMs).toBeLessThan(performance.now() - startedMs);
    // The same description through the entity route the console's panel reads.
    const id = [...server.game.sessions.values()].find((session) => session.nick === "timed1")!.entity.id;
    const entity = (await (
      await fetch(`http://127.0.0.1:${server.httpPort}/api/admin/entity?id=${id}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).json()) as Described;
    expect(entity.rtt).toEqual({ ms: expect.any(Number), lastMs: expect.any(Number), samples: expect.any(Number) });
    expect(entity.rtt!.ms).toBeGreaterThan(0);
  });

  it("is null for a spec-only client, which acknowledges nothing", async () => {
    const described = (await players()).find((player) => player.nick === "Plain")!;
    expect(described.rtt).toBeNull();
  });
});

describe("a session's loss on the way down, from the pongs its client reports", () => {
  it("is none on a clean link, some behind a link that drops half, and not measured for a spec-only client", async () => {
    // One Ping a second: 16 pongs in the window make "none lost" of the lossy link a 1-in-65,536 chance.
    const windowFull = async () => {
      const all = await players();
      const sent = (nick: string) => all.find((player) => player.nick === nick)?.outboundLoss?.sent ?? 0;
      return sent("timed1") >= 16 && sent("lossy1") >= 16;
    };
    await expect.poll(windowFull, { timeout: 30_000, interval: 500 }).toBe(true);
    const all = await players();
    const clean = all.find((player) => player.nick === "timed1")!.outboundLoss!;
    const lossyLink = all.find((player) => player.nick === "lossy1")!.outboundLoss!;
    process.stderr.write(
      `test/admin-round-trip: pongs lost down: clean ${clean.lost} of ${clean.sent}, lossy ${lossyLink.lost} of ${lossyLink.sent}\n`,
    );
    expect(clean.lost).toBe(0);
    expect(lossyLink.lost).toBeGreaterThan(0);
    expect(lossyLink.lost).toBeLessThan(lossyLink.sent);
    expect(all.find((player) => player.nick === "Plain")!.outboundLoss).toBeNull();
  }, 40_000);
});
