// What each drawn frame showed of the own player: the camera and the own sprite
// (float world pixels, before stacking), the predicted tile under it and that
// tile's id as the client holds it (0 while its chunk has not arrived). Kept
// only with ?debug=1 (window.cavesFrames, main.ts), for tests and tools that
// must see every frame — a level change is a teleport, and only a record of
// every frame shows that none of them drew the player between the two places
// (test/e2e/browser-stairs.test.ts). Bounded: a reader takes the records as
// they come; one that does not loses the oldest, never grows the page.
export interface FrameRecord {
  /** performance.now() of the frame. */
  readonly atMs: number;
  readonly cameraX: number;
  readonly cameraY: number;
  readonly ownX: number;
  readonly ownY: number;
  readonly tileX: number;
  readonly tileY: number;
  /** The tile id the client holds at (tileX, tileY): 0 until that chunk has streamed in. */
  readonly tileId: number;
}

/** At 60 frames per second, 20 s of frames. */
export const FRAME_LOG_CAPACITY = 1200;

export class FrameLog {
  private records: FrameRecord[] = [];
  /** Frames dropped because nobody took them in time. */
  dropped = 0;

  add(record: FrameRecord): void {
    if (this.records.length >= FRAME_LOG_CAPACITY) {
      this.records.shift();
      this.dropped++;
    }
    this.records.push(record);
  }

  /** The frames recorded since the last take, oldest first. */
  take(): FrameRecord[] {
    const taken = this.records;
    this.records = [];
    return taken;
  }
}
