// A replay viewer as a process of its own, started by a running server for the operators' console
// (server/replay-viewer/viewer-pool.ts; docs/recording.md § Watching from the console). It opens the recording as
// `replay watch` does (open-watch.ts) and serves it on 127.0.0.1 only, on a port the system picks; the
// server that started it is its only way in (it passes the console's requests on, behind the admin
// login). It tells its parent over the IPC channel that it is ready (and its port) or why it is not, and
// ends when told to (SIGTERM) or when its parent is gone (the channel closes): never a replay left behind.
//
// It lives with the tools, not the server's replay-viewer/: like `replay` it may open a cluster's region's recording
// (cluster/region-replay.ts), and the server's modules never import the cluster above them.
//
//   node replay-viewer.ts --file REC --client DIR [--map PATH]
import { parseArgs } from "node:util";
import { RecordingError } from "../server/recording/bytes.js";
import { Logger } from "../server/ops/log.js";
import { openWatch } from "../server/replay-viewer/open-watch.js";
import type { ViewerMessage } from "../server/replay-viewer/viewer-message.js";
// A cluster's region's recording replays as the region's Game (docs/recording.md § In a cluster): the console's
// Watch at a gateway starts a viewer in that region.
import { regionReplayHost } from "../cluster/region-replay.js";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { file: { type: "string" }, map: { type: "string" }, client: { type: "string" } },
  });
  const say = (message: ViewerMessage) =>
    new Promise<void>((resolve) => (process.send === undefined ? resolve() : process.send(message, () => resolve())));
  if (values.file === undefined || values.client === undefined) {
    await say({ type: "failed", message: "the viewer needs --file and --client" });
    process.exit(2);
  }
  const log = new Logger("warn");
  let watched;
  try {
    watched = await openWatch(values.file, {
      mapPath: values.map,
      hostFor: regionReplayHost,
      host: "127.0.0.1",
      httpPort: 0,
      clientDir: values.client,
      speed: 1,
      log,
      onDivergence: (divergence) => log.warn("the replay diverged", { tick: divergence.tick, what: divergence.what }),
      onFailure: (error) => log.error("the replay stopped", { error: error.message }),
    });
  } catch (error) {
    const message = error instanceof RecordingError ? error.message : `the replay could not start: ${String(error)}`;
    await say({ type: "failed", message });
    process.exit(2);
  }
  const opened = watched;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void opened.close().finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  process.once("disconnect", stop);
  await say({
    type: "ready",
    httpPort: opened.server.httpPort,
    firstTick: opened.player.firstTick,
    lastTick: opened.lastTick,
  });
}

void main();
