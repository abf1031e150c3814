// What a replay viewer's process (ts/tools/replay-viewer.ts) says to the server that started it (viewer-pool.ts),
// once, over the IPC channel: ready on a port with the recording's span, or why it is not.
export type ViewerMessage =
  | { readonly type: "ready"; readonly httpPort: number; readonly firstTick: number; readonly lastTick: number }
  | { readonly type: "failed"; readonly message: string };
