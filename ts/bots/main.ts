// bots CLI (docs/bots.md): joins N headless guests and drives them until the
// duration is over or SIGINT/SIGTERM, printing a progress line while joining,
// live figures once a second and a summary at the end.
// Exit status: 0 done (also after a signal), 1 server unreachable or nobody could join, 2 bad command line.
import { fetchWorld, SessionError } from "../client/core/index.js";
import { formatProfile, randomSeed } from "../netsim/index.js";
import { loadCore } from "../wasm/node.js";
import { runProgram } from "../cli/command-line.js";
import { type BotOptions, parseBotArgs, USAGE } from "./cli-args.js";
import { formatLive, formatProgress, formatSummary } from "./figures.js";
import { Swarm } from "./swarm.js";

/** With no bot playing this long after the joins, the UDP side is not answering. */
const NO_ANSWER_MS = 5000;

async function run(options: BotOptions): Promise<number> {
  const seed = options.seed ?? randomSeed();

  // One request first, so an unreachable server is one clear line instead of N join failures.
  try {
    const world = await fetchWorld(options.http);
    process.stdout.write(`bots: server ${options.http}, map "${world.name}" ${world.mapWidth}×${world.mapHeight}\n`);
  } catch (error) {
    const reason = error instanceof SessionError ? error.message : String(error);
    process.stderr.write(`bots: server unreachable at ${options.http} (${reason})\n`);
    return 1;
  }
  const udpTarget = options.server ? `${options.server.host}:${options.server.port}` : "the session's udpPort";
  process.stdout.write(
    `bots: ${options.count} × ${options.behaviour}, UDP to ${udpTarget}, ` +
      `netsim ${options.netsim ? formatProfile(options.netsim) : "off"}, seed ${seed} (--seed ${seed} repeats it)\n`,
  );

  const interactive = process.stdout.isTTY === true;
  const status = (line: string, final = false) => {
    if (interactive) process.stdout.write(`\r${line}\x1b[K${final ? "\n" : ""}`);
    else process.stdout.write(`${line}\n`);
  };
  let lastProgressMs = -Infinity;
  const swarm = new Swarm({
    ...options,
    seed,
    loadCore: () => loadCore(),
    onProgress: (progress) => {
      // On a terminal every join redraws the line; piped, one line a second is enough.
      const nowMs = performance.now();
      const last = progress.joined + progress.failed === progress.wanted;
      if (!interactive && !last && nowMs - lastProgressMs < 1000) return;
      lastProgressMs = nowMs;
      status(formatProgress(progress), last);
    },
    onGoalChosen: (goal, by) => {
      status(`goto: goal ${goal.x},${goal.y} (the farthest tile ${by} can reach in its neighbourhood)`, true);
    },
  });

  let signalled = false;
  let wake: () => void = () => {};
  const onSignal = () => {
    if (signalled) process.exit(1); // a second signal: now
    signalled = true;
    swarm.stop();
    wake();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  swarm.start();
  try {
    await swarm.joinAll();
  } catch (error) {
    swarm.stop();
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`\nbots: no bot could join (${reason})\n`);
    return 1;
  }

  // Live figures once a second until the duration is over (or a signal, or the UDP side never answers).
  const joinedMs = performance.now();
  const endMs = options.durationS > 0 ? joinedMs + options.durationS * 1000 : Infinity;
  let failure = "";
  while (!signalled && performance.now() < endMs) {
    await new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, Math.min(1000, Math.max(0, endMs - performance.now())));
    });
    if (signalled) break;
    const figures = swarm.figures();
    status(formatLive(figures));
    if (figures.playing === 0 && performance.now() - joinedMs > NO_ANSWER_MS && figures.reconnects === 0) {
      failure = `no bot is playing ${NO_ANSWER_MS / 1000} s after joining: nothing answers over UDP at ${udpTarget}`;
      break;
    }
  }
  if (interactive) process.stdout.write("\n");
  const summary = swarm.summary();
  swarm.stop();
  process.stdout.write(`${formatSummary(summary)}\n`);
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  if (failure) {
    process.stderr.write(`bots: ${failure}\n`);
    return 1;
  }
  process.stdout.write(signalled ? "bots: stopped by signal\n" : "bots: done\n");
  return 0;
}

runProgram({ name: "bots", usage: USAGE, parse: parseBotArgs, run, lingerMs: 200 });
