// The layout builder refuses layouts that disagree with themselves or with
// the size the spec declares, so a mistyped packet layout fails at load time
// instead of shifting every later field on the wire.
import { describe, expect, it } from "vitest";
import { count, int, layout, token, variable } from "../ts/protocol/layout.js";

describe("layout", () => {
  it("places fields end to end from the start offset (the fixed part ends at an absolute offset)", () => {
    const built = layout("example", 6, 19, [token("auth_token"), int("seq", "u32", "seq"), int("flag", "u8", "f")]);
    expect(built.offset).toEqual({ auth_token: 6, seq: 14, flag: 18 });
    expect(built.size).toEqual({ auth_token: 8, seq: 4, flag: 1 });
    expect(() => layout("example", 6, 19, [token("auth_token"), int("seq", "u32", "seq")])).toThrow(
      /fixed part is 18 bytes, the spec says 19/,
    );
  });

  it("ends the fixed part at the first variable field; later fields have no offset", () => {
    const built = layout("chat-like", 0, 1, [
      count("name_len", 1, "name"),
      variable("name", "text", "name"),
      count("text_len", 1, "text"),
      variable("text", "text", "text"),
    ]);
    expect(built.fixedBytes).toBe(1);
    expect(built.offset.text_len).toBe(-1);
    expect(built.size.text_len).toBe(1);
  });

  it("refuses a count that measures no later field and a variable field without a count", () => {
    expect(() => layout("bad", 0, 1, [count("len", 1, "missing")])).toThrow(/measures missing/);
    expect(() => layout("bad", 0, 0, [variable("text", "text", "text"), count("len", 1, "text")])).toThrow(
      /text has no count field before it/,
    );
  });
});
