// Bans served by a cluster (issue 41; docs/scaling.md § Bans in a cluster), for real: the launcher with its
// own redis-server, PostgreSQL, two regions and two gateways (test/support/cluster-process.ts), protocol
// clients on real UDP from distinct loopback addresses. An account banned through gateway 0 — kept by
// region 0 while its player plays in region 1 — is kicked there and refused at gateway 1 with one process's
// words; unbanned, it plays again. A guest named by nick stands for its address: every session from that
// address ends, in both regions; the address is refused at both gateways (gateway 1 within its re-read of
// the shared store), still after gateway 1 is killed and started again, and let in again once unbanned.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HANDOFF_MARGIN_TILES } from "../ts/cluster/layout.js";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import {
  BORDER_X,
  clusterSkipReason,
  partHealth,
  startedAgain,
  startTestCluster,
  type TestCluster,
  until,
} from "./support/cluster-process.js";
import { postJsonFrom } from "./support/http-from.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const skip = clusterSkipReason() ?? postgresSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-bans.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);
const TOKEN = "b".repeat(16) + "0123456789abcdef0123456789abcdef";
/** The test map's spawn column (test/support/test-map.ts): region 1's ground. */
const SPAWN_X = 40;
/** The address the banned guests play from; everyone else plays from 127.0.0.1. */
const BANNED_FROM = "127.0.0.2";

describe.skipIf(skip !== null)("bans served by a cluster", () => {
  let cluster: TestCluster;
  let dir: string;
  const clients: UdpTestClient[] = [];
  const keepAlives: NodeJS.Timeout[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "caves-cluster-bans-"));
    const tokenFile = join(dir, "admin-token");
    writeFileSync(tokenFile, `${TOKEN}\n`);
    cluster = await startTestCluster(2, ["--admin-token-file", tokenFile]);
  }, 120_000);

  afterAll(async () => {
    for (const timer of keepAlives) clearInterval(timer);
    for (const client of clients) client.close();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 20_000);

  const gateway = (index: number) => cluster.ready.gateways[index].httpPort;
  async function admin(index: number, method: "GET" | "POST", path: string, body?: unknown) {
    const response = await fetch(`http://127.0.0.1:${gateway(index)}/api/admin/${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  const players = async () =>
    (await admin(0, "GET", "players")).body.players as { nick: string; entityId: number; region: number }[];
  const regionOf = async (nick: string) => (await players()).find((p) => p.nick === nick)?.region;
  /** A join through gateway `index` from `from`: a guest, or a login. */
  const guestJoin = (index: number, nick: string, from = "127.0.0.1") =>
    postJsonFrom(gateway(index), "/api/guest", { nick }, from);
  const login = (index: number) =>
    postJsonFrom(gateway(index), "/api/login", { name: "Rogue", password: "rogue-password" });
  /** Plays `joined` from `from`, with a keep-alive every 200 ms as a client sends (an idle session times out in 10 s). */
  async function play(joined: Joined, from = "127.0.0.1"): Promise<UdpTestClient> {
    const client = await (await UdpTestClient.withSession(joined, from)).sign().placed();
    clients.push(client);
    keepAlives.push(setInterval(() => client.action(0, 0), 200));
    return client;
  }

  it("an account banned through one gateway is kicked in the region playing it, refused at the other, and let back when unbanned", async () => {
    const registered = await postJsonFrom(gateway(0), "/api/register", {
      name: "Rogue",
      password: "rogue-password",
      nick: "Rogue",
    });
    expect(registered.status).toBe(200);
    await play(registered.body as unknown as Joined);
    await until("Rogue in play in region 1", async () => (await regionOf("Rogue")) === 1);

    // Kept by region 0 (an account named outright), kicked in region 1.
    const banned = await admin(0, "POST", "ban", { account: "rogue", reason: "cheating" });
    expect(banned).toMatchObject({ status: 200, body: { account: "rogue", kicked: ["Rogue"], region: 0 } });
    expect(banned.body).not.toHaveProperty("reach");
    expect(await regionOf("Rogue")).toBeUndefined();
    // Refused through the other gateway, in one process's words.
    const refused = await login(1);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("account banned: cheating");

    expect((await admin(1, "POST", "ban", { account: "Nobody", reason: "x" })).status).toBe(404);
    expect((await admin(1, "POST", "ban", { reason: "x" })).status).toBe(400);
    expect((await admin(1, "POST", "unban", { account: "Rogue" })).body).toMatchObject({ lifted: true });
    const back = await login(1);
    expect(back.status).toBe(200);
    await play(back.body as unknown as Joined);
    await until("Rogue in play again", async () => (await regionOf("Rogue")) === 1);
  }, 60_000);

  it("an address banned by a guest's nick ends its sessions in both regions and is refused at both gateways, also after a gateway's restart", async () => {
    // Two guests from the banned address: Ann walks into region 0, Ari stays at the spawn (region 1).
    const ann = await play((await guestJoin(0, "Ann", BANNED_FROM)).body as unknown as Joined, BANNED_FROM);
    await walkSteps(
      ann,
      Array.from({ length: SPAWN_X - BORDER_X + HANDOFF_MARGIN_TILES + 2 }, () => WEST),
    );
    await play((await guestJoin(1, "Ari", BANNED_FROM)).body as unknown as Joined, BANNED_FROM);
    await play((await guestJoin(0, "Bob")).body as unknown as Joined);
    await until(
      "Ann in region 0, Ari and Bob in region 1",
      async () => (await regionOf("Ann")) === 0 && (await regionOf("Ari")) === 1 && (await regionOf("Bob")) === 1,
    ).catch(async (error: unknown) => {
      throw new Error(`${String(error)}; in play: ${JSON.stringify(await players())}`);
    });

    // Ari stands for its address (a guest has no account): region 1 keeps the ban; both regions kick.
    const banned = await admin(0, "POST", "ban", { nick: "ari", reason: "flooding" });
    expect(banned.status).toBe(200);
    expect(banned.body).toMatchObject({ address: BANNED_FROM, region: 1 });
    expect((banned.body.kicked as string[]).sort()).toEqual(["Ann", "Ari"]);
    expect((await players()).map((p) => p.nick).sort()).toEqual(["Bob", "Rogue"]);

    // Refused at once at the gateway it was made through, and within a re-read at the other.
    const here = await guestJoin(0, "Eve", BANNED_FROM);
    expect(here.status).toBe(403);
    expect(here.body.error).toBe("this address is banned: flooding");
    const there = await until(
      "the ban refused at gateway 1",
      async () => {
        const answer = await guestJoin(1, "Eve", BANNED_FROM);
        return answer.status === 403 ? answer : null;
      },
      3_000,
    );
    expect(there.body.error).toBe("this address is banned: flooding");
    // Nobody else is touched.
    expect((await guestJoin(1, "Cy")).status).toBe(200);
    expect((await admin(1, "GET", "bans")).body.addresses).toEqual([
      expect.objectContaining({ address: BANNED_FROM, reason: "flooding", untilMs: null }),
    ]);

    // Gateway 1 killed: started again (on its ports), it reads the ban from the shared store.
    const before = await partHealth(gateway(0), "gateway 1");
    process.kill(before.pid!, "SIGKILL");
    await startedAgain(gateway(0), before);
    const afterRestart = await until(
      "gateway 1 answering again",
      async () => {
        const answer = await guestJoin(1, "Eve", BANNED_FROM).catch(() => null);
        return answer !== null && answer.status !== 503 ? answer : null;
      },
      10_000,
    );
    expect(afterRestart.status).toBe(403);
    expect(afterRestart.body.error).toBe("this address is banned: flooding");

    // Lifted through gateway 1: let in at both.
    expect((await admin(1, "POST", "unban", { address: BANNED_FROM })).body).toMatchObject({ lifted: true });
    expect((await guestJoin(1, "Gil", BANNED_FROM)).status).toBe(200);
    await until(
      "the address let in at gateway 0",
      async () => (await guestJoin(0, "Fay", BANNED_FROM)).status === 200,
      3_000,
    );
  }, 90_000);
});
