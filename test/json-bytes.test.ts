// JSON written straight into bytes (ts/server/http/json-bytes.ts), the console's world answer's writer: whatever
// it is given — integers of every size, negative and fractional numbers, NaN, strings that need escapes or are not
// ASCII, nested values, rows of six — its bytes parse to what JSON.stringify would have written, and what one
// answer returned is never written over by the next.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonBytes } from "../ts/server/http/json-bytes.js";

describe("JSON written straight into bytes", () => {
  it("writes numbers exactly as JSON.stringify does", () => {
    const edge = [0, 9, 10, 99, 100, 65535, 2147483647, 2147483648, -1, -2147483648, 1.5, -0.25, 1e21, Number.NaN];
    const writer = new JsonBytes(8);
    for (const n of edge) expect(writer.reset().number(n).bytes().toString()).toBe(JSON.stringify(n));
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.double()), (n) => {
        expect(writer.reset().number(n).bytes().toString()).toBe(JSON.stringify(n));
      }),
    );
  });

  it("writes rows of six and any value so that the whole parses to the same thing, growing as it must", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer(), fc.integer(), fc.nat(), fc.double(), fc.integer(), fc.nat()), {
          maxLength: 50,
        }),
        fc.string({ unit: "grapheme" }),
        fc.jsonValue(),
        (rows, text, value) => {
          const writer = new JsonBytes(4);
          writer.raw('{"rows":[');
          rows.forEach((row, i) => {
            if (i > 0) writer.raw(",");
            writer.row6(...row);
          });
          writer.raw('],"text":').value(text).raw(',"value":').value(value).raw("}");
          const expected = JSON.stringify({ rows, text, value });
          expect(writer.bytes().toString("utf8")).toBe(expected);
        },
      ),
    );
  });

  it("hands out bytes of their own: the next answer does not write over the last", () => {
    const writer = new JsonBytes(16);
    const first = writer.reset().raw("[").number(1234).raw("]").bytes();
    writer.reset().raw("[").number(9876).raw("]").bytes();
    expect(first.toString()).toBe("[1234]");
  });
});
