// The one error type of the map loader. Every failure names the file it is
// about and the reason, so a bad map is found from the message alone.

/** A map, tileset or tile data file could not be loaded. */
export class MapError extends Error {
  /** The file the problem is in (a map, an external tileset or a tile data file). */
  readonly file: string;
  /** What is wrong, without the file name. */
  readonly reason: string;

  constructor(file: string, reason: string) {
    super(`${file}: ${reason}`);
    this.name = "MapError";
    this.file = file;
    this.reason = reason;
  }
}
