// The admin API of a cluster (ts/cluster/admin-fanout.ts), over HTTP at a gateway of a real cluster
// started with --admin-token-file: the players of both regions in one list; a mute found in whichever
// region holds the player and kept when the player crosses the border (it travels in the handoff); a kick
// reaching the region holding the player; a wrong token refused by every region; announcements heard in
// both; the regions' logs merged; a ban with a wrong token refused. (Before, /api/admin/* at a gateway went
// to region 0, which served no admin routes: 404 for everything.)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HANDOFF_MARGIN_TILES } from "../ts/cluster/layout.js";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import { CHAT_STATUS_NAMES } from "../ts/protocol/chat-post-ack.js";
import { encodePacketToBytes } from "../ts/protocol/packet.js";
import { BORDER_X, clusterSkipReason, startTestCluster, type TestCluster, until } from "./support/cluster-process.js";
import { postJson } from "./support/game-harness.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const skip = clusterSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-admin.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);
const EAST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === 1 && ACTION_DY[code] === 0);
const TOKEN = "a".repeat(16) + "0123456789abcdef0123456789abcdef";
/** The test map's spawn column (test/support/test-map.ts): region 1's ground. */
const SPAWN_X = 40;

describe.skipIf(skip !== null)("the admin API of a cluster, at a gateway", () => {
  let cluster: TestCluster;
  let dir: string;
  const clients: UdpTestClient[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "caves-cluster-admin-"));
    const tokenFile = join(dir, "admin-token");
    writeFileSync(tokenFile, `${TOKEN}\n`);
    cluster = await startTestCluster(1, ["--admin-token-file", tokenFile]);
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 20_000);

  const gateway = () => cluster.ready.gateways[0].httpPort;
  async function admin(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    token = TOKEN,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`http://127.0.0.1:${gateway()}/api/admin/${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  async function guest(nick: string): Promise<UdpTestClient> {
    const joined = await postJson(gateway(), "/api/guest", { nick });
    expect(joined.status).toBe(200);
    const client = await (await UdpTestClient.withSession(joined.body as unknown as Joined)).sign().placed();
    clients.push(client);
    return client;
  }
  let seq = 0;
  /** Says `text` and resolves with the ChatPostAck's status. */
  async function say(client: UdpTestClient, text: string): Promise<string> {
    const mine = ++seq;
    client.sendRaw(encodePacketToBytes({ type: "chat_post", clientType: 0, authToken: client.token, seq: mine, text }));
    return client.waitFor(`the ack of line ${mine}`, () => {
      for (const { packet } of client.received) {
        if (packet?.type === "chat_post_ack" && packet.seq === mine) return CHAT_STATUS_NAMES[packet.status];
      }
      return undefined;
    });
  }
  const playersNow = async () =>
    (await admin("GET", "players")).body.players as { nick: string; entityId: number; region: number }[];

  it("lists, mutes across a border, kicks, announces and logs in every region; refuses wrong tokens", async () => {
    const ann = await guest("Ann");
    // Ann walks west onto region 0's ground; Bob stays at the spawn, region 1's.
    await walkSteps(
      ann,
      Array.from({ length: SPAWN_X - BORDER_X + HANDOFF_MARGIN_TILES + 2 }, () => WEST),
    );
    const bob = await guest("Bob");
    const regionOf = async (nick: string) => (await playersNow()).find((p) => p.nick === nick)?.region;
    await until(
      "Ann in region 0 and Bob in region 1",
      async () => (await regionOf("Ann")) === 0 && (await regionOf("Bob")) === 1,
    );

    // Every region refuses a wrong token (each logs it); the gateway says so once.
    const wrong = await admin("GET", "players", undefined, "b".repeat(40));
    expect(wrong.status).toBe(401);

    // Muted by nick (any case), found in region 0.
    const muted = await admin("POST", "mute", { nick: "ann", reason: "shouting" });
    expect(muted.status).toBe(200);
    expect(muted.body.region).toBe(0);
    expect(await say(ann, "hello?")).toBe("refused");
    // Back east across the border: region 1 holds Ann now, and the mute came with her.
    await walkSteps(
      ann,
      Array.from({ length: 2 * HANDOFF_MARGIN_TILES + 4 }, () => EAST),
    );
    await until("Ann in region 1", async () => (await regionOf("Ann")) === 1);
    expect(await say(ann, "still?")).toBe("refused");
    const unmuted = await admin("POST", "unmute", { nick: "Ann" });
    expect(unmuted).toMatchObject({ status: 200, body: { lifted: true, region: 1 } });
    expect(await say(ann, "thanks")).toBe("posted");

    // A kick reaches the region holding the player; nobody else is touched.
    expect((await admin("POST", "kick", { nick: "Nobody" })).status).toBe(404);
    const kicked = await admin("POST", "kick", { entityId: bob.joined.entityId, reason: "testing" });
    expect(kicked).toMatchObject({ status: 200, body: { region: 1, nick: "Bob" } });
    await until("Bob gone", async () => (await playersNow()).every((p) => p.nick !== "Bob"));
    expect((await playersNow()).map((p) => p.nick)).toContain("Ann");

    // An announcement is said once and heard everywhere (region 0 says it; the chat relay carries it).
    expect((await admin("POST", "announce", { text: "Server restarts soon" })).status).toBe(200);
    await ann.waitFor("the announcement", () =>
      ann.received.some(({ packet }) => packet?.type === "chat" && packet.text.includes("Server restarts soon")),
    );

    // A ban's token is checked by every region too (bans themselves: test/cluster-bans.test.ts).
    expect((await admin("POST", "ban", { nick: "Ann", reason: "x" }, "c".repeat(40))).status).toBe(401);

    // The regions' logs, merged newest first, each entry naming its region.
    const log = (await admin("GET", "log?limit=20")).body.entries as { action: string; atMs: number; region: number }[];
    const actions = log.map((entry) => `${entry.action}@${entry.region}`);
    expect(actions).toEqual(expect.arrayContaining(["mute@0", "unmute@1", "kick@1", "announce@0"]));
    expect(log.map((entry) => entry.atMs)).toEqual([...log.map((entry) => entry.atMs)].sort((a, b) => b - a));
  }, 90_000);
});
