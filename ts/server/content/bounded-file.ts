// Reading the files a map names (the map, external tilesets, tileset images,
// data files) with a size cap checked before any byte is read: the loader
// runs at start and on every --watch reload, and a multi-gigabyte file (or a
// sparse one) would otherwise be read into memory whole before a parser could
// say it is not a map (docs/security.md § Map files).
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** Largest map, tileset or data file read (TMX, TSX, TMJ, TSJ, JSON, CSV, PNG). */
export const MAX_MAP_FILE_BYTES = 64 << 20;

/**
 * The file's bytes; throws an Error whose message says the size when it is larger than `maxBytes`,
 * and the usual ErrnoException (with its `code`) when it cannot be opened or read.
 */
export function readBoundedFile(path: string, maxBytes = MAX_MAP_FILE_BYTES): Buffer {
  const fd = openSync(path, "r");
  try {
    const { size } = fstatSync(fd);
    if (size > maxBytes) throw new Error(`it is ${size} bytes, more than ${maxBytes}`);
    // Read up to one byte past the cap, so a file that grew after fstat is still caught.
    const bytes = Buffer.alloc(Math.min(size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, bytes, length, bytes.length - length, null);
      if (read === 0) break;
      length += read;
      if (length > maxBytes) throw new Error(`it is more than ${maxBytes} bytes`);
      if (length === bytes.length) break;
    }
    return bytes.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** The file as UTF-8 text, with the same cap. */
export function readBoundedText(path: string, maxBytes = MAX_MAP_FILE_BYTES): string {
  return readBoundedFile(path, maxBytes).toString("utf8");
}
