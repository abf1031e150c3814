// Nobody may enter under a name that passes for a player in play (issue 17
// item 9): the same nick in another case, with other separators, in
// fullwidth forms or with Cyrillic look-alike letters is refused with 409 —
// for guests and for new accounts — and is free again once the player left.
// Over the real HTTP routes of an in-process server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, postJson, startHarnessOnTestMap } from "./support/game-harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await startHarnessOnTestMap();
});
afterAll(async () => {
  await harness.close();
});

const guest = (nick: string) => postJson(harness.httpPort, "/api/guest", { nick });

describe("look-alike nicks", () => {
  it("refuses a guest or a new account that would pass for a player in play, and frees the name when it leaves", async () => {
    const ada = await guest("Ada L");
    expect(ada.status).toBe(200);
    for (const lookalike of ["ada l", "AdaL", "Ada_L", "Ａｄａ Ｌ", "\u0410da L"]) {
      const refused = await guest(lookalike);
      expect(refused.status, lookalike).toBe(409);
      expect(String(refused.body.error)).toMatch(
        /looks too much like "Ada L", who is playing now|"Ada L" is playing now/,
      );
    }
    const registered = await postJson(harness.httpPort, "/api/register", {
      name: "mimic",
      password: "mimic-password",
      nick: "\u0410DA L",
    });
    expect(registered.status).toBe(409);
    // No account was left behind by the refusal.
    expect(harness.game.accountStore.findByName("mimic")).toBeUndefined();
    // Different names are fine.
    expect((await guest("Ada M")).status).toBe(200);
    // Once Ada L has left, the name is free again.
    harness.game.leave(harness.game.sessions.byTokenValue(BigInt(`0x${String(ada.body.token)}`))!, "left");
    expect((await guest("ada l")).status).toBe(200);
  });
});
