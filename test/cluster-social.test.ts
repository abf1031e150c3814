// Playing together across a cluster's regions (issue 39, docs/social.md § In a cluster): a real cluster
// (redis-server, PostgreSQL, two region processes, a gateway) and protocol clients on real UDP. Two
// players in two regions befriend each other (each found in the other's region through the directory of
// players in Redis), see each other online, hear each other go; a line to the one who went waits in
// PostgreSQL and reaches them when they log in again, in whichever region they play; and an ignore holds
// for public lines relayed from the other region, kept in PostgreSQL across the login. "Ada added you as a
// friend." reaches the new friend in the other region, or waits for their next login when they went offline.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import type { ChatPacket } from "../ts/protocol/index.js";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import {
  BORDER_X,
  clusterSkipReason,
  connectStore,
  startTestCluster,
  until,
  type TestCluster,
} from "./support/cluster-process.js";
import { acknowledgeLines, hearLine, lines, post } from "./support/chat-lines.js";
import { postJson } from "./support/game-harness.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";
import { HANDOFF_MARGIN_TILES } from "../ts/cluster/layout.js";
import { SOCIAL_LOCK_SPACE } from "../ts/cluster/pg-social.js";
import { BEFRIENDED_WAITING_TEXT } from "../ts/server/social/social-room.js";

const skip = clusterSkipReason() ?? postgresSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-social.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);

describe.skipIf(skip !== null)("friends, waiting lines and ignores across a cluster's regions", () => {
  let cluster: TestCluster;
  let db: pg.Client;
  const clients: UdpTestClient[] = [];
  const http = () => cluster.ready.gateways[0].httpPort;
  /** Each client's next chat sequence number. */
  const seqs = new Map<UdpTestClient, number>();

  async function playing(joined: Joined): Promise<UdpTestClient> {
    const client = (await UdpTestClient.withSession(joined)).sign();
    clients.push(client);
    return client.placed();
  }

  /** Posts `text` as `client`'s next line (one a second at most: the chat limit's refill). */
  async function say(client: UdpTestClient, text: string): Promise<void> {
    const seq = (seqs.get(client) ?? 0) + 1;
    seqs.set(client, seq);
    post(client, seq, text);
    await client.waitFor(`the answer to line ${seq}`, () =>
      client.received.some(({ packet }) => packet?.type === "chat_post_ack" && packet.seq === seq),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }

  const system = (client: UdpTestClient, what: string, text: string): Promise<ChatPacket> =>
    hearLine(client, what, (line) => line.speakerEntityId === 0 && line.text === text);

  async function register(name: string): Promise<Joined> {
    const answer = await postJson(http(), "/api/register", { name, password: "long enough", nick: name });
    expect(answer.status).toBe(200);
    return answer.body as unknown as Joined;
  }

  beforeAll(async () => {
    cluster = await startTestCluster();
    db = await connectStore(cluster);
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await db?.end().catch(() => {});
    await cluster?.stop();
  }, 20_000);

  it("two players in two regions befriend, see each other come and go, and a line waits for the one who went", async () => {
    // Both start on region 1's ground (the spawn); Ada walks over the border into region 0.
    const ada = await playing(await register("Ada"));
    const bo = await playing(await register("Bob"));
    const start = ada.position()!;
    await walkSteps(
      ada,
      Array.from({ length: start.x - BORDER_X + HANDOFF_MARGIN_TILES + 1 }, () => WEST),
    );
    expect(await until("Ada in region 0", async () => (await cluster.ownerOf(ada.joined.entityId)) === 0)).toBe(true);
    expect(await until("Bob in region 1", async () => (await cluster.ownerOf(bo.joined.entityId)) === 1)).toBe(true);

    // Each names the other, who plays in the other region: found through the directory of players.
    // And each is told in its own region, through the directory of players and the chat relay.
    await say(ada, "/friend Bob");
    await system(ada, "Bob befriended", "Bob is now your friend: you will hear when they come and go.");
    await system(bo, "told by the other region", "Ada added you as a friend.");
    await say(bo, "/friend Ada");
    await system(bo, "Ada befriended", "Ada is now your friend: you will hear when they come and go.");
    await system(ada, "told by the other region", "Bob added you as a friend.");
    const rows = await db.query<{ who: string; friend: string }>(
      `SELECT a.nick AS who, b.nick AS friend FROM friends f
       JOIN accounts a ON a.id = f.account_id JOIN accounts b ON b.id = f.friend_id ORDER BY a.nick`,
    );
    expect(rows.rows).toEqual([
      { who: "Ada", friend: "Bob" },
      { who: "Bob", friend: "Ada" },
    ]);
    await say(ada, "/friends");
    await system(ada, "Bob online in the other region", "Friends online: Bob");

    // Bob leaves: Ada, in the other region, hears it, and sees Bob offline.
    bo.leave();
    await system(ada, "Bob gone", "Bob went offline.");
    await until("Bob gone from the directory", async () => (await cluster.ownerOf(bo.joined.entityId)) === null);
    await say(ada, "/friends");
    await system(ada, "Bob offline", "Friends offline: Bob");

    // A line to Bob, offline: nobody in any region has the nick, so it waits in PostgreSQL, once.
    await say(ada, "/tell Bob see you at the hall");
    await system(ada, "the line kept", "Bob is offline: your line waits for them.");
    const waiting = await db.query<{ text: string }>(
      "SELECT m.text FROM mail m JOIN accounts a ON a.id = m.to_account WHERE a.name_key = 'bob'",
    );
    expect(waiting.rows).toEqual([{ text: "see you at the hall" }]);

    // Bob logs in again (through region 0, which runs logins; Bob stood on region 1's ground): Ada hears it,
    // and the line reaches Bob wherever Bob plays, and is deleted once Bob's client acknowledged it.
    const login = await postJson(http(), "/api/login", { name: "bob", password: "long enough" });
    expect(login.status).toBe(200);
    const bo2 = await playing(login.body as unknown as Joined);
    await system(ada, "Bob back", "Bob is online.");
    await system(bo2, "the waiting line announced", "A line came while you were away:");
    const delivered = await hearLine(bo2, "the waiting line", (line) => line.text === "see you at the hall");
    expect(delivered.speakerName).toBe("Ada (private)");
    acknowledgeLines(bo2);
    await until(
      "the delivered line deleted",
      async () => (await db.query("SELECT 1 FROM mail")).rows.length === 0 && true,
    );
    expect(await until("Bob in region 1 again", async () => (await cluster.ownerOf(bo2.joined.entityId)) === 1)).toBe(
      true,
    );
    await say(bo2, "/friends");
    await system(bo2, "Ada online", "Friends online: Ada");
  }, 90_000);

  it("an ignore hides a player's public lines relayed from another region, and is kept across a login", async () => {
    const ada = clients[0];
    const bo = clients[2];
    // A guest beside Bob in region 1 hears every line: the control.
    const cy = (await UdpTestClient.connect(http(), "Cy")).sign();
    clients.push(cy);
    await cy.placed();

    await say(bo, "/ignore Ada");
    await system(bo, "Ada ignored", "You ignore Ada: you will not hear their lines, invites or trades.");
    const kept = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM ignores i JOIN accounts a ON a.id = i.account_id WHERE a.name_key = 'bob'`,
    );
    expect(Number(kept.rows[0].n)).toBe(1);
    await say(ada, "hello from the west");
    await hearLine(cy, "Ada's line relayed to region 1", (line) => line.text === "hello from the west");
    // Bob heard the line after it? Give the relay the same time: Cy heard it, so Bob would have.
    await say(cy, "cy was here");
    await hearLine(bo, "Cy's line, said after Ada's", (line) => line.text === "cy was here");
    expect(lines(bo).some((line) => line.text === "hello from the west")).toBe(false);

    // Kept in PostgreSQL: Bob logs in again, and still does not hear Ada; unignored, Bob does.
    bo.leave();
    await until("Bob gone", async () => (await cluster.ownerOf(bo.joined.entityId)) === null);
    const login = await postJson(http(), "/api/login", { name: "bob", password: "long enough" });
    expect(login.status).toBe(200);
    const bo3 = await playing(login.body as unknown as Joined);
    expect(await until("Bob in region 1 again", async () => (await cluster.ownerOf(bo3.joined.entityId)) === 1)).toBe(
      true,
    );
    await say(bo3, "/ignore");
    await system(bo3, "the ignore list read at the login", "You ignore: Ada");
    await say(ada, "second hello");
    await hearLine(cy, "Ada's second line relayed", (line) => line.text === "second hello");
    await say(cy, "cy again");
    await hearLine(bo3, "Cy's line after it", (line) => line.text === "cy again");
    expect(lines(bo3).some((line) => line.text === "second hello")).toBe(false);

    await say(bo3, "/unignore Ada");
    await system(bo3, "Ada heard again", "You hear Ada again.");
    expect(Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM ignores")).rows[0].n)).toBe(0);
    await say(ada, "third hello");
    const heard = await hearLine(bo3, "Ada's line once unignored", (line) => line.text === "third hello");
    expect(heard.speakerName).toBe("Ada");
  }, 60_000);

  it("a new friend gone offline by the time the friendship is written finds the notice waiting at the next login", async () => {
    const ada = clients[0];
    const dee = await playing(await register("Dee"));
    expect(await until("Dee in region 1", async () => (await cluster.ownerOf(dee.joined.entityId)) === 1)).toBe(true);
    // Ada's social rows are written under her account's advisory lock: held here, Ada's /friend Dee waits in
    // PostgreSQL while Dee leaves, so the friendship is written with Dee offline in every region.
    const ids = await db.query<{ id: number }>("SELECT id FROM accounts WHERE name_key = 'ada'");
    const lock = [SOCIAL_LOCK_SPACE, ids.rows[0].id];
    await db.query("SELECT pg_advisory_lock($1, $2)", lock);
    try {
      const seq = (seqs.get(ada) ?? 0) + 1;
      seqs.set(ada, seq);
      post(ada, seq, "/friend Dee");
      await until(
        "Ada's friendship waiting for the lock",
        async () =>
          (await db.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows.length > 0,
      );
      dee.leave();
      await until("Dee gone", async () => (await cluster.ownerOf(dee.joined.entityId)) === null);
    } finally {
      await db.query("SELECT pg_advisory_unlock($1, $2)", lock);
    }
    await system(ada, "Dee befriended", "Dee is now your friend: you will hear when they come and go.");
    await until("the notice kept for Dee", async () =>
      (
        await db.query<{ text: string }>(
          "SELECT m.text FROM mail m JOIN accounts a ON a.id = m.to_account WHERE a.name_key = 'dee'",
        )
      ).rows.some((row) => row.text === BEFRIENDED_WAITING_TEXT),
    );

    const login = await postJson(http(), "/api/login", { name: "dee", password: "long enough" });
    expect(login.status).toBe(200);
    const dee2 = await playing(login.body as unknown as Joined);
    await system(dee2, "the waiting line announced", "A line came while you were away:");
    const notice = await hearLine(dee2, "the notice", (line) => line.text === BEFRIENDED_WAITING_TEXT);
    expect(notice.speakerName).toBe("Ada (private)");
  }, 60_000);
});
