// WorldInfo.kinds: the NPC kinds of GET /api/world, validated like the rest of
// the answer: the real server on the bundled map sends its seven kinds; an older
// server that sends none gives an empty list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseKinds } from "../ts/client/core/kinds.js";
import { fetchWorld, SessionError } from "../ts/client/core/session-api.js";
import type { RunningServer } from "../ts/server/server.js";
import { startCavesServer } from "./support/caves-server.js";
import { CAVE_KINDS } from "./client-npc-support.js";

/** A world answer as the server sends it, with `kinds` as given. */
function worldBody(kinds: unknown): Record<string, unknown> {
  return {
    name: "kinds test",
    mapWidth: 32,
    mapHeight: 32,
    chunksX: 1,
    chunksY: 1,
    tickHz: 24,
    tiles: [{ id: 1, collides: false, opaque: false, look: 1 }],
    ...(kinds === undefined ? {} : { kinds }),
  };
}

/** Serves `body` as the /api/world answer (a real Response, no network needed). */
function serving(body: unknown) {
  return async (): Promise<Response> =>
    new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
}

describe("WorldInfo.kinds", () => {
  let server: RunningServer;
  let baseUrl: string;
  beforeAll(async () => {
    ({ server, baseUrl } = await startCavesServer());
  });
  afterAll(async () => {
    await server?.close();
  });

  it("is empty from a server that sends none (an older server)", async () => {
    const world = await fetchWorld("http://test", serving(worldBody(undefined)));
    expect(world.tiles.length).toBeGreaterThan(0);
    expect(world.kinds).toEqual([]);
  });

  it("carries the bundled map's seven kinds from the real server", async () => {
    const world = await fetchWorld(baseUrl);
    expect(world.kinds).toEqual(CAVE_KINDS);
    expect(world.kinds.map((kind) => kind.sprite)).toEqual([
      "rat",
      "beetle",
      "spider",
      "skeleton",
      "guard",
      "guard",
      "guard",
    ]);
  });

  it("keeps a sprite name the client has no art for (it falls back when drawn)", () => {
    expect(parseKinds([{ typeId: 40, name: "mole", sprite: "mole", behaviour: "wander", speed: 10 }])).toEqual([
      { typeId: 40, name: "mole", sprite: "mole", behaviour: "wander", speed: 10 },
    ]);
  });

  it.each([
    ["not an array", { typeId: 16 }, "kinds is not an array"],
    ["an entry that is not an object", [7], "kinds[0] is not an object"],
    ["a built-in type id", [{ ...CAVE_KINDS[0], typeId: 3 }], "kinds[0].typeId must be an integer 16..65535"],
    ["a type id beyond u16", [{ ...CAVE_KINDS[0], typeId: 70000 }], "kinds[0].typeId must be an integer 16..65535"],
    ["a type id twice", [CAVE_KINDS[0], { ...CAVE_KINDS[1], typeId: 16 }], "kinds[1].typeId 16 is listed twice"],
    ["no name", [{ ...CAVE_KINDS[0], name: "" }], "kinds[0].name must be a non-empty string"],
    ["no sprite", [{ ...CAVE_KINDS[0], sprite: 3 }], "kinds[0].sprite must be a string"],
    ["an unknown behaviour", [{ ...CAVE_KINDS[0], behaviour: "fly" }], "kinds[0].behaviour must be one of"],
    ["speed 0", [{ ...CAVE_KINDS[0], speed: 0 }], "kinds[0].speed must be a number 1..100"],
    ["speed over the maximum", [{ ...CAVE_KINDS[0], speed: 101 }], "kinds[0].speed must be a number 1..100"],
    ["a speed that is not a number", [{ ...CAVE_KINDS[0], speed: "25" }], "kinds[0].speed must be a number 1..100"],
  ])("refuses the answer with %s", async (_what, kinds, reason) => {
    const answer = fetchWorld("http://test", serving(worldBody(kinds)));
    await expect(answer).rejects.toThrow(SessionError);
    await expect(answer).rejects.toThrow(`world: ${reason}`);
  });
});
