// User Timing marks the page leaves for whoever measures it (bench/suites/client.ts reads them; a
// browser's performance panel shows them): when Play was pressed, and when the first frame of the world
// was drawn. Two marks a join, so the browser's buffer of them stays small.

/** Play pressed (a guest join, a login or a registration starts). */
export const PLAY_MARK = "caves:play";
/** The first frame drawn with the player placed in the world (its own chunk held). */
export const FIRST_FRAME_MARK = "caves:first-frame";

/** What the first frame's mark carries: the game's own bytes received by then, and its chunks. */
export interface FirstFrameDetail {
  /** Datagram bytes received (the data channel's or the WebSocket's payloads), not HTTP. */
  datagramBytesIn: number;
  chunks: number;
}

export function markPlay(): void {
  performance.mark(PLAY_MARK);
}

export function markFirstFrame(detail: FirstFrameDetail): void {
  performance.mark(FIRST_FRAME_MARK, { detail });
}
