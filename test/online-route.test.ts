// GET /api/online (ts/server/http/online-route.ts): the list itself (sorted, only
// announced sessions, bounded with the whole count), then the route over real
// loopback HTTP against the game with real UDP players: it lists the players
// who bound, not a join that never sent a datagram, and rations each source
// (429 with Retry-After past the burst, other sources unaffected).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ONLINE_NICKS_MAX, ONLINE_REQUESTS_BURST, onlineList } from "../ts/server/http/online-route.js";
import { type Harness, startHarnessOnTestMap } from "./support/game-harness.js";
import { requestFrom } from "./support/http-from.js";
import { joinGuest, UdpTestClient } from "./support/udp-client.js";

describe("onlineList", () => {
  const sessions = (entries: [string, boolean][]) => ({
    values: () => entries.map(([nick, announced]) => ({ nick, announced })).values(),
  });

  it("lists the announced sessions' nicks, sorted, and counts them", () => {
    expect(
      onlineList(
        sessions([
          ["cy", true],
          ["Ann", true],
          ["Hidden", false],
          ["bob", true],
        ]),
      ),
    ).toEqual({
      count: 3,
      nicks: ["Ann", "bob", "cy"],
      truncated: false,
    });
  });

  it("lists at most the bound, and still counts every player", () => {
    const many = Array.from({ length: ONLINE_NICKS_MAX + 5 }, (_, index): [string, boolean] => [
      `p${String(index).padStart(3, "0")}`,
      true,
    ]);
    const list = onlineList(sessions(many));
    expect(list.count).toBe(ONLINE_NICKS_MAX + 5);
    expect(list.nicks).toHaveLength(ONLINE_NICKS_MAX);
    expect(list.nicks[0]).toBe("p000");
    expect(list.truncated).toBe(true);
  });
});

describe("GET /api/online", () => {
  let server: Harness;
  const clients: UdpTestClient[] = [];

  beforeAll(async () => {
    server = await startHarnessOnTestMap();
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await server?.close();
  });

  it("lists the players who are playing, not a join that never sent a datagram", async () => {
    for (const nick of ["Zed", "Amy"]) {
      const client = await UdpTestClient.connect(server.httpPort, nick);
      clients.push(client);
      client.action(0, 0);
      await client.waitFor("first state", () => client.lastState());
    }
    await joinGuest(server.httpPort, "Lurker");
    const reply = await requestFrom(server.httpPort, "GET", "/api/online", { from: "127.0.0.4" });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ count: 2, nicks: ["Amy", "Zed"], truncated: false });
  });

  it("rations each source: past the burst a 429 with Retry-After, while another source is still answered", async () => {
    const statuses: number[] = [];
    let last = null;
    for (let request = 0; request < ONLINE_REQUESTS_BURST + 2; request++) {
      last = await requestFrom(server.httpPort, "GET", "/api/online", { from: "127.0.0.5" });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, ONLINE_REQUESTS_BURST).every((status) => status === 200)).toBe(true);
    expect(statuses.slice(ONLINE_REQUESTS_BURST)).toEqual([429, 429]);
    expect(Number(last!.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(String(last!.body.error)).toMatch(/too many requests/);
    expect((await requestFrom(server.httpPort, "GET", "/api/online", { from: "127.0.0.6" })).status).toBe(200);
    const status = await requestFrom(server.httpPort, "GET", "/api/status", { from: "127.0.0.6" });
    expect((status.body.http as Record<string, number>).onlineHeldBack).toBe(2);
  });
});
