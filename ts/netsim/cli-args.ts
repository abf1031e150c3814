// Command-line parsing for the netsim proxy: a total function from argv to a command or a UsageError, so
// main.ts only has to print and exit. Profile flags go through the same parser as the server's --netsim string.

import { readOptions, seedOption, UsageError } from "../cli/command-line.js";
import {
  type DuplexProfile,
  isProfileSetting,
  PROFILE_SETTING_NAMES,
  ProfileError,
  profileFromSettings,
  splitProfileSpec,
} from "./profile.js";
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_CLIENTS, type HostPort } from "./udp-proxy.js";

export interface ProxyCliOptions {
  listen: HostPort;
  server: HostPort;
  profile: DuplexProfile;
  seed: number | undefined;
  idleTimeoutMs: number;
  maxClients: number;
  /** Print the live status line once a second. */
  showStatus: boolean;
}

export type ProxyCliCommand = { kind: "help" } | { kind: "run"; options: ProxyCliOptions };

export const DEFAULT_LISTEN = "127.0.0.1:7778";
export const DEFAULT_SERVER = "127.0.0.1:7777";

export const USAGE = `netsim — a bad-internet simulator: a UDP proxy that delays, jitters, drops and duplicates datagrams.

Usage: npx tsx ts/netsim/main.ts [options]

Impairment (each applies to both directions; prefix with up- or down- for one direction only,
e.g. --up-delay 100 --down-loss 10; up = client -> server, down = server -> client):
  --delay MS          one-way delay (default 0)
  --jitter MS         each datagram's delay is uniform in [delay - jitter, delay + jitter], floored at 0;
                      reordering comes from this (default 0)
  --loss PERCENT      chance a datagram is dropped (default 0)
  --dup PERCENT       chance a surviving datagram is delivered twice (default 0)
  --profile SPEC      the same as a spec string, e.g. "delay=80,jitter=30,loss=5,up-dup=2,seed=7"

Proxy:
  --listen HOST:PORT  where clients send to (default ${DEFAULT_LISTEN}; port 0 picks a free port)
  --server HOST:PORT  the real server (default ${DEFAULT_SERVER})
  --seed N            seed, 0..4294967295; the same seed repeats each client's datagram fates
                      (default: random, printed at start)
  --idle-ms MS        forget a client after this long without a datagram from it (default ${DEFAULT_IDLE_TIMEOUT_MS})
  --max-clients N     at most this many clients at once (default ${DEFAULT_MAX_CLIENTS})
  --quiet             no live status line
  -h, --help          this text

Example: npx tsx ts/netsim/main.ts --delay 80 --jitter 30 --loss 5 --listen 127.0.0.1:7778 --server 127.0.0.1:7777
`;

/** Parses "host:port", "[v6]:port", ":port" or "port" (host defaults to 127.0.0.1). */
export function parseHostPort(text: string, what: string, allowPortZero: boolean): HostPort {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d+)$/.exec(text) ?? /^()()(\d+)$/.exec(text);
  if (match === null) throw new UsageError(`${what} must be HOST:PORT, got "${text}"`);
  const host = match[1] || match[2] || "127.0.0.1";
  const port = Number(match[3]);
  if (port > 65535 || (port === 0 && !allowPortZero)) {
    throw new UsageError(`${what} port must be ${allowPortZero ? 0 : 1} to 65535, got "${text}"`);
  }
  return { host, port };
}

function parsePositiveInteger(text: string, what: string): number {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 1 && Number.isSafeInteger(value))) {
    throw new UsageError(`${what} must be a positive integer, got "${text}"`);
  }
  return value;
}

/** Turns argv (without node and the script) into a command; throws UsageError with a readable message. */
export function parseProxyArgs(argv: readonly string[]): ProxyCliCommand {
  const profileSettings: [string, string][] = [];
  let listenText = DEFAULT_LISTEN;
  let serverText = DEFAULT_SERVER;
  let seed: number | undefined;
  let idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS;
  let maxClients = DEFAULT_MAX_CLIENTS;
  let showStatus = true;

  const given = readOptions(argv, {
    values: [...PROFILE_SETTING_NAMES, "profile", "listen", "server", "seed", "idle-ms", "max-clients"],
    flags: ["quiet"],
  });
  if (given === "help") return { kind: "help" };
  try {
    for (const [name, value] of given) {
      if (value === true) {
        showStatus = false; // --quiet, the one flag
      } else if (isProfileSetting(name)) {
        profileSettings.push([name, value]);
      } else if (name === "profile") {
        // Kept as separate settings so later flags override the spec setting by setting.
        const spec = splitProfileSpec(value);
        profileSettings.push(...spec.settings);
        if (spec.seed !== undefined) seed = spec.seed;
      } else if (name === "listen") {
        listenText = value;
      } else if (name === "server") {
        serverText = value;
      } else if (name === "seed") {
        seed = seedOption(value, "--seed");
      } else if (name === "idle-ms") {
        idleTimeoutMs = parsePositiveInteger(value, "--idle-ms");
      } else {
        maxClients = parsePositiveInteger(value, "--max-clients");
      }
    }
    const profile = profileFromSettings(profileSettings);
    return {
      kind: "run",
      options: {
        listen: parseHostPort(listenText, "--listen", true),
        server: parseHostPort(serverText, "--server", false),
        profile,
        seed,
        idleTimeoutMs,
        maxClients,
        showStatus,
      },
    };
  } catch (error) {
    if (error instanceof ProfileError) throw new UsageError(error.message);
    throw error;
  }
}
