// A recording opened to be watched (docs/recording.md § Watch): read whole once (a bad block is refused now,
// with verify's words, not minutes into the replay), its replay made (ReplayPlayer) and served to viewers
// (serveReplay), a cut opened at its window's start. One way to do it for `npm run -s replay -- watch` and
// for a viewer the operators' console starts (ts/tools/replay-viewer.ts).
import { RecordingError } from "../recording/bytes.js";
import { summarize } from "../recording/cut.js";
import { fileSource } from "../recording/format.js";
import type { Logger } from "../ops/log.js";
import type { Divergence, ReplayOpenOptions } from "../replay-world.js";
import { ReplayPlayer } from "./replay-player.js";
import { serveReplay, type ViewerServer } from "./viewer-server.js";

export interface OpenWatchOptions {
  /** The map, when not where the recording's header says it was. */
  readonly mapPath?: string;
  /** The host a recording's header names (a cluster's region: replay-world.ts's ReplayHost), when not one process. */
  readonly hostFor?: ReplayOpenOptions["hostFor"];
  readonly host: string;
  /** HTTP port; 0: any free one. */
  readonly httpPort: number;
  /** The built browser client (server.ts DEFAULT_CLIENT_DIR). */
  readonly clientDir: string;
  /** The speed it starts at (1: real time). */
  readonly speed: number;
  readonly log: Logger;
  readonly onDivergence?: (divergence: Divergence) => void;
  readonly onFailure?: (error: Error) => void;
}

export interface OpenedWatch {
  readonly player: ReplayPlayer;
  readonly server: ViewerServer;
  /** The last tick watched: the recording's, or its cut's window's end. */
  readonly lastTick: number;
  /** Stops serving and closes the replay. */
  close(): Promise<void>;
}

/** Opens `file` for watching; throws RecordingError (with words) for a file that is not a whole recording. */
export async function openWatch(file: string, options: OpenWatchOptions): Promise<OpenedWatch> {
  let source;
  try {
    source = fileSource(file);
  } catch (error) {
    throw new RecordingError(`cannot read ${file}: ${(error as Error).message}`, "missing");
  }
  let summary;
  try {
    summary = summarize(source);
  } finally {
    source.close();
  }
  const window = summary.header.window;
  const lastTick = window === undefined ? summary.lastTick : Math.min(summary.lastTick, window.toTick);
  const player = await ReplayPlayer.open({
    file,
    mapPath: options.mapPath,
    hostFor: options.hostFor,
    lastTick,
    log: options.log,
    onDivergence: options.onDivergence,
    onFailure: options.onFailure,
  });
  let server: ViewerServer;
  try {
    server = await serveReplay(player, {
      host: options.host,
      httpPort: options.httpPort,
      udpPort: 0,
      clientDir: options.clientDir,
      log: options.log,
    });
    player.setSpeed(options.speed);
    // A cut opens at its window (the minutes a bug report is about).
    if (window !== undefined && window.fromTick > player.firstTick) await player.seekTo(window.fromTick - 1);
  } catch (error) {
    await player.close();
    throw error;
  }
  return {
    player,
    server,
    lastTick,
    async close() {
      await server.close();
      await player.close();
    },
  };
}
