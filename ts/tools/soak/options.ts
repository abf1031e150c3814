// Command-line parsing for `npm run -s soak`: a total function from argv to a
// command or a UsageError (exit status 2), so soak.ts only runs and prints.
// Every rate is bounded by a flag with a default that leaves a 2-core machine
// usable; the attack is the same on every run with the same --seed.
import { integerOption, readOptions, seedOption, UsageError } from "../../cli/command-line.js";

export interface SoakOptions {
  /** How long the attack runs, in seconds (from --minutes or --seconds). */
  durationS: number;
  /** Honest headless bots (ts/bots) playing throughout. */
  bots: number;
  /** Hostile datagrams per second, all kinds together. */
  floodRate: number;
  /** Loopback source addresses the flood sends from (127.0.0.1 and 127.0.2.x). */
  floodSources: number;
  /** UDP sockets (ports) per flood source address. */
  socketsPerSource: number;
  /** Guest sessions the attacker holds itself and signs for, to try amplification from unproven addresses. */
  attackerSessions: number;
  /** Idle (slow-header) TCP connections the attacker tries to hold open. */
  idleConnections: number;
  /** Malformed and wrong-content-type HTTP requests per second. */
  httpRate: number;
  /** Wrong-password logins per second. */
  loginRate: number;
  /** Accounts registered before the attack that must all log in after it. */
  accounts: number;
  /** Scheduling niceness of the attacker process (0..19): on one machine it must not take the server's CPU. */
  attackerNice: number;
  /** Seeds the flood's choices; undefined picks one (printed). */
  seed: number | undefined;
  /** Extra argument for the server's command line, repeatable (e.g. --udp-backend=dgram). */
  serverArgs: string[];
  /** Extra argument for the server's node (e.g. --cpu-prof, --trace-gc), repeatable: the stall study's tools. */
  serverNodeArgs: string[];
  /** Where the server's stdout and stderr go besides the soak's own watching; null: nowhere. */
  serverLog: string | null;
  /** A CSV file for the once-a-second samples (the stall study's timeline); null: none. */
  timeline: string | null;
}

export type SoakCommand = { kind: "help" } | { kind: "run"; options: SoakOptions };

export const DEFAULTS: Omit<
  SoakOptions,
  "durationS" | "seed" | "serverArgs" | "serverNodeArgs" | "serverLog" | "timeline"
> = {
  bots: 16,
  floodRate: 20_000,
  floodSources: 32,
  socketsPerSource: 2,
  attackerSessions: 4,
  idleConnections: 400,
  httpRate: 20,
  loginRate: 20,
  accounts: 20,
  attackerNice: 10,
};

export const USAGE = `soak — a real server under honest play and every attack of issue 17 at once.

Usage: npm run -s soak -- --minutes N [options]

Starts a server process (free ports, a temporary database), registers the accounts, then for the
whole duration runs at once: honest bots (ts/bots), a UDP flood (random bytes, mutated valid
datagrams, captured packets replayed byte for byte, forged packets with the bots' stolen tokens, the
attacker's own signed sessions moved onto addresses that never answer), sent from many loopback
addresses and ports, the bots' own address included; idle and slow-header HTTP connections,
malformed requests and wrong content types; and a login brute force. Prints progress every 10 s and
a report at the end (docs/security.md explains each figure).

  --minutes N             how long the attack runs; fractions allowed (e.g. 0.1)
  --seconds N             the same in seconds (one of the two is required)
  --bots N                honest bots (default ${DEFAULTS.bots}, at most 500)
  --flood-rate N          hostile datagrams per second (default ${DEFAULTS.floodRate}, at most 500000)
  --flood-sources N       loopback addresses the flood sends from (default ${DEFAULTS.floodSources}, at most 250)
  --sockets-per-source N  UDP sockets (ports) per source address (default ${DEFAULTS.socketsPerSource}, at most 16)
  --attacker-sessions N   guest sessions the attacker signs for itself (default ${DEFAULTS.attackerSessions}, at most 32)
  --idle-connections N    idle TCP connections the attacker keeps trying to hold (default ${DEFAULTS.idleConnections}, at most 10000)
  --http-rate N           malformed / wrong-content-type HTTP requests per second (default ${DEFAULTS.httpRate}, at most 1000)
  --login-rate N          wrong-password logins per second (default ${DEFAULTS.loginRate}, at most 1000)
  --accounts N            accounts registered before that must all log in after (default ${DEFAULTS.accounts}, 1..200)
  --attacker-nice N       niceness of the attacker process, 0..19 (default ${DEFAULTS.attackerNice}): a real attacker is
                          another host, so here it yields the CPU to the server (and the bots) when they need it
  --seed N                seed of the flood's choices, 0..4294967295 (default random, printed)
  --server-arg ARG        one more argument for the server, repeatable (e.g. --server-arg=--udp-backend=dgram)
  --server-node-arg ARG   one more argument for the server's node, repeatable (e.g. --server-node-arg=--cpu-prof)
  --timeline FILE         write the once-a-second samples as CSV: server tick lateness, event-loop delay,
                          datagrams in, the server's and the whole machine's CPU use, status answer time
  --server-log FILE       copy the server's stdout and stderr (its JSON log lines, --trace-gc output) to FILE
  -h, --help              this text

Exit status: 0 the server stayed up and every account logged in after; 1 it crashed, an account
was lost, a defence gave way (a brute-force guess or a wrong content type accepted) or the run could
not start; 2 bad command line.
`;

type IntegerKey =
  | "bots"
  | "floodRate"
  | "floodSources"
  | "socketsPerSource"
  | "attackerSessions"
  | "idleConnections"
  | "httpRate"
  | "loginRate"
  | "accounts"
  | "attackerNice";

/** The integer flags: which option each sets, and its bounds. */
const INTEGER_FLAGS: readonly { flag: string; key: IntegerKey; min: number; max: number }[] = [
  { flag: "bots", key: "bots", min: 1, max: 500 },
  { flag: "flood-rate", key: "floodRate", min: 0, max: 500_000 },
  { flag: "flood-sources", key: "floodSources", min: 1, max: 250 },
  { flag: "sockets-per-source", key: "socketsPerSource", min: 1, max: 16 },
  { flag: "attacker-sessions", key: "attackerSessions", min: 0, max: 32 },
  { flag: "idle-connections", key: "idleConnections", min: 0, max: 10_000 },
  { flag: "http-rate", key: "httpRate", min: 0, max: 1000 },
  { flag: "login-rate", key: "loginRate", min: 0, max: 1000 },
  { flag: "accounts", key: "accounts", min: 1, max: 200 },
  { flag: "attacker-nice", key: "attackerNice", min: 0, max: 19 },
];

const STRING_FLAGS = ["minutes", "seconds", "seed", "server-log", "timeline", ...INTEGER_FLAGS.map((f) => f.flag)];
const REPEATED_FLAGS = ["server-arg", "server-node-arg"];

function parseDuration(text: string, what: string, secondsPerUnit: number): number {
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) * secondsPerUnit : Number.NaN;
  if (!(value >= 1 && value <= 86_400)) {
    throw new UsageError(`${what} must be a number giving 1 s to 24 h, got "${text}"`);
  }
  return value;
}

/** Turns argv (without node and the script) into a command; throws UsageError with a readable message. */
export function parseSoakArgs(argv: readonly string[]): SoakCommand {
  const given = readOptions(argv, { values: STRING_FLAGS, repeated: REPEATED_FLAGS });
  if (given === "help") return { kind: "help" };
  const values = new Map<string, string>();
  const repeated = new Map<string, string[]>(REPEATED_FLAGS.map((flag) => [flag, []]));
  for (const [name, value] of given) {
    if (value === true) continue; // no flags among the soak's options
    if (repeated.has(name)) repeated.get(name)!.push(value);
    else values.set(name, value); // the last one given wins
  }
  const text = (flag: string) => values.get(flag);
  const options: SoakOptions = {
    ...DEFAULTS,
    durationS: 0,
    seed: undefined,
    serverArgs: repeated.get("server-arg")!,
    serverNodeArgs: repeated.get("server-node-arg")!,
    serverLog: text("server-log") ?? null,
    timeline: text("timeline") ?? null,
  };
  const minutes = text("minutes");
  const seconds = text("seconds");
  if (minutes !== undefined && seconds !== undefined) throw new UsageError("give --minutes or --seconds, not both");
  if (minutes === undefined && seconds === undefined) throw new UsageError("say how long: --minutes N or --seconds N");
  options.durationS =
    minutes !== undefined ? parseDuration(minutes, "--minutes", 60) : parseDuration(seconds!, "--seconds", 1);
  for (const { flag, key, min, max } of INTEGER_FLAGS) {
    const value = text(flag);
    if (value !== undefined) options[key] = integerOption(value, `--${flag}`, min, max);
  }
  const seed = text("seed");
  if (seed !== undefined) options.seed = seedOption(seed, "--seed");
  return { kind: "run", options };
}
