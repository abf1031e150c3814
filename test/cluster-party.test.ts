// A party whose members play in two regions (issue 39, docs/scaling.md § Parties across regions): a real
// cluster (redis-server, two region processes, a gateway) and protocol clients on real UDP. Two players
// form a party in region 1, one walks over the border into region 0 and stays a member: each sees the other
// in its own party TLV (present, where they stand), the party channel reaches across, `/party` is answered
// from the party's home, and a `/leave` said in region 0 ends the party for the one in region 1; a member
// whose session ends in region 0 is away at the party's home.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_DX, ACTION_DY } from "../ts/protocol/action.js";
import type { ChatPacket } from "../ts/protocol/index.js";
import { PARTY_AWAY, PARTY_LEADER, type PartyMember } from "../ts/protocol/tlv.js";
import { HANDOFF_MARGIN_TILES } from "../ts/cluster/layout.js";
import { BORDER_X, clusterSkipReason, startTestCluster, until, type TestCluster } from "./support/cluster-process.js";
import { hearLine, post } from "./support/chat-lines.js";
import { dialogs, labels, ownTlv, reply } from "./support/script-dialogs.js";
import { postgresSkipReason } from "../ts/cluster/postgres-process.js";
import { postJson } from "./support/game-harness.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";
import { walkSteps } from "./support/walk.js";

const skip = clusterSkipReason();
if (skip !== null) process.stderr.write(`test/cluster-party.test.ts skipped: ${skip}\n`);

const WEST = ACTION_DX.findIndex((dx, code) => code > 0 && dx === -1 && ACTION_DY[code] === 0);

describe.skipIf(skip !== null)("a party across a cluster's regions", () => {
  let cluster: TestCluster;
  const clients: UdpTestClient[] = [];
  const http = () => cluster.ready.gateways[0].httpPort;
  const seqs = new Map<UdpTestClient, number>();

  async function playing(nick: string): Promise<UdpTestClient> {
    const client = (await UdpTestClient.connect(http(), nick)).sign();
    clients.push(client);
    return client.placed();
  }

  /** An account's session (registered, or logged in again), playing. */
  async function account(name: string, register: boolean): Promise<UdpTestClient> {
    const body = register ? { name, password: "long enough", nick: name } : { name, password: "long enough" };
    const answer = await postJson(http(), register ? "/api/register" : "/api/login", body);
    expect(answer.status).toBe(200);
    const client = (await UdpTestClient.withSession(answer.body as unknown as Joined)).sign();
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

  const system = (client: UdpTestClient, text: string): Promise<ChatPacket> =>
    hearLine(client, text, (line) => line.speakerEntityId === 0 && line.text === text);

  /** The other members in `client`'s own party TLV, as last sent. */
  const membersOf = (client: UdpTestClient): PartyMember[] | undefined => {
    const tlv = ownTlv(client, "party");
    return tlv?.kind === "party" ? tlv.members : undefined;
  };

  beforeAll(async () => {
    cluster = await startTestCluster();
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await cluster?.stop();
  }, 20_000);

  it("a member who crosses the border stays in the party: seen, heard and answered from the party's home", async () => {
    const ann = await playing("Ann");
    const ben = await playing("Ben");
    for (const client of [ann, ben])
      expect(await until("in region 1", async () => (await cluster.ownerOf(client.joined.entityId)) === 1)).toBe(true);

    // The party forms in region 1, its home.
    await say(ann, "/invite Ben");
    const invitation = await ben.waitFor("the invitation", () => dialogs(ben).find((d) => labels(d).includes("Join")));
    reply(ben, invitation, 1); // Join (parties.ts: the first button)
    await system(ann, "Ben joined the party.");

    // Ann walks over the border into region 0.
    const start = ann.position()!;
    const end = await walkSteps(
      ann,
      Array.from({ length: start.x - BORDER_X + HANDOFF_MARGIN_TILES + 1 }, () => WEST),
    );
    expect(end.x).toBeLessThan(BORDER_X);
    expect(await until("Ann in region 0", async () => (await cluster.ownerOf(ann.joined.entityId)) === 0)).toBe(true);

    // Ben (region 1, the home) sees Ann where she stands in region 0, present, leading.
    const annSeen = await ben.waitFor("Ann on region 0's ground in Ben's party", () =>
      membersOf(ben)?.find((member) => member.name === "Ann" && member.x === end.x && member.y === end.y),
    );
    expect(annSeen.flags & PARTY_AWAY).toBe(0);
    expect(annSeen.flags & PARTY_LEADER).toBe(PARTY_LEADER);
    expect(annSeen.entityId).toBe(ann.joined.entityId);
    // Ann, in region 0, sees Ben as the home sends him: present, with his health.
    const benSeen = await ann.waitFor("Ben in Ann's party, seen from region 0", () =>
      membersOf(ann)?.find((member) => member.name === "Ben" && (member.flags & PARTY_AWAY) === 0),
    );
    expect(benSeen.entityId).toBe(ben.joined.entityId);
    expect(benSeen.hpMax).toBeGreaterThan(0);

    // The party channel both ways, and /party answered by the home to the member in region 0.
    await say(ann, "/p over here");
    await hearLine(ben, "Ann's party line", (line) => line.speakerName === "Ann (party)" && line.text === "over here");
    await hearLine(ann, "its echo", (line) => line.speakerName === "Ann (party)" && line.text === "over here");
    await say(ben, "/p coming");
    await hearLine(ann, "Ben's party line", (line) => line.speakerName === "Ben (party)" && line.text === "coming");
    await say(ann, "/party");
    await system(ann, "Your party (2 of 5): Ann (leads), Ben");
    // Inviting and removing stay with the party's home.
    await say(ann, "/kick Ben");
    await system(ann, "Your party is led from the region where it formed: invite and remove there.");

    // Ann leaves from region 0: the home removes her, and the party of one is over.
    await say(ann, "/leave");
    await system(ann, "You left the party.");
    await system(ben, "Ann left the party.");
    await system(ben, "The party is over.");
    await ann.waitFor("no party seen by Ann", () => membersOf(ann)?.length === 0);
    await ben.waitFor("no party seen by Ben", () => membersOf(ben)?.length === 0);

    // A member whose session ends in region 0 is away at the home, as in one process.
    const dan = await playing("Dan");
    expect(await until("Dan in region 1", async () => (await cluster.ownerOf(dan.joined.entityId)) === 1)).toBe(true);
    await say(ben, "/invite Dan");
    const second = await dan.waitFor("Ben's invitation", () => dialogs(dan).find((d) => labels(d).includes("Join")));
    reply(dan, second, 1);
    await system(ben, "Dan joined the party.");
    const from = dan.position()!;
    await walkSteps(
      dan,
      Array.from({ length: from.x - BORDER_X + HANDOFF_MARGIN_TILES + 1 }, () => WEST),
    );
    expect(await until("Dan in region 0", async () => (await cluster.ownerOf(dan.joined.entityId)) === 0)).toBe(true);
    await ben.waitFor("Dan present on region 0's ground", () =>
      membersOf(ben)?.find(
        (member) => member.name === "Dan" && member.x < BORDER_X && (member.flags & PARTY_AWAY) === 0,
      ),
    );
    dan.leave();
    await system(ben, "Dan is away (60 s to come back).");
    await ben.waitFor("Dan shown away", () =>
      membersOf(ben)?.find((member) => member.name === "Dan" && (member.flags & PARTY_AWAY) !== 0),
    );

    const [status0, status1] = await Promise.all([cluster.regionStatus(0), cluster.regionStatus(1)]);
    const parties = (status: unknown) =>
      (status as { parties: { sent: number; received: number; dropped: number } }).parties;
    expect(parties(status0).dropped + parties(status1).dropped).toBe(0);
    expect(parties(status0).received).toBeGreaterThan(0);
    expect(parties(status1).received).toBeGreaterThan(0);
  }, 90_000);

  it.skipIf(postgresSkipReason() !== null)(
    "an account away from its party is back when it plays again within the grace period, in another region than the home",
    async () => {
      const eve = await account("Eve", true);
      const fay = await account("Fay", true);
      for (const client of [eve, fay])
        expect(await until("in region 1", async () => (await cluster.ownerOf(client.joined.entityId)) === 1)).toBe(
          true,
        );
      await say(eve, "/invite Fay");
      reply(fay, await fay.waitFor("the invitation", () => dialogs(fay).find((d) => labels(d).includes("Join"))), 1);
      await system(eve, "Fay joined the party.");
      const start = eve.position()!;
      await walkSteps(
        eve,
        Array.from({ length: start.x - BORDER_X + HANDOFF_MARGIN_TILES + 1 }, () => WEST),
      );
      expect(await until("Eve in region 0", async () => (await cluster.ownerOf(eve.joined.entityId)) === 0)).toBe(true);
      eve.leave();
      await system(fay, "Eve is away (60 s to come back).");
      await until("Eve's session over", async () => (await cluster.ownerOf(eve.joined.entityId)) === null);

      // Logged in again, she plays where she stood, in region 0: the home (region 1) takes her back.
      const again = await account("eve", false);
      expect(
        await until("Eve in region 0 again", async () => (await cluster.ownerOf(again.joined.entityId)) === 0),
      ).toBe(true);
      await system(fay, "Eve is back.");
      await again.waitFor("Fay in Eve's party again", () =>
        membersOf(again)?.find((member) => member.name === "Fay" && (member.flags & PARTY_AWAY) === 0),
      );
      await fay.waitFor("Eve present in region 0", () =>
        membersOf(fay)?.find(
          (member) => member.name === "Eve" && member.x < BORDER_X && (member.flags & PARTY_AWAY) === 0,
        ),
      );
      await say(again, "/p back again");
      await hearLine(
        fay,
        "Eve's party line",
        (line) => line.speakerName === "Eve (party)" && line.text === "back again",
      );
    },
    90_000,
  );
});
