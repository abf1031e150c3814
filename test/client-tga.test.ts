// TGA decoding on hand-built files (every image type, both origins, RLE runs and
// raw packets, colour maps with a first-entry offset), totality on truncated and
// mutated input, and the encoder round trip.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { decodeTga, encodeTga, TgaError, type TgaErrorCode } from "../ts/client/assets/tga.js";
import { rgb332, rgb332FromRgba, rgb24FromRgb332, toTileMajor, toTiles } from "../ts/client/assets/image.js";

interface TgaParts {
  id?: number[];
  /** Overrides the header's ID length (default: id.length). */
  idLength?: number;
  colourMapType?: number;
  imageType: number;
  mapFirst?: number;
  mapLength?: number;
  mapBits?: number;
  width: number;
  height: number;
  bits: number;
  descriptor?: number;
  map?: number[];
  data: number[];
}

/** Assembles a TGA file byte by byte from its header fields (TGA 2.0 header layout). */
function tga(parts: TgaParts): Uint8Array {
  const id = parts.id ?? [];
  const map = parts.map ?? [];
  const header = [
    parts.idLength ?? id.length,
    parts.colourMapType ?? 0,
    parts.imageType,
    ...u16(parts.mapFirst ?? 0),
    ...u16(parts.mapLength ?? 0),
    parts.mapBits ?? 0,
    0,
    0,
    0,
    0,
    ...u16(parts.width),
    ...u16(parts.height),
    parts.bits,
    parts.descriptor ?? 0,
  ];
  return new Uint8Array([...header, ...id, ...map, ...parts.data]);
}

function u16(value: number): number[] {
  return [value & 0xff, value >> 8];
}

function errorCode(action: () => unknown): TgaErrorCode | "no error" {
  try {
    action();
    return "no error";
  } catch (error) {
    if (error instanceof TgaError) return error.code;
    throw error;
  }
}

const RED = rgb332(7, 0, 0);
const GREEN = rgb332(0, 7, 0);
const BLUE = rgb332(0, 0, 3);
const WHITE = 0xff;
const BLACK = 0x01; // opaque black, kept apart from transparent 0
const TOP_LEFT = 0x20;

// BGR(A) byte groups for 24/32-bit pixels.
const bgr = { red: [0, 0, 255], green: [0, 255, 0], blue: [255, 0, 0], white: [255, 255, 255], black: [0, 0, 0] };

describe("colour conversion", () => {
  it("truncates channels to rrrgggbb and keeps opaque black apart from transparent", () => {
    expect(rgb332FromRgba(255, 255, 255, 255)).toBe(0xff);
    expect(rgb332FromRgba(0x80, 0x40, 0xc0, 255)).toBe((4 << 5) | (2 << 2) | 3);
    expect(rgb332FromRgba(0x1f, 0x1f, 0x3f, 255)).toBe(BLACK);
    expect(rgb332FromRgba(255, 255, 255, 127)).toBe(0);
    expect(rgb332FromRgba(255, 255, 255, 128)).toBe(0xff);
  });

  it("expands every non-zero RGB332 byte to a colour that quantises back to it", () => {
    for (let colour = 1; colour < 256; colour++) {
      const rgb = rgb24FromRgb332(colour);
      expect(rgb332FromRgba(rgb >> 16, (rgb >> 8) & 0xff, rgb & 0xff, 255)).toBe(colour);
    }
    expect(rgb24FromRgb332(0xff)).toBe(0xffffff);
  });
});

describe("decodeTga: uncompressed", () => {
  it("type 2, 24 bit, bottom-left origin: the first stored row is the bottom one", () => {
    const file = tga({
      imageType: 2,
      width: 2,
      height: 2,
      bits: 24,
      data: [...bgr.red, ...bgr.green, ...bgr.blue, ...bgr.white],
    });
    expect(decodeTga(file)).toEqual({ width: 2, height: 2, pixels: new Uint8Array([BLUE, WHITE, RED, GREEN]) });
  });

  it("type 2, 32 bit, top-left origin, with an ID field: alpha below 128 is transparent", () => {
    const file = tga({
      id: [0x41, 0x42, 0x43, 0x44, 0x45],
      imageType: 2,
      width: 3,
      height: 1,
      bits: 32,
      descriptor: TOP_LEFT | 8,
      data: [...bgr.red, 255, ...bgr.green, 127, ...bgr.black, 200],
    });
    expect(Array.from(decodeTga(file).pixels)).toEqual([RED, 0, BLACK]);
  });

  it("right-to-left origin mirrors each row", () => {
    const file = tga({
      imageType: 2,
      width: 3,
      height: 2,
      bits: 24,
      descriptor: TOP_LEFT | 0x10,
      data: [...bgr.red, ...bgr.green, ...bgr.blue, ...bgr.white, ...bgr.black, ...bgr.red],
    });
    expect(Array.from(decodeTga(file).pixels)).toEqual([BLUE, GREEN, RED, RED, BLACK, WHITE]);
    const bottomRight = tga({
      imageType: 2,
      width: 2,
      height: 2,
      bits: 24,
      descriptor: 0x10,
      data: [...bgr.red, ...bgr.green, ...bgr.blue, ...bgr.white],
    });
    expect(Array.from(decodeTga(bottomRight).pixels)).toEqual([WHITE, BLUE, GREEN, RED]);
  });

  it("type 2, 16 bit: the top bit is alpha only when the descriptor declares alpha bits", () => {
    const red16 = 0x1f << 10;
    const data = [...u16(red16), ...u16(0x8000 | (0x1f << 5))];
    const withAlpha = tga({ imageType: 2, width: 2, height: 1, bits: 16, descriptor: TOP_LEFT | 1, data });
    expect(Array.from(decodeTga(withAlpha).pixels)).toEqual([0, GREEN]);
    const opaque = tga({ imageType: 2, width: 2, height: 1, bits: 16, descriptor: TOP_LEFT, data });
    expect(Array.from(decodeTga(opaque).pixels)).toEqual([RED, GREEN]);
    const fifteen = tga({ imageType: 2, width: 1, height: 1, bits: 15, data: u16(0x1f) });
    expect(Array.from(decodeTga(fifteen).pixels)).toEqual([BLUE]);
  });

  it("type 3, 8-bit greyscale, and 16-bit grey + alpha", () => {
    const grey = tga({ imageType: 3, width: 3, height: 1, bits: 8, descriptor: TOP_LEFT, data: [0, 128, 255] });
    expect(Array.from(decodeTga(grey).pixels)).toEqual([BLACK, rgb332(4, 4, 2), WHITE]);
    const greyAlpha = tga({ imageType: 3, width: 2, height: 1, bits: 16, descriptor: 8, data: [255, 0, 255, 255] });
    expect(Array.from(decodeTga(greyAlpha).pixels)).toEqual([0, WHITE]);
  });

  it("type 1: indices are offset by the colour map's first entry index", () => {
    const file = tga({
      colourMapType: 1,
      imageType: 1,
      mapFirst: 10,
      mapLength: 3,
      mapBits: 24,
      map: [...bgr.red, ...bgr.green, ...bgr.blue],
      width: 2,
      height: 2,
      bits: 8,
      descriptor: TOP_LEFT,
      data: [12, 10, 11, 12],
    });
    expect(Array.from(decodeTga(file).pixels)).toEqual([BLUE, RED, GREEN, BLUE]);
  });

  it("type 1 with 32-bit map entries (alpha) and 16-bit indices", () => {
    const file = tga({
      colourMapType: 1,
      imageType: 1,
      mapFirst: 300,
      mapLength: 2,
      mapBits: 32,
      map: [...bgr.white, 0, ...bgr.green, 255],
      width: 2,
      height: 1,
      bits: 16,
      data: [...u16(301), ...u16(300)],
    });
    expect(Array.from(decodeTga(file).pixels)).toEqual([GREEN, 0]);
  });

  it("skips a colour map in a true-colour file", () => {
    const file = tga({
      colourMapType: 1,
      imageType: 2,
      mapLength: 2,
      mapBits: 24,
      map: [1, 2, 3, 4, 5, 6],
      width: 1,
      height: 1,
      bits: 24,
      data: bgr.green,
    });
    expect(Array.from(decodeTga(file).pixels)).toEqual([GREEN]);
  });

  it("rejects colour indices outside the map", () => {
    const base = {
      colourMapType: 1,
      imageType: 1,
      mapFirst: 10,
      mapLength: 2,
      mapBits: 24,
      map: [...bgr.red, ...bgr.green],
      width: 1,
      height: 1,
      bits: 8,
    };
    expect(errorCode(() => decodeTga(tga({ ...base, data: [9] })))).toBe("bad-colour-index");
    expect(errorCode(() => decodeTga(tga({ ...base, data: [12] })))).toBe("bad-colour-index");
    expect(errorCode(() => decodeTga(tga({ ...base, data: [11] })))).toBe("no error");
  });
});

describe("decodeTga: RLE", () => {
  it("type 10: run and raw packets, a run crossing a row boundary, bottom-left origin", () => {
    // 3x2, stored bottom row first: [R R R] then [R B W]; the first run covers 4 pixels.
    const file = tga({
      imageType: 10,
      width: 3,
      height: 2,
      bits: 24,
      data: [0x80 | 3, ...bgr.red, 0x01, ...bgr.blue, ...bgr.white],
    });
    expect(Array.from(decodeTga(file).pixels)).toEqual([RED, BLUE, WHITE, RED, RED, RED]);
  });

  it("type 10, 32 bit: a transparent run", () => {
    const file = tga({
      imageType: 10,
      width: 4,
      height: 1,
      bits: 32,
      descriptor: TOP_LEFT | 8,
      data: [0x82, 0, 0, 0, 0, 0x00, ...bgr.green, 255],
    });
    expect(Array.from(decodeTga(file).pixels)).toEqual([0, 0, 0, GREEN]);
  });

  it("type 9: RLE colour-mapped", () => {
    const file = tga({
      colourMapType: 1,
      imageType: 9,
      mapFirst: 1,
      mapLength: 2,
      mapBits: 24,
      map: [...bgr.red, ...bgr.blue],
      width: 5,
      height: 1,
      bits: 8,
      descriptor: TOP_LEFT,
      data: [0x81, 2, 0x02, 1, 2, 1],
    });
    expect(Array.from(decodeTga(file).pixels)).toEqual([BLUE, BLUE, RED, BLUE, RED]);
  });

  it("type 11: RLE greyscale, a full 128-pixel run", () => {
    const file = tga({ imageType: 11, width: 130, height: 1, bits: 8, data: [0xff, 255, 0x01, 0, 128] });
    const pixels = decodeTga(file).pixels;
    expect(pixels.subarray(0, 128).every((pixel) => pixel === WHITE)).toBe(true);
    expect(Array.from(pixels.subarray(128))).toEqual([BLACK, rgb332(4, 4, 2)]);
  });

  it("a packet reaching past the last pixel is an overrun", () => {
    const run = tga({ imageType: 11, width: 3, height: 1, bits: 8, data: [0x83, 7] });
    expect(errorCode(() => decodeTga(run))).toBe("rle-overrun");
    const raw = tga({ imageType: 11, width: 2, height: 1, bits: 8, data: [0x00, 7, 0x01, 7, 7] });
    expect(errorCode(() => decodeTga(raw))).toBe("rle-overrun");
  });
});

describe("decodeTga: malformed headers", () => {
  const valid: TgaParts = { imageType: 2, width: 1, height: 1, bits: 24, data: bgr.red };

  it.each([
    ["no image data (type 0)", { ...valid, imageType: 0 }, "unsupported"],
    ["type 4", { ...valid, imageType: 4 }, "unsupported"],
    ["type 32 (Huffman)", { ...valid, imageType: 32 }, "unsupported"],
    ["colour map type 2", { ...valid, colourMapType: 2 }, "unsupported"],
    ["8-bit true colour", { ...valid, bits: 8, data: [1] }, "unsupported"],
    ["24-bit greyscale", { ...valid, imageType: 3 }, "unsupported"],
    ["colour-mapped without a map", { ...valid, imageType: 1, bits: 8, data: [0] }, "unsupported"],
    ["interleaved rows", { ...valid, descriptor: 0x40 }, "unsupported"],
    ["zero width", { ...valid, width: 0 }, "bad-dimensions"],
    ["zero height", { ...valid, height: 0 }, "bad-dimensions"],
    ["a colour map larger than the file", { ...valid, colourMapType: 1, mapLength: 500, mapBits: 32 }, "truncated"],
    ["an ID field larger than the file", { ...valid, idLength: 200 }, "truncated"],
  ] as [string, TgaParts, TgaErrorCode][])("%s", (_name, parts, code) => {
    expect(errorCode(() => decodeTga(tga(parts)))).toBe(code);
  });

  it("refuses absurd sizes before allocating, whatever the file claims", () => {
    const huge = tga({ imageType: 2, width: 0xffff, height: 0xffff, bits: 32, data: [] });
    expect(errorCode(() => decodeTga(huge))).toBe("too-large");
    const claimsMore = tga({ imageType: 10, width: 4000, height: 4000, bits: 32, data: [0xff, 1, 2, 3, 4] });
    expect(errorCode(() => decodeTga(claimsMore))).toBe("truncated");
    expect(errorCode(() => decodeTga(tga(valid), { maxPixels: 0 }))).toBe("too-large");
  });

  it("gives a readable message", () => {
    expect(() => decodeTga(new Uint8Array(5))).toThrow(/header alone needs 18/);
  });
});

/** Valid files of every kind, for the truncation and mutation properties. */
const SAMPLES: Uint8Array[] = [
  tga({ imageType: 2, width: 2, height: 2, bits: 24, data: [...bgr.red, ...bgr.green, ...bgr.blue, ...bgr.white] }),
  tga({ id: [1, 2, 3], imageType: 2, width: 2, height: 1, bits: 32, descriptor: 0x28, data: [1, 2, 3, 4, 5, 6, 7, 8] }),
  tga({ imageType: 3, width: 3, height: 2, bits: 8, descriptor: 0x30, data: [0, 1, 2, 3, 4, 5] }),
  tga({
    colourMapType: 1,
    imageType: 1,
    mapFirst: 4,
    mapLength: 2,
    mapBits: 16,
    map: [0x00, 0x7c, 0x1f, 0x00],
    width: 2,
    height: 2,
    bits: 8,
    data: [4, 5, 5, 4],
  }),
  tga({
    colourMapType: 1,
    imageType: 9,
    mapLength: 2,
    mapBits: 24,
    map: [...bgr.red, ...bgr.blue],
    width: 4,
    height: 2,
    bits: 8,
    data: [0x83, 1, 0x01, 0, 1, 0x81, 0],
  }),
  tga({ imageType: 10, width: 3, height: 2, bits: 24, data: [0x80 | 3, ...bgr.red, 0x01, ...bgr.blue, ...bgr.white] }),
  tga({ imageType: 11, width: 5, height: 1, bits: 16, data: [0x83, 9, 200, 0x00, 7, 7] }),
  encodeTga(
    { width: 5, height: 3, pixels: new Uint8Array([0, 0, 0, 1, 2, 3, 3, 3, 3, 4, 5, 6, 7, 7, 0]) },
    { rle: true },
  ),
];

describe("decodeTga: totality", () => {
  it("every sample decodes", () => {
    for (const sample of SAMPLES) expect(errorCode(() => decodeTga(sample))).toBe("no error");
  });

  it("every strict prefix of every sample is a truncation error", () => {
    for (const sample of SAMPLES) {
      for (let length = 0; length < sample.length; length++) {
        expect(errorCode(() => decodeTga(sample.subarray(0, length)))).toBe("truncated");
      }
    }
  });

  it("mutated files decode or throw TgaError, never anything else", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: SAMPLES.length - 1 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }),
        fc.nat(),
        (sampleIndex, edits, cut) => {
          const bytes = Uint8Array.from(SAMPLES[sampleIndex]);
          for (const [position, value] of edits) bytes[position % bytes.length] = value;
          const input = bytes.subarray(0, bytes.length - (cut % 3));
          try {
            const image = decodeTga(input, { maxPixels: 1 << 20 });
            expect(image.pixels.length).toBe(image.width * image.height);
          } catch (error) {
            expect(error).toBeInstanceOf(TgaError);
          }
        },
      ),
      { seed: 0x7ca, numRuns: 3000 },
    );
  });

  it("random bytes after a plausible header decode or throw TgaError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 200 }), (bytes) => {
        try {
          decodeTga(bytes, { maxPixels: 1 << 20 });
        } catch (error) {
          expect(error).toBeInstanceOf(TgaError);
        }
      }),
      { seed: 0x7cb, numRuns: 2000 },
    );
  });
});

describe("encodeTga", () => {
  const imageArbitrary = fc
    .tuple(fc.integer({ min: 1, max: 24 }), fc.integer({ min: 1, max: 12 }))
    .chain(([width, height]) =>
      fc
        .uint8Array({ minLength: width * height, maxLength: width * height })
        .map((pixels) => ({ width, height, pixels })),
    );

  it("round-trips every image, raw and RLE", () => {
    fc.assert(
      fc.property(imageArbitrary, fc.boolean(), (image, rle) => {
        expect(decodeTga(encodeTga(image, { rle, id: "round trip" }))).toEqual(image);
      }),
      { seed: 0x7cc, numRuns: 500 },
    );
  });

  it("round-trips run-heavy images through RLE", () => {
    const runs = fc
      .array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 300 })), { minLength: 1, maxLength: 8 })
      .map((segments) => segments.flatMap(([colour, length]) => new Array<number>(length).fill(colour)));
    fc.assert(
      fc.property(runs, fc.integer({ min: 1, max: 200 }), (values, width) => {
        const height = Math.max(1, Math.floor(values.length / width));
        const image = { width, height, pixels: Uint8Array.from(values.slice(0, width * height)) };
        if (image.pixels.length < width * height) return;
        expect(decodeTga(encodeTga(image, { rle: true }))).toEqual(image);
      }),
      { seed: 0x7cd, numRuns: 300 },
    );
  });

  it("writes the header it claims: type 2 raw, type 10 RLE, 32 bit, top-left origin", () => {
    const image = { width: 64, height: 2, pixels: new Uint8Array(128).fill(0x49) };
    const raw = encodeTga(image, { rle: false });
    const rle = encodeTga(image, { rle: true });
    expect([raw[2], raw[16], raw[17]]).toEqual([2, 32, 0x28]);
    expect(rle[2]).toBe(10);
    expect(raw.length).toBe(18 + 128 * 4);
    // One run per row: header byte + one pixel.
    expect(rle.length).toBe(18 + 2 * 5);
  });

  it("refuses what it cannot write", () => {
    expect(errorCode(() => encodeTga({ width: 0, height: 1, pixels: new Uint8Array(0) }, { rle: false }))).toBe(
      "bad-dimensions",
    );
    expect(errorCode(() => encodeTga({ width: 2, height: 2, pixels: new Uint8Array(3) }, { rle: false }))).toBe(
      "bad-dimensions",
    );
    const image = { width: 1, height: 1, pixels: new Uint8Array(1) };
    expect(errorCode(() => encodeTga(image, { rle: false, id: "x".repeat(256) }))).toBe("unsupported");
  });
});

describe("toTiles", () => {
  // 5x4 sheet of 2x2 tiles: two columns, two rows; the fifth pixel column is a partial tile and ignored.
  const sheet = { width: 5, height: 4, pixels: Uint8Array.from({ length: 20 }, (_, index) => index) };

  it("cuts tiles in reading order", () => {
    const tiles = toTiles(sheet, 2, 2);
    expect(tiles.map((tile) => Array.from(tile.pixels))).toEqual([
      [0, 1, 5, 6],
      [2, 3, 7, 8],
      [10, 11, 15, 16],
      [12, 13, 17, 18],
    ]);
    expect(tiles.every((tile) => tile.width === 2 && tile.height === 2)).toBe(true);
  });

  it("lays the same tiles out contiguously for an atlas", () => {
    expect(Array.from(toTileMajor(sheet, 2, 2))).toEqual([0, 1, 5, 6, 2, 3, 7, 8, 10, 11, 15, 16, 12, 13, 17, 18]);
  });

  it("rejects tile sizes that are not positive whole numbers", () => {
    expect(() => toTiles(sheet, 0, 2)).toThrow(RangeError);
    expect(() => toTiles(sheet, 1.5, 2)).toThrow(RangeError);
  });
});
