// The attacker: a process of its own (a real attacker is another host, and its
// sending must not slow the honest bots' event loop), forked by soak.ts with
// structured-clone IPC. It runs the UDP flood, the HTTP abuse and the login
// brute force, takes captured honest datagrams and stolen tokens as they come,
// and answers "report" with its counters.
import { parseSessionKey, parseToken } from "../../client/core/session-api.js";
import { nodeActionMac } from "../../protocol/action-mac-node.js";
import { BruteForce, type BruteForceCounters } from "./brute-force.js";
import { Flood, type FloodCounters, floodSourceAddress } from "./flood.js";
import { HttpAbuse, type HttpAbuseCounters } from "./http-abuse.js";
import { postJsonFrom } from "./http-from.js";
import type { SoakOptions } from "./options.js";

/** What the attacker is told at start: where the server is, the seed, and the attack's rates (soak/options.ts). */
export type AttackConfig = Pick<
  SoakOptions,
  "floodRate" | "floodSources" | "socketsPerSource" | "attackerSessions" | "idleConnections" | "httpRate" | "loginRate"
> & {
  httpPort: number;
  udpPort: number;
  seed: number;
  /** Account names the brute force guesses at. */
  bruteForceTargets: string[];
};

export interface AttackCounters {
  flood: FloodCounters;
  http: HttpAbuseCounters;
  bruteForce: BruteForceCounters;
  /** The attacker's own guest sessions that joined. */
  ownSessions: number;
}

export type ToAttacker =
  | { type: "start"; config: AttackConfig }
  | { type: "capture"; datagrams: Uint8Array[] }
  | { type: "steal"; tokens: bigint[] }
  | { type: "report" }
  | { type: "stop" };

export type FromAttacker =
  | { type: "started" }
  | { type: "counters"; counters: AttackCounters; final: boolean }
  | { type: "failed"; message: string };

function send(message: FromAttacker): void {
  process.send!(message);
}

/** Joins the attacker's own guests (keys in hand) from flood sources, for the signed-but-unproven flood. */
async function joinOwnSessions(flood: Flood, config: AttackConfig): Promise<number> {
  let joined = 0;
  for (let index = 0; index < config.attackerSessions; index++) {
    const from = floodSourceAddress(1 + (index % Math.max(1, config.floodSources - 1)));
    const reply = await postJsonFrom(config.httpPort, "/api/guest", { nick: `mallory${index + 1}` }, from, {}, 15_000);
    if (reply.status !== 200) continue;
    const key = parseSessionKey(reply.body.key);
    if (!key) continue;
    flood.own({ token: parseToken(reply.body.token), mac: nodeActionMac(key), sequence: 0 });
    joined++;
  }
  return joined;
}

async function run(): Promise<void> {
  let flood: Flood | null = null;
  let http: HttpAbuse | null = null;
  let bruteForce: BruteForce | null = null;
  let ownSessions = 0;
  const counters = (): AttackCounters => ({
    flood: flood!.counters,
    http: http!.counters,
    bruteForce: bruteForce!.counters,
    ownSessions,
  });
  process.on("message", (message: ToAttacker) => {
    switch (message.type) {
      case "start": {
        const config = message.config;
        void (async () => {
          try {
            flood = await Flood.open({
              udpPort: config.udpPort,
              rate: config.floodRate,
              sources: config.floodSources,
              socketsPerSource: config.socketsPerSource,
              seed: config.seed,
            });
            http = new HttpAbuse(config.httpPort, config.idleConnections, config.httpRate);
            bruteForce = new BruteForce(config.httpPort, config.bruteForceTargets, config.loginRate);
            ownSessions = await joinOwnSessions(flood, config);
            flood.start();
            http.start();
            bruteForce.start();
            send({ type: "started" });
          } catch (error) {
            send({ type: "failed", message: (error as Error).message });
          }
        })();
        return;
      }
      case "capture":
        flood?.capture(message.datagrams);
        return;
      case "steal":
        flood?.steal(message.tokens);
        return;
      case "report":
        if (flood) send({ type: "counters", counters: counters(), final: false });
        return;
      case "stop":
        bruteForce?.stop();
        http?.stop();
        void (async () => {
          await flood?.close();
          if (flood) send({ type: "counters", counters: counters(), final: true });
          process.disconnect();
        })();
        return;
    }
  });
  // The soak going away (even killed) ends the attack.
  process.on("disconnect", () => setTimeout(() => process.exit(0), 100).unref());
}

void run();
