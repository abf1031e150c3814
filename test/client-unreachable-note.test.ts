// What the page says when a clicked tile cannot be reached: the tile's own name
// from the world's tile data, and a plain word for unseen and edge tiles.
import { describe, expect, it } from "vitest";
import { TILE_BORDER, TILE_UNKNOWN } from "../ts/constants.js";
import { ClickSteering } from "../ts/client/ui/click-steering.js";
import { unreachableNote } from "../ts/client/ui/unreachable-note.js";

const TILES = [
  { id: 1, name: "floor", collides: false },
  { id: 10, name: "deep water", collides: true },
  { id: 5, collides: true },
];

describe("the unreachable-tile note", () => {
  it("names a blocking tile, and says so plainly for floor with no way there, unseen tiles and the edge", () => {
    expect(unreachableNote(10, TILES)).toBe("You can't walk on deep water.");
    expect(unreachableNote(5, TILES)).toBe("You can't walk there.");
    expect(unreachableNote(1, TILES)).toBe("There is no way there from here.");
    expect(unreachableNote(TILE_UNKNOWN, TILES)).toBe("You can't see a way there yet.");
    expect(unreachableNote(TILE_BORDER, TILES)).toBe("That is the edge of the world.");
  });

  it("is asked for by a discrete click only, not by click-and-hold steering", () => {
    const answers: string[] = [];
    const sink = { setGoal: () => "unreachable" };
    const steering = new ClickSteering();
    steering.press();
    answers.push(String(steering.frame({ x: 1, y: 1 }, sink))); // the press's first aim: a click
    answers.push(String(steering.frame({ x: 2, y: 1 }, sink))); // dragged on: steering
    steering.release();
    expect(answers).toEqual(["unreachable", "undefined"]);
  });
});
