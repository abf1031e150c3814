// The soak's figures as plain data, and the text it prints: a progress line
// every few seconds and the report at the end. Pure, so the shape is the same
// wherever the numbers come from (docs/security.md explains each line).
import type { Percentiles } from "../../bots/figures.js";
import type { AttackCounters } from "./attacker.js";

/** The server's limit on what an unproven address may be sent, × what it sent (docs/protocol.md § 12.1). */
export const AMPLIFICATION_LIMIT = 3;

export interface TickFigures {
  /** Per-second windows of the server's tick lateness (p99 of the window), ms. */
  lateP99Median: number;
  lateP99Worst: number;
  lateMax: number;
  /** Tick duration, the same way. */
  tickP99Worst: number;
  tickMax: number;
  /** Event-loop delay (the server's 5 s windows): worst p99 and max. */
  loopP99Worst: number;
  loopMax: number;
  /** Ticks the wall clock says were due, and the ticks the server ran. */
  expected: number;
  run: number;
  /** Ticks the server skipped after stalls of more than 4 ticks (its own count). */
  skipped: number;
}

export interface SoakFigures {
  elapsedS: number;
  seed: number;
  loadBefore: string;
  loadAfter: string;
  crashed: string | null;
  rssStartMiB: number;
  rssEndMiB: number;
  rssMaxMiB: number;
  attack: AttackCounters | null;
  serverDatagramsIn: number;
  serverCpu: {
    /** CPU time over wall time while the attack ran (1 = one core). */
    shareOfCore: number;
    /** Of it, per datagram received (all work included: ticks, broadcast, HTTP). */
    microsPerDatagram: number;
    /** Datagrams per recvmmsg batch (NaN on node:dgram). */
    datagramsPerBatch: number;
    /** UDP receive-buffer overruns on the machine meanwhile (the server's socket, mostly). */
    kernelReceiveDrops: number;
  };
  bytesToUnproven: number;
  bytesFromUnproven: number;
  challengesSent: number;
  ticks: TickFigures;
  bots: {
    wanted: number;
    joined: number;
    playingEnd: number;
    playingMin: number;
    reconnects: number;
    disconnects: number;
    rttMs: Percentiles;
    rttMaxMs: number;
    /** The soak process's own loop lateness (whole run): whether the bots' timings can be trusted. */
    botLoopLateP99Ms: number;
  };
  statusMs: Percentiles & { max: number };
  refusedConnections: number;
  drops: Record<string, number>;
  accounts: {
    kept: number;
    loggedIn: number;
    failedLogins: string[];
    targets: number;
    /** Targets of the brute force that could not log in from the address they registered from (locked out). */
    ownersFailed: string[];
    missing: string[];
  };
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
const mib = (value: number) => `${fixed(value, 0)} MiB`;
const ratio = (to: number, from: number) => (from > 0 ? (to / from).toFixed(3) : to > 0 ? "∞" : "0");

function answers(record: Record<string, number>): string {
  const entries = Object.entries(record).sort((a, b) => b[1] - a[1]);
  return entries.length === 0 ? "none" : entries.map(([answer, count]) => `${answer} ×${count}`).join(", ");
}

/** Accounts that failed their login after the attack or are gone from the database (each counted once). */
export function lostAccounts(accounts: SoakFigures["accounts"]): number {
  const names = new Set(accounts.missing);
  for (const failed of accounts.failedLogins) names.add(failed.split(" ")[0]);
  return names.size;
}

/** Why the run failed ([] when it passed): a crash, a lost account, a defence that gave way. */
export function failures(figures: SoakFigures): string[] {
  const reasons: string[] = [];
  if (figures.crashed) reasons.push(`the server crashed (${figures.crashed})`);
  const accounts = figures.accounts;
  if (accounts.failedLogins.length > 0)
    reasons.push(`accounts that could not log in: ${accounts.failedLogins.join(", ")}`);
  if (accounts.missing.length > 0) reasons.push(`accounts missing from the database: ${accounts.missing.join(", ")}`);
  if (accounts.ownersFailed.length > 0) {
    reasons.push(`owners locked out of their own accounts by the guesses: ${accounts.ownersFailed.join(", ")}`);
  }
  const attack = figures.attack;
  if (attack && attack.bruteForce.successes > 0)
    reasons.push(`${attack.bruteForce.successes} brute-force guesses got in`);
  if (attack && attack.http.breaches > 0)
    reasons.push(`${attack.http.breaches} requests the edge must refuse were accepted`);
  if (figures.bytesToUnproven > AMPLIFICATION_LIMIT * figures.bytesFromUnproven) {
    reasons.push(`unproven addresses got more than ${AMPLIFICATION_LIMIT}× what they sent`);
  }
  return reasons;
}

export interface ProgressFigures {
  elapsedS: number;
  floodSent: number;
  serverUp: boolean;
  rssMiB: number;
  tickLateP99Ms: number;
  loopP99Ms: number;
  lostTicks: number;
  playing: number;
  bots: number;
  rttP99Ms: number;
  statusMs: number;
  idleOpen: number;
  guesses: number;
  heldBack: number;
}

/** One progress line, e.g. "[ 10 s] flood 200000 sent | server up, RSS 98 MiB, ... | bots 16/16 playing ...". */
export function formatProgress(p: ProgressFigures): string {
  return [
    `[${String(Math.round(p.elapsedS)).padStart(4)} s] flood ${p.floodSent} sent`,
    `server ${p.serverUp ? "up" : "DOWN"}, RSS ${mib(p.rssMiB)}, tick late p99 ${fixed(p.tickLateP99Ms)} ms, ` +
      `loop delay p99 ${fixed(p.loopP99Ms)} ms, lost ticks ${p.lostTicks}`,
    `bots ${p.playing}/${p.bots} playing, rtt p99 ${fixed(p.rttP99Ms)} ms`,
    `status ${fixed(p.statusMs)} ms, idle conns ${p.idleOpen}`,
    `brute force ${p.guesses} guesses, ${p.heldBack} held back`,
  ].join(" | ");
}

/** The report at the end; its line labels are what test/soak-cli.test.ts checks. */
export function formatReport(f: SoakFigures): string {
  const attack = f.attack;
  const flood = attack?.flood;
  const t = f.ticks;
  const lost = Math.max(0, t.expected - t.run);
  const lines = [
    `soak report after ${fixed(f.elapsedS)} s (seed ${f.seed}; --seed ${f.seed} repeats the flood)`,
    `  load         before: ${f.loadBefore}; after: ${f.loadAfter}`,
    `  server       ${f.crashed ? `CRASHED: ${f.crashed}` : "stayed up: 0 crashes"}; RSS ${mib(f.rssStartMiB)} at the start, ` +
      `${mib(f.rssEndMiB)} at the end (max ${mib(f.rssMaxMiB)})`,
  ];
  if (flood) {
    const s = flood.sent;
    lines.push(
      `  flood        ${flood.datagramsSent} datagrams sent (random ${s.random}, mutated ${s.mutated}, replayed ${s.replayed}, ` +
        `stolen-token ${s.stolenToken}, signed-unproven ${s.signedUnproven}) from ${flood.addresses} addresses, ` +
        `${flood.sockets} sockets; the server counted ${f.serverDatagramsIn} datagrams in (bots' included)`,
      `  reflection   server: ${f.bytesToUnproven} bytes to unproven addresses ÷ ${f.bytesFromUnproven} bytes from them = ` +
        `${ratio(f.bytesToUnproven, f.bytesFromUnproven)} (limit ${AMPLIFICATION_LIMIT}; ${f.challengesSent} challenges); ` +
        `flood sockets: ${flood.bytesReceived} bytes back ÷ ${flood.bytesSent} sent = ` +
        `${ratio(flood.bytesReceived, flood.bytesSent)} (${flood.datagramsReceived} datagrams, ` +
        `${flood.challengesReceived} of them challenges)`,
    );
  }
  const cpu = f.serverCpu;
  lines.push(
    `  server cpu   ${fixed(100 * cpu.shareOfCore)} % of a core while attacked, ${fixed(cpu.microsPerDatagram, 2)} µs ` +
      `per datagram in; ${fixed(cpu.datagramsPerBatch)} datagrams per recvmmsg batch; ${cpu.kernelReceiveDrops} ` +
      `datagrams dropped by the kernel (receive buffers full)`,
  );
  lines.push(
    `  ticks        lateness p99 ${fixed(t.lateP99Median)} ms (median second), ${fixed(t.lateP99Worst)} ms (worst second), ` +
      `max ${fixed(t.lateMax)} ms; tick duration p99 ${fixed(t.tickP99Worst)} ms worst, max ${fixed(t.tickMax)} ms; ` +
      `event-loop delay p99 ${fixed(t.loopP99Worst)} ms worst, max ${fixed(t.loopMax)} ms; ` +
      `lost ${lost} of ${t.expected} ticks (${fixed((100 * lost) / Math.max(1, t.expected), 2)} %), ${t.skipped} skipped by the server`,
    `  bots         ${f.bots.joined}/${f.bots.wanted} joined, ${f.bots.playingEnd} playing at the end (fewest ${f.bots.playingMin}), ` +
      `${f.bots.reconnects} reconnects, ${f.bots.disconnects} disconnected; rtt p50 ${fixed(f.bots.rttMs.p50)} ` +
      `p90 ${fixed(f.bots.rttMs.p90)} p99 ${fixed(f.bots.rttMs.p99)} max ${fixed(f.bots.rttMaxMs)} ms ` +
      `(smoothed, each bot once a second); bots' loop late p99 ${fixed(f.bots.botLoopLateP99Ms)} ms`,
  );
  if (attack) {
    const idle = attack.http.idle;
    const requests = Object.entries(attack.http.requests)
      .map(([kind, byAnswer]) => `${kind} ${answers(byAnswer)}`)
      .join("; ");
    const b = attack.bruteForce;
    const hashed = b.answers["401"] ?? 0;
    const held = b.answers["429"] ?? 0;
    lines.push(
      `  http         /api/status answered in p50 ${fixed(f.statusMs.p50)} p99 ${fixed(f.statusMs.p99)} ` +
        `max ${fixed(f.statusMs.max)} ms; idle connections: ${idle.opened} opened, at most ${idle.maxOpen} at once, ` +
        `${idle.closedByServer} closed by the server, ${f.refusedConnections} refused by its caps, ${idle.failed} failed; ` +
        `breaches ${attack.http.breaches}`,
      `  bad requests ${requests || "none"}`,
      `  brute force  ${b.guesses} guesses: ${answers(b.answers)}; ${b.successes} got in; answered in ` +
        `${fixed(hashed > 0 ? b.hashedMs / hashed : Number.NaN)} ms when hashed, ${fixed(held > 0 ? b.heldBackMs / held : Number.NaN)} ms when held back`,
    );
  }
  const drops = Object.entries(f.drops).sort((a, b) => b[1] - a[1]);
  lines.push(`  drops        ${drops.length === 0 ? "none" : drops.map(([reason, n]) => `${reason} ${n}`).join(", ")}`);
  const a = f.accounts;
  const inDatabase = a.kept + a.targets - a.missing.length;
  lines.push(
    `  accounts     ${a.loggedIn}/${a.kept} logged in after the attack; ${inDatabase}/${a.kept + a.targets} in the ` +
      `database after it (${a.targets} of them the brute force's targets, ${a.targets - a.ownersFailed.length} of ` +
      `which logged in from the address they registered from); lost ${lostAccounts(a)}`,
  );
  const reasons = failures(f);
  lines.push(reasons.length === 0 ? "result: passed" : `result: FAILED: ${reasons.join("; ")}`);
  return lines.join("\n");
}
