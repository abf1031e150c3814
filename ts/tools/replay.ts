// The flight recorder's command line (docs/recording.md):
//   npm run -s replay -- verify FILE       replays a recording and checks every tick against it
//   npm run -s replay -- info FILE         what a recording holds, without replaying it
//   npm run -s replay -- cut FILE --at 21:03 --out bug.fcrec
//                                          the minutes around a moment, as a recording of its own
//   npm run -s replay -- watch FILE        plays a recording to a browser (the client's spectator page)
// Exit status: 0 exact (verify) or done, 1 the replay diverged, 2 bad usage or a file that is not a
// whole recording (said which: foreign, another format, corrupt, cut short, another map, no snapshot).
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { RecordingError } from "../server/recording/bytes.js";
import { CUT_AFTER_S, CUT_BEFORE_S, CutRequestError, cutFile, cutWindow, summarize } from "../server/recording/cut.js";
import { type ByteSource, fileSource } from "../server/recording/format.js";
import { replayRecording } from "../server/replay-world.js";
import { regionReplayHost } from "../cluster/region-replay.js";
import { Logger } from "../server/ops/log.js";
import { MAX_REPLAY_SPEED, MIN_REPLAY_SPEED } from "../replay-control.js";
import { openWatch } from "../server/replay-viewer/open-watch.js";
import { DEFAULT_CLIENT_DIR } from "../server/server.js";

/** Where `watch` serves by default (the game's own server takes 8080). */
const DEFAULT_WATCH_PORT = 8090;

const USAGE = `Usage: replay verify FILE [--map PATH] [--until TICK]
       replay info FILE
       replay cut FILE (--at TIME | --at-tick N) [--before S] [--after S] --out OUT
       replay watch FILE [--map PATH] [--host H] [--port N] [--speed X]

verify  makes the world again from the recording's snapshot, feeds it every recorded input through the
        same code and wasm core, and checks the world's digest after every tick. On the first
        divergence it names the tick, the part of the world, and (at the next checkpoint) the
        entities and fields that differ. Exit 0: exact; 1: diverged.
          --map PATH    the map, when it moved since the recording (still checked against its hash)
          --until TICK  stop after tick TICK
info    the recording's build, map, options, length, inputs and how it ends.
cut     writes the minutes around a moment as a recording of its own (a bug report): --at HH:MM[:SS]
        (UTC, on the recording's days) or an ISO time, or --at-tick N; --before / --after seconds
        around it (default 120 / 60). The cut holds the run's snapshot and every block up to the
        window's end, so it replays alone; its header names the window.
watch   plays the recording in a browser through the game's own client: it makes the world again as
        verify does and runs it at real time × the speed (checking every tick's digest: a divergence
        is printed and shown), and serves the viewer at the URL it prints. Play, pause, speed
        (${MIN_REPLAY_SPEED}–${MAX_REPLAY_SPEED}×), seek (forwards runs the ticks fast; backwards makes the world again from the
        snapshot), follow a player or move a free camera. Ctrl-C stops it.
          --map PATH    as for verify
          --host H      the address to serve on (default 127.0.0.1: this machine only)
          --port N      the HTTP port (default 8090; 0: any free one); UDP takes any free port
          --speed X     the speed to start at (default 1)

Exit status: 0 done (verify: exact), 1 diverged, 2 bad usage or a file that is not a whole recording.
`;

class UsageError extends Error {}

function wholeNumber(text: string | undefined, what: string, fallback?: number): number {
  if (text === undefined) {
    if (fallback !== undefined) return fallback;
    throw new UsageError(`${what} is required`);
  }
  if (!/^\d+$/.test(text)) throw new UsageError(`${what} must be a whole number, got "${text}"`);
  return Number(text);
}

/** "21:03", "21:03:30" (UTC, the first such moment from the recording's start) or an ISO time, as ms. */
async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        map: { type: "string" },
        until: { type: "string" },
        at: { type: "string" },
        "at-tick": { type: "string" },
        before: { type: "string" },
        after: { type: "string" },
        out: { type: "string" },
        host: { type: "string" },
        port: { type: "string" },
        speed: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    process.stderr.write(`replay: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [command, file, ...rest] = positionals;
  try {
    if (command === undefined || !["verify", "info", "cut", "watch"].includes(command)) {
      throw new UsageError(command === undefined ? "say verify, info, cut or watch" : `unknown command "${command}"`);
    }
    if (file === undefined) throw new UsageError(`${command} needs a recording FILE`);
    if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
    if (!existsSync(file)) throw new RecordingError(`no such recording: ${file}`, "missing");
    if (command === "verify") return await verify(file, values.map, values.until);
    if (command === "watch") return await watch(file, values);
    const source = fileSource(file);
    try {
      if (command === "info") return info(file, source);
      return await cut(file, source, values);
    } finally {
      source.close();
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`replay: ${error.message}\nTry --help.\n`);
      return 2;
    }
    if (error instanceof RecordingError) {
      process.stderr.write(`replay: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

async function verify(file: string, mapPath: string | undefined, until: string | undefined): Promise<number> {
  const untilTick = until === undefined ? undefined : wholeNumber(until, "--until");
  const result = await replayRecording({
    file,
    mapPath,
    // A cluster's region replays alone, its Game made as the region made it (docs/recording.md § In a cluster).
    hostFor: regionReplayHost,
    untilTick,
    onProgress: (tick) => process.stderr.write(`  … tick ${tick}\n`),
    progressEveryTicks: 24 * 60,
  });
  const { header } = result;
  const tickHz = Number(header.options.tickHz ?? 24);
  const seconds = result.ticks / tickHz;
  for (const note of result.buildNotes) process.stdout.write(`note: ${note}\n`);
  process.stdout.write(
    `replayed ${result.ticks} ticks (${seconds.toFixed(1)} s of the world, ${result.inputs} inputs, ` +
      `${result.checkpoints} checkpoints) in ${(result.elapsedMs / 1000).toFixed(1)} s: ` +
      `${(seconds / Math.max(0.001, result.elapsedMs / 1000)).toFixed(1)}× real time\n`,
  );
  if (result.truncated !== null) {
    process.stdout.write(
      `note: the recording ends early (${result.truncated}): verified up to tick ${result.lastTick}\n`,
    );
  } else if (result.ended === null && result.divergence === null && untilTick === undefined && !header.window) {
    process.stdout.write(`note: the recording has no end record (it stopped, or the server was killed)\n`);
  }
  const divergence = result.divergence;
  if (divergence === null) {
    process.stdout.write(`exact: every tick's digest matches (ticks ${result.firstTick}–${result.lastTick})\n`);
    return 0;
  }
  process.stdout.write(`DIVERGED at tick ${divergence.tick}: ${divergence.what.join("; ")}\n`);
  if (divergence.details.length > 0) {
    process.stdout.write(`at the checkpoint of tick ${divergence.checkpointTick}:\n`);
    for (const line of divergence.details) process.stdout.write(`  ${line}\n`);
  }
  return 1;
}

/** `replay watch`: serves the replayed world until Ctrl-C (or SIGTERM); bad files are refused before anything is served. */
async function watch(file: string, values: Record<string, string | boolean | undefined>): Promise<number> {
  const host = typeof values.host === "string" ? values.host : "127.0.0.1";
  const port = wholeNumber(values.port as string | undefined, "--port", DEFAULT_WATCH_PORT);
  if (port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`);
  const speedText = typeof values.speed === "string" ? values.speed : "1";
  const speed = Number(speedText);
  if (!/^\d+(\.\d+)?$/.test(speedText) || speed < MIN_REPLAY_SPEED || speed > MAX_REPLAY_SPEED) {
    throw new UsageError(
      `--speed must be a number from ${MIN_REPLAY_SPEED} to ${MAX_REPLAY_SPEED}, got "${speedText}"`,
    );
  }
  const watched = await openWatch(file, {
    mapPath: values.map as string | undefined,
    hostFor: regionReplayHost,
    host,
    httpPort: port,
    clientDir: DEFAULT_CLIENT_DIR,
    speed,
    log: new Logger("warn"),
    onDivergence: (divergence) =>
      process.stdout.write(
        `DIVERGED at tick ${divergence.tick}: ${divergence.what.join("; ")}` +
          `${divergence.details.map((line) => `\n  ${line}`).join("")}\n`,
      ),
    onFailure: (error) => process.stderr.write(`replay: the replay stopped: ${error.message}\n`),
  });
  const { player, lastTick } = watched;
  const tickHz = player.tickHz;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  process.stdout.write(
    `watching ${file}: ticks ${player.firstTick}–${lastTick} (${((lastTick - player.firstTick + 1) / tickHz).toFixed(1)} s at ${tickHz} Hz)\n` +
      `open http://${urlHost}:${watched.server.httpPort}/?replay (paused at the start; press play there)\n`,
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await watched.close();
  return 0;
}

function info(file: string, source: ByteSource): number {
  const summary = summarize(source);
  const { header } = summary;
  const tickHz = Number(header.options.tickHz ?? 24);
  // A region's recording starts where the world's timeline stood when it started (its first block's first tick).
  const firstTick = summary.frames[0]?.firstTick ?? header.firstTick + 1;
  const lines = [
    `recording  ${file} (${summary.bytes} bytes, ${summary.blocks} blocks)`,
    `build      ${header.build.version} commit ${header.build.commit ?? "unknown"} core ${header.build.core}`,
    `map        ${header.map.path} (${header.map.files.length} files, sha256 ${header.map.sha256.slice(0, 12)})`,
    `started    ${header.startedAt}`,
    `ticks      ${firstTick}–${summary.lastTick} (${((summary.lastTick - firstTick + 1) / tickHz).toFixed(1)} s at ${tickHz} Hz)`,
    `snapshot   database ${summary.snapshotBytes} bytes, ${summary.contentFiles} content files`,
    `inputs     ${Object.entries(summary.inputs)
      .map(([name, count]) => `${name} ${count}`)
      .join(", ")}`,
    `ends       ${summary.truncated ?? (summary.ended === null ? "without an end record" : `cleanly: ${summary.ended}`)}`,
  ];
  if (header.region !== undefined) {
    const { id, layout, epochMs } = header.region;
    const count = (layout as { regionCount?: unknown } | null)?.regionCount;
    lines.push(
      `region     ${id} of ${String(count)} (the world's epoch ${new Date(epochMs).toISOString()}; docs/recording.md § In a cluster)`,
    );
  }
  if (header.window)
    lines.push(
      `window     ticks ${header.window.fromTick}–${header.window.toTick} (cut from ${header.window.cutFrom})`,
    );
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

async function cut(
  file: string,
  bytes: ByteSource,
  values: Record<string, string | boolean | undefined>,
): Promise<number> {
  const out = values.out;
  if (typeof out !== "string") throw new UsageError("cut needs --out FILE");
  if (existsSync(out)) throw new UsageError(`${out} exists: a cut never writes over a file`);
  const summary = summarize(bytes);
  let window;
  try {
    window = cutWindow(summary, {
      at: typeof values.at === "string" ? values.at : undefined,
      atTick: typeof values["at-tick"] === "string" ? wholeNumber(values["at-tick"], "--at-tick") : undefined,
      beforeS: wholeNumber(values.before as string | undefined, "--before", CUT_BEFORE_S),
      afterS: wholeNumber(values.after as string | undefined, "--after", CUT_AFTER_S),
    });
  } catch (error) {
    if (error instanceof CutRequestError) throw new UsageError(error.message);
    throw error;
  }
  const { at, fromTick, toTick } = window;
  const written = await cutFile(file, summary, { fromTick, toTick }, out);
  process.stdout.write(
    `wrote ${out}: ticks ${fromTick}–${written.toTick} around tick ${at} (${written.blocks} blocks, ${written.bytes} bytes)\n`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(`replay: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
