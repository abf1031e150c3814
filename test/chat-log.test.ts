// The console's chat log (talk/chat-log.ts): at most its capacity of lines, the newest first, searched by
// nick or text in any case.
import { describe, expect, it } from "vitest";
import { ChatLog } from "../ts/server/talk/chat-log.js";

describe("the chat log", () => {
  it("keeps the newest lines up to its capacity, newest first, and finds them by nick or text", () => {
    let now = 0;
    const log = new ChatLog(3, () => ++now);
    expect(log.recent(10)).toEqual([]);
    log.add(1, "Ada", "hello");
    log.add(2, "Bo", "buy GOLD");
    log.add(1, "Ada", "no thanks");
    log.add(3, "Cy", "hi");
    expect(log.recent(10).map((line) => line.text)).toEqual(["hi", "no thanks", "buy GOLD"]);
    expect(log.recent(1)).toEqual([{ atMs: 4, entityId: 3, nick: "Cy", text: "hi" }]);
    expect(log.recent(10, "gold").map((line) => line.nick)).toEqual(["Bo"]);
    expect(log.recent(10, "ADA").map((line) => line.text)).toEqual(["no thanks"]);
    for (let i = 0; i < 1000; i++) log.add(i, "Spam", `line ${i}`);
    expect(log.recent(10).map((line) => line.text)).toEqual(["line 999", "line 998", "line 997"]);
  });
});
