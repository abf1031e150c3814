// A party whose members play in two regions (issue 39, docs/scaling.md § Parties across regions): a real
// cluster (redis-server, two region processes, a gateway) and protocol clients on real UDP. Two players
// form a party in region 1, one walks over the border into region 0 and stays a member: each sees the other
// in its own party TLV (present, where they stand), the party channel reaches across, `/party` is answered
// from the party's home; the leader, playing away from the home, invites a player beside her and one at
// the home and removes one; a `/leave` said in region 0 is run by the home; a member whose session ends in
// region 0 is away at the party's home. A player of another region is invited by nick and answers in its
// own region (declined, refused, joined), and the party then spans the border.
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

  /** Walks `client` west over the border until region 0 plays it; returns where it stands. */
  async function crossWest(client: UdpTestClient, nick: string): Promise<{ x: number; y: number }> {
    const start = client.position()!;
    const end = await walkSteps(
      client,
      Array.from({ length: start.x - BORDER_X + HANDOFF_MARGIN_TILES + 1 }, () => WEST),
    );
    expect(end.x).toBeLessThan(BORDER_X);
    expect(await until(`${nick} in region 0`, async () => (await cluster.ownerOf(client.joined.entityId)) === 0)).toBe(
      true,
    );
    return end;
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
    const end = await crossWest(ann, "Ann");

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
    // Ann leads from region 0, away from the party's home: she invites Dan, who plays beside her in region 0
    // (the home asks region 0 to show him the invitation), and Cal, who plays at the home, region 1.
    const dan = await playing("Dan");
    await crossWest(dan, "Dan");
    await say(ann, "/invite Dan");
    await system(ann, "You invited Dan.");
    reply(dan, await dan.waitFor("Ann's invitation", () => dialogs(dan).find((d) => labels(d).includes("Join"))), 1);
    await system(ann, "Dan joined the party.");
    await system(ben, "Dan joined the party.");
    await ben.waitFor("Dan present on region 0's ground", () =>
      membersOf(ben)?.find(
        (member) => member.name === "Dan" && member.x < BORDER_X && (member.flags & PARTY_AWAY) === 0,
      ),
    );
    await dan.waitFor("Dan sees Ann and Ben", () => membersOf(dan)?.length === 2);
    const cal = await playing("Cal");
    expect(await until("Cal in region 1", async () => (await cluster.ownerOf(cal.joined.entityId)) === 1)).toBe(true);
    await say(ann, "/invite Cal");
    reply(cal, await cal.waitFor("Ann's invitation", () => dialogs(cal).find((d) => labels(d).includes("Join"))), 1);
    await system(ann, "Cal joined the party.");
    await cal.waitFor("Cal sees the three others", () => membersOf(cal)?.length === 3);
    // …and removes him from region 0.
    await say(ann, "/kick Cal");
    await system(cal, "Ann removed you from the party.");
    await system(ben, "Ann removed Cal from the party.");
    await cal.waitFor("no party seen by Cal", () => membersOf(cal)?.length === 0);

    // Ann leaves from region 0: the home removes her, and Ben leads.
    await say(ann, "/leave");
    await system(ann, "You left the party.");
    await system(ben, "Ann left the party.");
    await system(ben, "Ben leads the party now.");
    await ann.waitFor("no party seen by Ann", () => membersOf(ann)?.length === 0);
    await dan.waitFor("Dan sees Ben leading", () =>
      membersOf(dan)?.find((member) => member.name === "Ben" && (member.flags & PARTY_LEADER) !== 0),
    );

    // A member whose session ends in region 0 is away at the home, as in one process.
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

  it("a player in another region is invited by nick, answers in its own region, and the party spans the border", async () => {
    const gil = await playing("Gil");
    const hal = await playing("Hal");
    const ivy = await playing("Ivy");
    await crossWest(gil, "Gil");
    for (const client of [hal, ivy])
      expect(await until("in region 1", async () => (await cluster.ownerOf(client.joined.entityId)) === 1)).toBe(true);

    // Region 1 shows Hal the invitation and says what became of it; a second one waits out the decline.
    await say(gil, "/invite Hal");
    await system(gil, "You invited Hal.");
    const invitation = await hal.waitFor("Gil's invitation", () =>
      dialogs(hal).find((d) => labels(d).includes("Join")),
    );
    reply(hal, invitation, 2); // Decline
    await system(gil, "Hal declined your invitation.");
    await say(gil, "/invite Hal");
    await system(gil, "Hal declined a moment ago: give them time.");
    // Ben (region 1) is still in his party (Dan away): region 1 says so.
    await say(gil, "/invite Ben");
    await system(gil, "Ben is in another party.");

    // Ivy joins: the party's home is region 0, where Gil formed it; Ivy plays on in region 1.
    await say(gil, "/invite Ivy");
    reply(ivy, await ivy.waitFor("Gil's invitation", () => dialogs(ivy).find((d) => labels(d).includes("Join"))), 1);
    await system(gil, "Ivy joined the party.");
    await system(ivy, "Ivy joined the party.");
    const gilSeen = await ivy.waitFor("Gil in Ivy's party", () =>
      membersOf(ivy)?.find((member) => member.name === "Gil" && (member.flags & PARTY_LEADER) !== 0),
    );
    expect(gilSeen.entityId).toBe(gil.joined.entityId);
    expect(gilSeen.x).toBeLessThan(BORDER_X);
    await gil.waitFor("Ivy in Gil's party, present", () =>
      membersOf(gil)?.find((member) => member.name === "Ivy" && (member.flags & PARTY_AWAY) === 0),
    );
    await say(ivy, "/party");
    await system(ivy, "Your party (2 of 5): Gil (leads), Ivy");
    await say(ivy, "/p on my way");
    await hearLine(gil, "Ivy's party line", (line) => line.speakerName === "Ivy (party)" && line.text === "on my way");
    // Invited again while in it: region 1 knows she is in this very party.
    await say(gil, "/invite Ivy");
    await system(gil, "Ivy is in your party.");
    await say(gil, "/invite Nobody");
    await system(gil, "Nobody called Nobody is playing now.");
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
      await crossWest(eve, "Eve");
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
