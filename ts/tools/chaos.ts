// `npm run -s chaos -- --minutes 10` (docs/scaling.md § The chaos run): the launcher's own cluster
// (`npm run -s cluster`, from its bundle) on the chaos world (chaos/world.ts: two regions, chests full of
// gold and gear on both sides of the border, PvP, nothing that creates or consumes an item), with bots
// that register accounts, walk between the chests across the border, take, put, drop and pick up, trade
// with each other (chaos/trader.ts), fight each other and take the stairs down to dungeon levels and back up
// (chaos/carrier.ts) — while the run kills, at seeded random times, a region, a gateway,
// the redis-server or the PostgreSQL with SIGKILL, or freezes one with SIGSTOP and thaws it with SIGCONT
// (chaos/faults.ts). At the end it reports every fault and how long until every player it affected was
// playing again (chaos/recovery.ts), whether every item the world created is still there once and only
// once (PostgreSQL: the chests, the piles and the accounts' bags, each written before it was answered —
// every trade included), whether every account is there, whether a player who went down the stairs ever
// came out of its level anywhere but on the stairs (trapped), whether every player still walks at the end,
// and the steps lost or doubled at handoffs (each region's counts). Exit 1 on any loss.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import pg from "pg";
import { Swarm } from "../bots/swarm.js";
import type { PartHealth } from "../cluster/supervisor.js";
import { randomSeed } from "../netsim/index.js";
import { loadCore } from "../wasm/node.js";
import { Carrier } from "./chaos/carrier.js";
import { type Fault, planFaults } from "./chaos/faults.js";
import { quantile, RecoveryTracker } from "./chaos/recovery.js";
import { BotTrades } from "./chaos/trader.js";
import { CHAOS_CHESTS, CHAOS_ITEMS, CHAOS_STAIRS, createdItems, onChaosMap, writeChaosWorld } from "./chaos/world.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const HELP = `The chaos run: a cluster under random kills, checked for anything lost (docs/scaling.md § The chaos run)

usage: npm run -s chaos -- [options]

  --minutes N      how long the run lasts (default 10)
  --seconds N      the same in seconds (for short runs; overrides --minutes)
  --seed N         the seed of the faults and the bots (default: a random one, printed; the same seed
                   plans the same faults)
  --bots N         players, each an account (default 12)
  --gap S          mean seconds between two faults (default 20; the shortest gap is half of it)
  --targets LIST   what may be hit, comma-separated (default: region 0,region 1,gateway 0,gateway 1,redis-server,postgres)
  --json           print the report as one JSON line at the end as well
  --log FILE       where the cluster's log goes (default: caves-chaos-<pid>.log in the temporary folder)
  -h, --help       this text

Exit status: 0 when nothing was lost, 1 on any loss (an item, an account, a player never back, a player
out of a dungeon level anywhere but on its stairs, a player not walking at the end, a step lost or doubled
at a handoff, a part of the cluster not up at the end), 2 on bad arguments.
`;

const OPTIONS = {
  minutes: { type: "string", default: "10" },
  seconds: { type: "string" },
  seed: { type: "string" },
  bots: { type: "string", default: "12" },
  gap: { type: "string", default: "20" },
  targets: { type: "string", default: "region 0,region 1,gateway 0,gateway 1,redis-server,postgres" },
  json: { type: "boolean", default: false },
  log: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n\n${HELP}`);
  process.exit(2);
}

const parsed = (() => {
  try {
    return parseArgs({ options: OPTIONS });
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
})();
const values = parsed.values;

function positive(name: string, value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) fail(`--${name} must be a positive number, not "${value}"`);
  return number;
}

if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const durationMs =
  values.seconds !== undefined
    ? positive("seconds", values.seconds) * 1000
    : positive("minutes", values.minutes) * 60_000;
const seed = values.seed !== undefined ? Math.trunc(positive("seed", values.seed)) : randomSeed();
const botCount = Math.trunc(positive("bots", values.bots));
const meanGapMs = positive("gap", values.gap) * 1000;
const targets = values.targets.split(",").map((target) => target.trim());
for (const target of targets) {
  if (!/^(region \d+|gateway \d+|redis-server|postgres)$/.test(target)) fail(`unknown target "${target}"`);
}
if (durationMs < 45_000) fail("a run lasts at least 45 s (15 s to start playing, 30 s quiet at the end)");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const startedMs = performance.now();
const elapsed = () => ((performance.now() - startedMs) / 1000).toFixed(0).padStart(4);
const say = (line: string) => process.stdout.write(`[${elapsed()} s] ${line}\n`);

interface Ready {
  redis: string;
  postgres: string | null;
  regions: { region: number; httpPort: number }[];
  gateways: { id: string; httpPort: number; udpPort: number }[];
  pid: number;
}

/** The launcher, started from its bundle as `npm run -s cluster` runs it; its output goes to a log file. */
async function startCluster(
  mapPath: string,
  layoutPath: string,
  logPath: string,
): Promise<{ child: ChildProcess; ready: Ready }> {
  // Built when its sources changed since (by content: scripts/build-node.mjs), the cluster bundle alone.
  execFileSync(process.execPath, [join(ROOT, "scripts/build-node.mjs"), "--if-missing", "--only", "cluster"], {
    stdio: "inherit",
  });
  const child = spawn(
    process.execPath,
    [
      "--enable-source-maps",
      join(ROOT, "build/node/cluster.mjs"),
      ...["--layout", layoutPath, "--map", mapPath, "--gateways", "2", "--pvp", "--json"],
      ...["--http-port", "0", "--udp-port", "0", "--log-level", "warn"],
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const log = createWriteStream(logPath);
  child.stderr!.pipe(log);
  let out = "";
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no cluster within 90 s")), 90_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const newline = out.indexOf("\n");
      if (newline < 0) return;
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out.slice(0, newline)) as Ready);
      } catch (error) {
        reject(new Error(`the cluster's first line is not its ports: ${out.slice(0, newline)} (${String(error)})`));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the cluster exited (${String(code)}) before it was up; its log: ${logPath}`));
    });
  });
  child.stdout!.resume();
  return { child, ready };
}

/** The parts' health, from whichever gateway answers. */
async function healthOf(ready: Ready): Promise<PartHealth[] | null> {
  for (const gateway of ready.gateways) {
    try {
      const response = await fetch(`http://127.0.0.1:${gateway.httpPort}/api/cluster`, {
        signal: AbortSignal.timeout(1500),
      });
      const body = (await response.json()) as { health?: PartHealth[] };
      if (Array.isArray(body.health)) return body.health;
    } catch {
      // That gateway is down or frozen: the next one.
    }
  }
  return null;
}

/** Whether `pid` is `ancestor` or descends from it (/proc): the run signals nothing but the cluster's own. */
function descendsFrom(pid: number, ancestor: number): boolean {
  for (let at = pid, hops = 0; at > 1 && hops < 16; hops++) {
    if (at === ancestor) return true;
    try {
      const stat = readFileSync(`/proc/${at}/stat`, "utf8");
      at = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * Whether `pid` is a part of this run's cluster: a descendant of its launcher, or — pg_ctl leaves the
 * postmaster on its own, reparented — a postgres listening on this run's own port (its command line).
 */
function ownPart(pid: number, launcher: number, postgresUrl: string | null): boolean {
  if (descendsFrom(pid, launcher)) return true;
  if (postgresUrl === null) return false;
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    const port = new URL(postgresUrl).port;
    return command.some((arg) => arg.endsWith("postgres")) && command.join(" ").includes(`-p ${port} `);
  } catch {
    return false;
  }
}

/** `pid` and its children (a PostgreSQL postmaster's backends freeze with it). */
function withChildren(pid: number): number[] {
  try {
    const out = execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" });
    return [
      pid,
      ...out
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => Number(line.trim())),
    ];
  } catch {
    return [pid]; // no children (ps exits 1)
  }
}

/** What each region life counted of the steps handoffs carried (by pid: a killed region's counts end with it). */
interface StepCounts {
  handoffsIn: number;
  carried: number;
  owed: number;
  lost: number;
  /** Of the lost: no room in the owed queue; lost at a restore from a checkpoint. */
  lostOwedFull: number;
  lostAtRestore: number;
  /** Steps a region's clock jumped over after a stall that found the owed queue full (not a handoff's). */
  lostAtRejoin: number;
  /** The longest owed queue carried in (a maximum, not a sum). */
  owedCarriedMax: number;
  doubled: number;
  rerouted: number;
}

async function main(): Promise<number> {
  const faults = planFaults({
    seed,
    durationMs,
    targets,
    meanGapMs,
    minGapMs: meanGapMs / 2,
    firstAtMs: 15_000,
    quietEndMs: 30_000,
    maxStopMs: 5_000,
  });
  say(
    `chaos run: ${(durationMs / 60_000).toFixed(1)} min, ${botCount} bots, ${faults.length} faults planned, ` +
      `seed ${seed} (--seed ${seed} repeats the plan)`,
  );
  const world = writeChaosWorld();
  const logPath = values.log ?? join(tmpdir(), `caves-chaos-${process.pid}.log`);
  const { child, ready } = await startCluster(world.mapPath, world.layoutPath, logPath);
  say(
    `cluster up: 2 regions, 2 gateways (http ${ready.gateways.map((g) => g.httpPort).join(", ")}); its log: ${logPath}`,
  );
  if (ready.postgres === null) throw new Error("the cluster started without PostgreSQL: the run cannot count items");
  const frozen = new Set<number>();
  const redis = new Redis(ready.redis, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on("error", () => {}); // it is killed on purpose; reconnects by itself
  const steps = new Map<string, StepCounts>();
  // The bots trade with each other: the run knows each one's entity id and nick.
  const nickOf = (entityId: number): string | null =>
    swarm.bots.find((bot) => bot.client.ownEntityId === entityId)?.nick ?? null;
  const trades = new BotTrades(nickOf);
  const carrier = new Carrier(CHAOS_CHESTS, trades, { down: CHAOS_STAIRS, onMap: onChaosMap });
  const swarm = new Swarm({
    count: botCount,
    http: `http://127.0.0.1:${ready.gateways[0].httpPort}`,
    server: null,
    behaviour: "wander",
    custom: carrier,
    goal: null,
    netsim: null,
    seed,
    nickPrefix: "Chaos",
    joinParallel: 4,
    updateMs: 50,
    accountPassword: "chaos run password",
    loadCore: () => loadCore(),
  });
  let cleaned: Promise<void> | null = null;
  /** Everything the run started, ended: the bots, any part it froze thawed, the launcher with every part it started. */
  const cleanUp = () =>
    (cleaned ??= (async () => {
      swarm.stop();
      for (const pid of frozen) {
        try {
          process.kill(pid, "SIGCONT"); // a frozen part would hold the launcher's shutdown up
        } catch {
          // Gone.
        }
      }
      redis.disconnect();
      child.kill("SIGTERM");
      const exited =
        child.exitCode !== null ||
        (await Promise.race([
          new Promise<boolean>((resolve) => child.once("exit", () => resolve(true))),
          sleep(20_000).then(() => false),
        ]));
      if (!exited && child.exitCode === null) child.kill("SIGKILL");
      world.dispose();
    })());
  // Stopped from outside (a test's bound, ^C): nothing is left running.
  const onSignal = () => void cleanUp().finally(() => process.exit(1));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await redis.connect().catch(() => {});
    swarm.start();
    await swarm.joinAll();
    say(`${swarm.bots.length} of ${botCount} bots playing (${swarm.joinFailures} joins failed)`);

    // Each bot's play, sampled every 100 ms: a State within the last second while the core says "playing".
    const tracker = new RecoveryTracker();
    const lastStates = swarm.bots.map(() => ({ count: -1, atMs: 0 }));
    const playingNow = (nowMs: number) =>
      swarm.bots.map((bot, index) => {
        const received = bot.client.stats.statesReceived;
        const last = lastStates[index];
        if (received !== last.count) {
          last.count = received;
          last.atMs = nowMs;
        }
        return bot.client.state === "playing" && nowMs - last.atMs < 1000;
      });
    // Each bot's place, sampled with it: one that was below (in a level) and is next seen on the map must be
    // on (or a step from) stairs down — a level is left by its stairs up, or a restore puts the player on
    // them; anywhere else (the spawn) it was taken out of its level without a word: trapped.
    const wasBelow = swarm.bots.map(() => false);
    /** Seen dead since it was last on the map: a death below respawns at the spawn (as in one process), no trap. */
    const diedBelow = swarm.bots.map(() => false);
    let deathsBelow = 0;
    const wentDown = new Set<number>();
    const trapped: string[] = [];
    /** Bots seen walking (a new place) since `walkedSince` was reset, at the quiet end. */
    const walked = new Set<number>();
    const placeAt = swarm.bots.map(() => "");
    const nearStairs = (x: number, y: number) =>
      CHAOS_STAIRS.some((stairs) => Math.max(Math.abs(stairs.x - x), Math.abs(stairs.y - y)) <= 2);
    const samplePlaces = () => {
      swarm.bots.forEach((bot, index) => {
        const at = bot.client.state === "playing" ? bot.client.confirmed : null;
        if (at === null) return;
        const place = `${at.x},${at.y}`;
        if (place !== placeAt[index]) {
          if (placeAt[index] !== "") walked.add(index);
          placeAt[index] = place;
        }
        const below = !onChaosMap(at.x, at.y);
        if (below) {
          wentDown.add(index);
          // A bot stepping onto another's tile strikes it (PvP): bots walking about near a level's stairs kill.
          if (bot.client.entities.get(bot.client.ownEntityId)?.hp === 0) diedBelow[index] = true;
        } else if (wasBelow[index] && diedBelow[index]) deathsBelow++;
        else if (wasBelow[index] && !nearStairs(at.x, at.y)) {
          trapped.push(`${bot.nick} out of its level at (${at.x}, ${at.y}), ${elapsed().trim()} s`);
          say(`${bot.nick} came out of its level at (${at.x}, ${at.y}), not on the stairs`);
        }
        if (!below) diedBelow[index] = false;
        wasBelow[index] = below;
      });
    };
    const sampler = setInterval(() => {
      const nowMs = performance.now();
      tracker.sample(nowMs, playingNow(nowMs));
      samplePlaces();
    }, 100);

    // Each region's step counts, every 2 s, by region life.
    const pollSteps = async () => {
      let endpoints: (string | null)[] = [];
      try {
        endpoints = await redis.mget(ready.regions.map((region) => `fc:region:${region.region}`));
      } catch {
        return; // Redis down or frozen: next time
      }
      await Promise.all(
        endpoints.map(async (endpoint, region) => {
          if (endpoint === null) return;
          const { httpPort, pid } = JSON.parse(endpoint) as { httpPort: number; pid: number };
          try {
            const response = await fetch(`http://127.0.0.1:${httpPort}/api/cluster`, {
              signal: AbortSignal.timeout(1500),
            });
            const body = (await response.json()) as Record<string, unknown> & { stepOutcomes?: Record<string, number> };
            const n = (key: string) => (typeof body[key] === "number" ? (body[key] as number) : 0);
            steps.set(`${region}/${pid}`, {
              handoffsIn: n("handoffsIn"),
              carried: n("stepsCarried"),
              owed: n("stepsMovedWindow") + (body.stepOutcomes?.late_owed ?? 0),
              lost: n("stepsLost") + (body.stepOutcomes?.owed_dropped ?? 0),
              lostOwedFull: n("stepsLostOwedFull") + (body.stepOutcomes?.owed_dropped ?? 0),
              lostAtRestore: n("stepsLostAtRestore"),
              lostAtRejoin: n("stepsLostAtRejoin"),
              owedCarriedMax: n("owedCarriedMax"),
              doubled: n("stepsDoubled"),
              rerouted: n("reroutedIn"),
            });
          } catch {
            // Down or frozen: next time.
          }
        }),
      );
    };
    const stepTotals = (): StepCounts => {
      const total: StepCounts = {
        handoffsIn: 0,
        carried: 0,
        owed: 0,
        lost: 0,
        lostOwedFull: 0,
        lostAtRestore: 0,
        lostAtRejoin: 0,
        owedCarriedMax: 0,
        doubled: 0,
        rerouted: 0,
      };
      for (const counts of steps.values()) {
        for (const key of Object.keys(total) as (keyof StepCounts)[]) {
          total[key] = key === "owedCarriedMax" ? Math.max(total[key], counts[key]) : total[key] + counts[key];
        }
      }
      return total;
    };
    let polling = false;
    const poller = setInterval(() => {
      if (polling) return;
      polling = true;
      void pollSteps().finally(() => (polling = false));
    }, 2000);

    // The faults, each at its time from the start of play.
    const playStartMs = performance.now();
    const done: { fault: Fault; label: string; skipped: string | null }[] = [];
    let progressAtMs = playStartMs;
    for (const fault of faults) {
      while (performance.now() - playStartMs < fault.atMs) {
        await sleep(100);
        if (performance.now() - progressAtMs >= 10_000) {
          progressAtMs = performance.now();
          const playing = playingNow(progressAtMs).filter(Boolean).length;
          const totals = stepTotals();
          say(
            `${playing}/${swarm.bots.length} playing; ${done.length}/${faults.length} faults; ` +
              `${totals.handoffsIn} handoffs, steps carried ${totals.carried}, owed ${totals.owed}, lost ${totals.lost}, doubled ${totals.doubled}; ` +
              `bots took ${carrier.counts.takes}, put ${carrier.counts.puts}, dropped ${carrier.counts.drops}, attacked ${carrier.counts.attacks}, ` +
              `traded ${trades.counts.done / 2} (asked ${trades.counts.asked}), went below ${carrier.counts.arrivedBelow}`,
          );
        }
      }
      const label = `${fault.signal === "SIGKILL" ? "SIGKILL" : `SIGSTOP ${(fault.stopMs / 1000).toFixed(1)} s`} ${fault.target}`;
      // A gateway slow to answer on a loaded machine is asked again before the fault is given up.
      let health = await healthOf(ready);
      for (let tries = 0; health === null && tries < 5; tries++) health = await healthOf(ready);
      const part = health?.find((entry) => entry.name === fault.target);
      if (
        part === undefined ||
        part.state !== "up" ||
        part.pid === null ||
        !ownPart(part.pid, child.pid!, ready.postgres)
      ) {
        const why =
          part?.state !== "up" ? `not up (${part?.state ?? "no health"})` : `pid ${part.pid} is not the run's`;
        done.push({ fault, label, skipped: `${fault.target} ${why}` });
        say(`${label}: skipped, ${fault.target} ${why}`);
        continue;
      }
      const pids = fault.signal === "SIGSTOP" && fault.target === "postgres" ? withChildren(part.pid) : [part.pid];
      tracker.fault(performance.now(), label);
      for (const pid of pids) {
        try {
          process.kill(pid, fault.signal);
          if (fault.signal === "SIGSTOP") frozen.add(pid);
        } catch {
          // Gone meanwhile.
        }
      }
      done.push({ fault, label, skipped: null });
      say(`${label} (pid ${part.pid})`);
      if (fault.signal === "SIGSTOP") {
        setTimeout(() => {
          for (const pid of pids) {
            frozen.delete(pid);
            try {
              process.kill(pid, "SIGCONT");
            } catch {
              // Gone meanwhile.
            }
          }
        }, fault.stopMs);
      }
    }
    // The quiet end: every player should be back, every part up, and walking again: a bot seen at one place
    // only through the last 25 s (its trades give up within 20) cannot play.
    while (performance.now() - playStartMs < durationMs - 25_000) await sleep(500);
    walked.clear();
    while (performance.now() - playStartMs < durationMs) await sleep(500);
    const stuck = swarm.bots
      .filter((_, index) => !walked.has(index))
      .map((bot) => {
        // What it was doing, for the run's reader: alive, fighting, walking a click, trading, steps unconfirmed.
        const client = bot.client;
        const own = client.entities.get(client.ownEntityId);
        return (
          `${bot.nick} at ${placeAt[bot.index]} (hp ${own?.hp ?? "?"}, attacking ${client.attackTarget}, ` +
          `goal ${client.goal === null ? "none" : `${client.goal.x},${client.goal.y}`}, ${client.pending.length} steps pending, ` +
          `${client.items.pending.length} item requests pending, ${client.dialogs.shown.size} windows, trading ${trades.trading(client)})`
        );
      });
    const belowAtEnd = swarm.bots.filter((_, index) => wasBelow[index]).length;
    const health = await healthOf(ready);
    const notUp =
      health === null ? ["(no gateway answers)"] : health.filter((p) => p.state !== "up").map((p) => p.name);
    clearInterval(sampler);
    await pollSteps();
    clearInterval(poller);
    const neverBack = tracker.neverBack().map(({ bot, label }) => `${swarm.bots[bot].nick} (after ${label})`);
    // The bots leave; then the store is read. Every item change was written before it was answered, so
    // what PostgreSQL holds is the world (a change in flight at the end is written or not, never half).
    swarm.stop();
    await sleep(2000);
    const db = new pg.Client({ connectionString: ready.postgres });
    await db.connect();
    const found = new Map<number, number>();
    const rows = await db.query<{ item_id: number; n: string }>(
      "SELECT item_id, SUM(count) AS n FROM (SELECT item_id, count FROM item_stacks UNION ALL SELECT item_id, count FROM item_piles) AS every GROUP BY item_id",
    );
    for (const row of rows.rows) found.set(Number(row.item_id), Number(row.n));
    // A chest nobody ever touched may have no row yet (seeded at its first write): it holds what the map gave it.
    const chestRows = await db.query<{ key: string }>("SELECT key FROM item_containers WHERE key LIKE 'chest:%'");
    const untouched = CHAOS_CHESTS.length - chestRows.rows.length;
    if (untouched > 0) say(`${untouched} chests never written: counted as the map filled them`);
    const accounts = await db.query<{ name: string }>("SELECT name FROM accounts");
    await db.end();
    const names = new Set(accounts.rows.map((row) => row.name));
    const missingAccounts = swarm.bots.map((bot) => bot.nick).filter((nick) => !names.has(nick));
    const created = createdItems();
    const items = CHAOS_ITEMS.map((item) => ({
      item: item.name,
      created: created.get(item.id) ?? 0,
      found: found.get(item.id) ?? 0,
    }));
    if (untouched > 0) {
      const written = new Set(chestRows.rows.map((row) => Number(row.key.split(":").at(-1))));
      CHAOS_CHESTS.forEach((chest, index) => {
        // The chests are the map's objects 2, 3, … (the spawn is object 1): chaos/world.ts.
        if (written.has(index + 2)) return;
        for (const [id, count] of chest.items) {
          const entry = items.find((i) => i.item === CHAOS_ITEMS.find((c) => c.id === id)!.name)!;
          entry.found += count;
        }
      });
    }

    // The report.
    const struck = done.filter((entry) => entry.skipped === null);
    const perFault = tracker.faults.map((fault) => {
      const back = [...fault.backMs.values()];
      return { fault: fault.label, affected: back.length, allBackMs: back.length === 0 ? 0 : Math.max(...back) };
    });
    const perPlayer = tracker.faults.flatMap((fault) => [...fault.backMs.values()]).filter((ms) => !Number.isNaN(ms));
    const allBack = perFault
      .filter((entry) => entry.affected > 0)
      .map((entry) => entry.allBackMs)
      .filter((ms) => !Number.isNaN(ms));
    const totals = stepTotals();
    const itemLoss = items.filter((entry) => entry.found !== entry.created);
    const report = {
      seed,
      world: world.mapPath,
      minutes: durationMs / 60_000,
      bots: swarm.bots.length,
      faults: perFault,
      skipped: done.filter((entry) => entry.skipped !== null).map((entry) => `${entry.label}: ${entry.skipped}`),
      playersBackMs: { p50: quantile(perPlayer, 0.5), p99: quantile(perPlayer, 0.99), max: quantile(perPlayer, 1) },
      everyoneBackMs: { p50: quantile(allBack, 0.5), p99: quantile(allBack, 0.99), max: quantile(allBack, 1) },
      neverBack,
      items,
      accounts: { registered: swarm.bots.length, missing: missingAccounts },
      steps: totals,
      botActions: carrier.counts,
      trades: trades.counts,
      stairs: { wentDown: wentDown.size, belowAtEnd, deathsBelow, trapped },
      stuck,
      notUp,
    };
    const ms = (value: number) => (Number.isNaN(value) ? "—" : `${(value / 1000).toFixed(2)} s`);
    say("— report —");
    for (const entry of perFault) {
      say(`  ${entry.fault}: ${entry.affected} players affected, all back after ${ms(entry.allBackMs)}`);
    }
    for (const line of report.skipped) say(`  ${line}`);
    say(
      `  ${struck.length} faults struck; a player back after p50 ${ms(report.playersBackMs.p50)}, p99 ${ms(report.playersBackMs.p99)}, ` +
        `max ${ms(report.playersBackMs.max)}; every affected player back after p50 ${ms(report.everyoneBackMs.p50)}, ` +
        `p99 ${ms(report.everyoneBackMs.p99)}, max ${ms(report.everyoneBackMs.max)}`,
    );
    say(`  never back: ${neverBack.length === 0 ? "none" : neverBack.join(", ")}`);
    say(
      `  items (created → found): ${items.map((entry) => `${entry.item} ${entry.created} → ${entry.found}`).join(", ")}`,
    );
    say(
      `  accounts: ${report.accounts.registered} registered, missing: ${missingAccounts.length === 0 ? "none" : missingAccounts.join(", ")}`,
    );
    say(
      `  handoffs: ${totals.handoffsIn}; steps carried ${totals.carried}, rerouted datagrams ${totals.rerouted}, ` +
        `owed ${totals.owed}, lost ${totals.lost} (${totals.lostOwedFull} for want of room in the owed queue, ` +
        `${totals.lost - totals.lostOwedFull} beyond a horizon; ${totals.lostAtRestore} at a restore from a checkpoint), ` +
        `doubled ${totals.doubled} (counted over every region life seen); the longest owed queue carried ${totals.owedCarriedMax}; ` +
        `steps of windows a stalled region jumped over that found the owed queue full ${totals.lostAtRejoin}`,
    );
    say(
      `  bots: took ${carrier.counts.takes}, put ${carrier.counts.puts}, dropped ${carrier.counts.drops}, attacked ${carrier.counts.attacks}`,
    );
    say(
      `  trades: ${trades.counts.asked} asked, ${trades.counts.accepted} accepted, ${trades.counts.done / 2} done ` +
        `(each heard by both), ${trades.counts.off} called off, ${trades.counts.gaveUp} given up by a bot; the lines that ended them: ` +
        [...trades.endings].map(([line, n]) => `${n} × "${line}"`).join(", "),
    );
    say(
      `  stairs: ${carrier.counts.stairsDown} walks down, ${carrier.counts.arrivedBelow} arrivals below, ${carrier.counts.stairsUp} clicks on the stairs up; ` +
        `${wentDown.size} bots went below, ${belowAtEnd} below at the end, ${deathsBelow} killed below (respawned at the spawn); ` +
        `out of a level elsewhere than its stairs, alive: ${trapped.length === 0 ? "none" : trapped.join(", ")}`,
    );
    say(`  not walking at the end: ${stuck.length === 0 ? "none" : stuck.join(", ")}`);
    say(`  parts not up at the end: ${notUp.length === 0 ? "none" : notUp.join(", ")}`);
    const lost =
      itemLoss.length > 0 ||
      missingAccounts.length > 0 ||
      neverBack.length > 0 ||
      trapped.length > 0 ||
      stuck.length > 0 ||
      totals.lost > 0 ||
      totals.doubled > 0 ||
      notUp.length > 0;
    say(lost ? "LOSS: see above" : "nothing lost");
    if (values.json) process.stdout.write(`${JSON.stringify({ ...report, lost })}\n`);
    return lost ? 1 : 0;
  } finally {
    await cleanUp();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
