// Names over heads (render/name-tags.ts): where the tags go when players crowd,
// and the remembered toggle.
import { describe, expect, it } from "vitest";
import {
  NAME_TAG_ROW_PX,
  NAME_TAGS_STORAGE_KEY,
  nameTagsWanted,
  placeNameTags,
  rememberNameTags,
} from "../ts/client/render/name-tags.js";

const label = (text: string, xPx: number, yPx: number) => ({ text, xPx, yPx, colour: 0xff });

describe("placeNameTags", () => {
  it("keeps tags that do not touch where they are", () => {
    const placed = placeNameTags([
      { label: label("Ada", 0, 0), distance: 0 },
      { label: label("Bob", 80, 0), distance: 10 },
    ]);
    expect(placed).toEqual([label("Ada", 0, 0), label("Bob", 80, 0)]);
  });

  it("two players on one tile: the farther name moves up a row, both are shown", () => {
    const placed = placeNameTags([
      { label: label("Bob", 40, 40), distance: 3 },
      { label: label("Ada", 40, 40), distance: 0 },
    ]);
    expect(placed.map((tag) => [tag.text, tag.yPx])).toEqual([
      ["Ada", 40],
      ["Bob", 40 - NAME_TAG_ROW_PX],
    ]);
  });

  it("a crowd on one tile: three rows are tried, the farthest names are left out", () => {
    const candidates = ["A", "B", "C", "D", "E"].map((text, index) => ({
      label: label(text, 16, 16),
      distance: index,
    }));
    const placed = placeNameTags(candidates);
    expect(placed.map((tag) => tag.text)).toEqual(["A", "B", "C"]);
    expect(new Set(placed.map((tag) => tag.yPx)).size).toBe(3);
  });
});

describe("the names toggle", () => {
  it("is on by default, remembers off and on, and survives a storage that throws", () => {
    const map = new Map<string, string>();
    const storage = {
      getItem: (key: string) => map.get(key) ?? null,
      setItem: (key: string, value: string) => void map.set(key, value),
    };
    expect(nameTagsWanted(storage)).toBe(true);
    rememberNameTags(storage, false);
    expect(map.get(NAME_TAGS_STORAGE_KEY)).toBe("off");
    expect(nameTagsWanted(storage)).toBe(false);
    rememberNameTags(storage, true);
    expect(nameTagsWanted(storage)).toBe(true);
    const refusing = {
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => {
        throw new Error("denied");
      },
    };
    expect(nameTagsWanted(refusing)).toBe(true);
    expect(() => rememberNameTags(refusing, false)).not.toThrow();
    expect(nameTagsWanted(null)).toBe(true);
  });
});
