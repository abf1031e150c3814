// The social suite (issue 39: "a bench row with 2000 bots in parties of four trading and messaging at a
// realistic rate: tick p99 < 20 ms"). The server suite's server on its plain world with social camps
// (bench/server/world.ts `social`): half the bots play together (bench/server/bots.ts --social,
// bench/server/social.ts) — parties of four formed by /invite and Join, a trade with a neighbour every
// 6–10 s (/trade, /offer, Confirm: one item transaction each), and every one of them talking at chat's rate
// limit (public lines, /tell to another social bot, /p to the party) — while the other half wander as in
// the server suite. Reported: tick p50/p99, server CPU, States/s per bot, lines posted and heard and trades
// done per second, and the census of every camp's items after the window against what the chests held.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TICK_HZ, BROADCAST_EVERY_TICKS } from "../../ts/constants.js";
import { type RunOptions, fmt, log, loadNow, runHeader } from "../lib/harness.js";
import type { SuiteResult, Target } from "../lib/results.js";
import { LINE_EVERY_MS, PUBLIC_EVERY_LINES, TRADE_AGAIN_MS } from "../server/social.js";
import { CAMP_CHESTS, writeWorld } from "../server/world.js";
import { type ScaleRow, holdsRates, loadCell, ratesText, runScale } from "./server.js";

/** The row: 2000 bots, half of them in camps of four. */
export const SOCIAL_BOTS = 2000;
export const SOCIAL_SHARE = 0.5;
const TICK_P99_GOAL_MS = 20;
const BROADCAST_HZ = TICK_HZ / BROADCAST_EVERY_TICKS;

/** Social bots among `bots`: SOCIAL_SHARE of them, in whole camps of four. */
export function socialBotsOf(bots: number): number {
  return Math.floor((bots * SOCIAL_SHARE) / 4) * 4;
}

/** Whether the census after the window is every camp's items exactly, every social bot answering it. */
export function censusConserved(row: ScaleRow): boolean {
  const social = row.bot.social;
  if (!social || social.answered !== social.bots) return false;
  const ids = new Set([...Object.keys(social.census), ...Object.keys(social.expected)]);
  return [...ids].every((id) => (social.census[id] ?? 0) === (social.expected[id] ?? 0));
}

/** The census in words: "gold coin 25000 of 25000, …" by item id, and who answered. */
function censusText(row: ScaleRow): string {
  const social = row.bot.social;
  if (!social) return "no census";
  const items = Object.keys(social.expected)
    .map((id) => `item ${id}: ${social.census[id] ?? 0} of ${social.expected[id]}`)
    .join(", ");
  return `${items} (${social.answered} of ${social.bots} social bots answered)`;
}

/** Per-second rates of the window: lines posted, private and party lines heard, trades done. */
export function socialRates(row: ScaleRow): {
  postedPerSecond: number;
  tellsHeardPerSecond: number;
  partyHeardPerSecond: number;
  tradesPerSecond: number;
} {
  const social = row.bot.social;
  const perSecond = (count: number) => (social ? count / row.bot.seconds : NaN);
  return {
    postedPerSecond: perSecond(
      social ? social.said + social.tells + social.partyLines + social.tradeLines + social.invites : 0,
    ),
    tellsHeardPerSecond: perSecond(social?.privateHeard ?? 0),
    partyHeardPerSecond: perSecond(social?.partyHeard ?? 0),
    tradesPerSecond: perSecond(social?.tradesDone ?? 0),
  };
}

/** The suite's table columns, one per cell of socialTableRow. */
export const SOCIAL_COLUMNS = [
  "row",
  "load 1-min before / after",
  "server CPU %",
  "tick ms p50 / p99",
  "ticks/s",
  "States/s per bot",
  "lines posted/s (said / tells / party / trade)",
  "rate-limited / refused",
  "private / party lines heard per s",
  "trades done/s (asked, given up)",
  "census after the window",
  "holds",
] as const;

export function socialTableRow(row: ScaleRow): string[] {
  const social = row.bot.social;
  const rates = socialRates(row);
  const perSecond = (count: number) => fmt(count / row.bot.seconds);
  return [
    `${row.bots} bots, ${social?.bots ?? 0} social`,
    loadCell(row),
    fmt(row.serverCpuPercent),
    `${fmt(row.tickMs.p50)} / ${fmt(row.tickMs.p99)}`,
    fmt(row.tickRateHz),
    fmt(row.bot.perBot.statePerSecond),
    social
      ? `${fmt(rates.postedPerSecond)} (${perSecond(social.said)} / ${perSecond(social.tells)} / ${perSecond(social.partyLines)} / ${perSecond(social.tradeLines + social.invites)})`
      : "—",
    social ? `${social.rateLimited} / ${social.refused}` : "—",
    social ? `${fmt(rates.tellsHeardPerSecond)} / ${fmt(rates.partyHeardPerSecond)}` : "—",
    social ? `${fmt(rates.tradesPerSecond)} (${social.tradesAsked}, ${social.tradesGivenUp})` : "—",
    `${censusConserved(row) ? "conserved" : "**not conserved**"}: ${censusText(row)}`,
    holdsRates(row, TICK_P99_GOAL_MS) && censusConserved(row) ? "yes" : "**no**",
  ];
}

/** The target, judged only at SOCIAL_BOTS bots. */
export function socialTargets(row: ScaleRow): Target[] {
  const full = row.bots === SOCIAL_BOTS;
  const rates = socialRates(row);
  return [
    {
      target: `${SOCIAL_BOTS} bots, half in parties of four trading and messaging: p99 tick < ${TICK_P99_GOAL_MS} ms with ${TICK_HZ} ticks/s and ${BROADCAST_HZ} States/s per bot held (≥ 95 %), and every camp's items conserved`,
      measured: full
        ? `${ratesText(row)}; ${fmt(rates.postedPerSecond)} lines/s posted, ${fmt(rates.tradesPerSecond)} trades/s done; census ${censusConserved(row) ? "conserved" : "NOT conserved"}: ${censusText(row)}`
        : `not run (bots ${row.bots})`,
      met: full ? holdsRates(row, TICK_P99_GOAL_MS) && censusConserved(row) : null,
    },
  ];
}

/**
 * One social row: a fresh server on a world with camps for the social share of `bots`, `warmupS` after the
 * joins, a `measureS` window, then the census. The suite's row, and the bench test's tiny one.
 */
export async function socialRow(
  bots: number,
  warmupS: number,
  measureS: number,
  nodeArgs?: string[],
): Promise<ScaleRow> {
  const social = socialBotsOf(bots);
  const dir = mkdtempSync(join(tmpdir(), "fc-social-"));
  try {
    const mapPath = writeWorld(join(dir, "world"), { npcs: 0, social: { camps: social / 4 } });
    log(`social: ${bots} bots, ${social} of them in ${social / 4} camps`);
    return await runScale(mapPath, bots, false, warmupS, measureS, "auto", {
      sampleNpcs: false,
      social,
      nodeArgs,
      // Chests keep what players leave in them across restarts: each row's must start full.
      db: ":memory:",
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runSocial(
  options: RunOptions & { npcBots?: number; cpuProfileDir?: string },
): Promise<SuiteResult> {
  const loadStart = loadNow();
  const bots = options.npcBots ?? (options.quick ? 100 : SOCIAL_BOTS);
  const warmupS = options.quick ? 4 : 10;
  const measureS = options.quick ? 8 : 30;
  const row = await socialRow(
    bots,
    warmupS,
    measureS,
    options.cpuProfileDir ? ["--cpu-prof", "--cpu-prof-dir", options.cpuProfileDir] : undefined,
  );
  return {
    suite: "social",
    title: `Playing together: ${bots} bots, ${socialBotsOf(bots)} of them in parties of four trading and messaging`,
    ...runHeader(options.quick, loadStart),
    timing:
      `a fresh server, ${warmupS} s warm-up after all joins, then a ${measureS} s window; server CPU from /proc/<pid>/stat; ` +
      "tick percentiles over the window's ticks; the bots' counts over the window; the census after it (open trades called off, " +
      "2 s, then every social bot's own and chest's EntityDetail asked until answered); load average before and after the row",
    tables: [
      {
        title: "Social bots on a busy world (server on core 0, bots on core 1)",
        columns: [...SOCIAL_COLUMNS],
        rows: [socialTableRow(row)],
        note:
          `World: the server suite's 1024×1024 with ${socialBotsOf(bots) / 4} camps of four at seeded random places, each member beside a chest ` +
          `(${CAMP_CHESTS.join(", ")}; bench/server/world.ts). Social bots (bench/server/bots.ts --social, bench/server/social.ts) stand at their camp: ` +
          "each takes its chest's items (take_all), member 0 invites the other three (/invite, Join), members 0 and 2 ask 1 and 3 to trade " +
          `every ${TRADE_AGAIN_MS.min / 1000}–${TRADE_AGAIN_MS.max / 1000} s (/trade, Trade; /offer 5 gold coin or 1 healing potion, whichever the bag holds more offers of; ` +
          `Confirm once the window shows both offers), and every social bot posts one line each ${LINE_EVERY_MS} ms (chat's limit) — a trade's or ` +
          `an invitation's command when one waits, else a /tell to a random social bot and a /p line in turn, one line in ${PUBLIC_EVERY_LINES} a public one ` +
          "(heard by every player of the world: one a second from each social bot would be a fan-out no world sees). The other bots wander. " +
          'Lines posted: acknowledged as posted; trades done: "Trade done" heard by the asker. Census: the bags and chests of every camp ' +
          "after the window against what the chests held at the start. " +
          `Holds: ≥ 95 % of ${TICK_HZ} ticks/s and ${BROADCAST_HZ} States/s per bot, p99 tick under ${TICK_P99_GOAL_MS} ms, census conserved.`,
      },
    ],
    charts: [],
    targets: socialTargets(row),
    notes: [
      "Reproduce: bench/server/world.ts writeWorld(dir, { social: { camps: 250 } }), the server suite's server command on it, and bench/server/bots.ts --count 2000 --social 1000.",
      "The load average is the machine's (2 cores): above 2 means something besides this server and its bots wanted CPU during the row.",
    ],
    raw: { row },
  };
}
