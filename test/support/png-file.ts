// A PNG file from raw RGBA rows (each row led by its filter byte), for tests that need a tileset image of
// exactly known pixels: the signature, IHDR (8-bit RGBA), one zlib IDAT and IEND, each chunk with its CRC.
import zlib from "node:zlib";

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** `width` × `height` RGBA pixels; `rows` holds each row's filter byte (0) and then its 4 × width bytes. */
export function pngFile(width: number, height: number, rows: Buffer): Buffer {
  if (rows.length !== height * (1 + 4 * width)) throw new RangeError("rows must be height × (1 + 4 × width) bytes");
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", zlib.deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
