// Command-line parsing for the headless bots: a total function from argv to a
// command or a UsageError, so main.ts only prints and exits (status 2 for a
// bad command line). Host:port and netsim spec strings go through the same
// parsers as the netsim proxy and the server's --netsim.
import { integerOption, readOptions, seedOption, UsageError } from "../cli/command-line.js";
import { parseHostPort } from "../netsim/cli-args.js";
import { type DuplexProfile, parseProfileSpec, ProfileError } from "../netsim/profile.js";
import type { HostPort } from "../netsim/udp-proxy.js";

export const BEHAVIOURS = ["wander", "goto", "keyboard", "hunt", "fight", "delve", "talk"] as const;
export type BehaviourName = (typeof BEHAVIOURS)[number];

export interface BotOptions {
  count: number;
  /** UDP host:port every bot sends to instead of the session's udpPort (e.g. a netsim proxy); null: the HTTP host. */
  server: HostPort | null;
  /** Base URL of the HTTP API (join and world). */
  http: string;
  behaviour: BehaviourName;
  /** Seconds to run once every bot has joined; 0 runs until SIGINT. */
  durationS: number;
  /** In-process netsim round each bot's UDP link (both directions), or null. */
  netsim: DuplexProfile | null;
  /** Seeds behaviours and netsim; undefined picks one (printed, so a run can be repeated). */
  seed: number | undefined;
  /** The one goal of `goto`; null chooses the farthest reachable tile the first bot can see. */
  goal: { x: number; y: number } | null;
  nickPrefix: string;
  /** Joins in flight at once. */
  joinParallel: number;
  /** Period of the one driving loop, ms. */
  updateMs: number;
}

export type BotCommand = { kind: "help" } | { kind: "run"; options: BotOptions };

export const DEFAULT_HTTP = "http://127.0.0.1:8080";

export const USAGE = `bots — headless players: N guests over UDP, driven by the same client core as the browser.

Usage: npm run bots -- [options]

  --count N            bots to join (default 10, at most 1000)
  --http URL           the server's HTTP API (default ${DEFAULT_HTTP})
  --server HOST:PORT   send UDP here instead of the HTTP host at the session's udpPort
                       (e.g. a netsim proxy: npm run netsim -- --listen :7778 --server :7777)
  --behaviour NAME     wander    click-to-move to random tiles within ~30 tiles, pause, repeat (default)
                       goto      all walk to one far goal (--goal X,Y, or the farthest tile reachable
                                 in the first bot's neighbourhood)
                       keyboard  hold a random direction, change it every 1.5-2.5 s
                       hunt      walk up to the nearest creature in view (hostiles first), linger,
                                 wander when none is in view: exercises the NPCs
                       fight     attack the nearest creature in view (click-to-attack: walk up, bump
                                 each window until it dies), wander when none: exercises combat
                       delve     take the nearest stairs down in view, then each level's, deeper and
                                 deeper; wander until stairs are in view: exercises the dungeon levels
                       talk      walk up to the nearest creature a content script talks for (flagged
                                 interactable), use it, read the dialog a moment and press a button at
                                 random; again every 3-6 s, wander when none is in view: exercises the
                                 content scripts (on the bundled map: Mira, Old Tom, the hall guards)
  --goal X,Y           goal tile for goto
  --duration S         seconds to run after joining (default 60; 0 = until Ctrl-C)
  --netsim SPEC        impair each bot's link in-process, both directions, e.g. "delay=80,jitter=30,loss=5"
                       (a seed=N in the spec seeds the links; docs/netsim.md)
  --seed N             seed for behaviours and links, 0..4294967295 (default random, printed)
  --nick PREFIX        nick prefix, bots are PREFIX1..PREFIXN (default "bot"); nicks in play are
                       unique, so a second bot process on the same server needs its own prefix
  --join-parallel N    joins in flight at once (default 8)
  --update-ms MS       period of the one loop that drives every bot (default 10)
  -h, --help           this text

Prints a progress line while joining, live figures once a second, and a summary at the end.
Exit status: 0 done (also after Ctrl-C), 1 server unreachable or no bot could join, 2 bad command line.
`;

const VALUE_OPTIONS = [
  "count",
  "http",
  "server",
  "behaviour",
  "goal",
  "duration",
  "netsim",
  "seed",
  "nick",
  "join-parallel",
  "update-ms",
];

function parseGoal(text: string): { x: number; y: number } {
  const match = /^(\d+),(\d+)$/.exec(text);
  if (!match) throw new UsageError(`--goal must be X,Y (tile coordinates), got "${text}"`);
  return { x: Number(match[1]), y: Number(match[2]) };
}

function parseHttp(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--http must be a URL like ${DEFAULT_HTTP}, got "${text}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`--http must be an http:// or https:// URL, got "${text}"`);
  }
  return text.replace(/\/+$/, "");
}

function parseNickPrefix(text: string): string {
  // Room for the number: nicks are at most 16 characters (docs/server.md).
  if (!/^[\p{L}\p{N}_.-]{1,10}$/u.test(text)) {
    throw new UsageError(`--nick must be 1-10 letters, digits, "_", "." or "-", got "${text}"`);
  }
  return text;
}

/** Turns argv (without node and the script) into a command; throws UsageError with a readable message. */
export function parseBotArgs(argv: readonly string[]): BotCommand {
  const options: BotOptions = {
    count: 10,
    server: null,
    http: DEFAULT_HTTP,
    behaviour: "wander",
    durationS: 60,
    netsim: null,
    seed: undefined,
    goal: null,
    nickPrefix: "bot",
    joinParallel: 8,
    updateMs: 10,
  };
  let netsimSeed: number | undefined;
  const given = readOptions(argv, { values: VALUE_OPTIONS });
  if (given === "help") return { kind: "help" };
  for (const [name, value] of given) {
    if (value === true) continue; // no flags among the bots' options
    switch (name) {
      case "count":
        options.count = integerOption(value, "--count", 1, 1000);
        break;
      case "http":
        options.http = parseHttp(value);
        break;
      case "server":
        options.server = parseHostPort(value, "--server", false);
        break;
      case "behaviour":
        if (!(BEHAVIOURS as readonly string[]).includes(value)) {
          throw new UsageError(`--behaviour must be one of ${BEHAVIOURS.join(", ")}, got "${value}"`);
        }
        options.behaviour = value as BehaviourName;
        break;
      case "goal":
        options.goal = parseGoal(value);
        break;
      case "duration":
        options.durationS = integerOption(value, "--duration", 0, 86_400);
        break;
      case "netsim":
        try {
          const spec = parseProfileSpec(value);
          options.netsim = spec.profile;
          netsimSeed = spec.seed;
        } catch (error) {
          if (error instanceof ProfileError) throw new UsageError(`--netsim: ${error.message}`);
          throw error;
        }
        break;
      case "seed":
        options.seed = seedOption(value, "--seed");
        break;
      case "nick":
        options.nickPrefix = parseNickPrefix(value);
        break;
      case "join-parallel":
        options.joinParallel = integerOption(value, "--join-parallel", 1, 256);
        break;
      case "update-ms":
        options.updateMs = integerOption(value, "--update-ms", 1, 1000);
        break;
    }
  }
  if (options.goal && options.behaviour !== "goto") throw new UsageError("--goal only applies to --behaviour goto");
  // A seed in the netsim spec seeds the links as with the server's --netsim; --seed, when given, wins.
  options.seed ??= netsimSeed;
  return { kind: "run", options };
}
