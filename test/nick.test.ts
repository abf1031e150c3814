// Nick rules: real names in any script pass; invisible, marks-only, zalgo and
// impersonating nicks are refused; look-alikes share a key.
import { describe, expect, it } from "vitest";
import { checkNick, nickKey } from "../ts/server/sessions/nick.js";

const refused = (raw: string) => {
  const result = checkNick(raw);
  return result.ok ? null : result.reason;
};

describe("checkNick", () => {
  it("keeps real names in any script, normalised", () => {
    for (const nick of ["Ada", "Ada L", "Zoë", "Дмитрий", "李小龙", "محمد", "Ngũ", "ada_99", "J.R.R."]) {
      expect(checkNick(nick), nick).toEqual({ ok: true, nick });
    }
    expect(checkNick("  Ada   Lovelace ")).toEqual({ ok: true, nick: "Ada Lovelace" });
    // NFKC: fullwidth letters are the plain ones.
    expect(checkNick("Ａｄａ")).toEqual({ ok: true, nick: "Ada" });
  });

  it("refuses invisible letters (Hangul fillers) and nicks that are marks only", () => {
    for (const raw of ["\u3164", "\u3164\u3164", "Ada\u3164", "\u115F", "\uFFA0x", "a\u034Fb"]) {
      expect(refused(raw), JSON.stringify(raw)).toMatch(/invisible/);
    }
    expect(refused("\u0301\u0301")).toMatch(/start with a letter or a digit/);
    expect(refused("a\u0301\u0302\u0303\u0304")).toMatch(/at most 3 marks/);
    expect(checkNick("a\u0301")).toEqual({ ok: true, nick: "á" }); // NFKC composes it
  });

  it("refuses bidi controls and other format characters", () => {
    for (const raw of ["Ada\u202E", "\u202Dnimda", "A\u200Bda", "A\u2066da"]) expect(refused(raw)).not.toBeNull();
  });

  it("refuses the names the game speaks with, in any disguise", () => {
    for (const raw of [
      "system",
      "System",
      "SYSTEM",
      "Sуstem",
      "sys tem",
      "notice board",
      "Notice_Board",
      "Admin",
      "Аdmin",
    ]) {
      expect(refused(raw), raw).toMatch(/reserved/);
    }
  });
});

describe("nickKey", () => {
  it("look-alikes share a key", () => {
    expect(nickKey("Аda")).toBe(nickKey("Ada")); // Cyrillic А
    expect(nickKey("ADA")).toBe(nickKey("ada"));
    expect(nickKey("Ada L")).toBe(nickKey("AdaL"));
    expect(nickKey("Ａｄａ")).toBe(nickKey("Ada"));
    expect(nickKey("Bill")).toBe(nickKey("BiII"));
    expect(nickKey("modern")).toBe(nickKey("modem"));
  });

  it("different names differ", () => {
    expect(nickKey("Ada")).not.toBe(nickKey("Adam"));
    expect(nickKey("Дмитрий")).not.toBe(nickKey("Ada"));
  });
});
