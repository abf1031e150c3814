// Playing together through the real server (issue 39), headless GameClients over real UDP loopback:
// private lines and replies, the ignore list, friends with their online status, lines that wait for an
// offline friend until its client acknowledged them, and parties — an invitation answered in a dialog,
// the party channel, the party TLV with the other members, leaving, removal, and a member who comes back
// within the grace period.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AccountRequest,
  type ChatEvent,
  connectAccount,
  GameClient,
  type GuestConnection,
  impairTransport,
  type Transport,
} from "../ts/client/core/index.js";
import { parseProfileSpec } from "../ts/netsim/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { speakerChannel } from "../ts/protocol/chat-speakers.js";
import type { RunningServer } from "../ts/server/server.js";
import type { Session } from "../ts/server/sessions/session.js";
import { PARTY_GRACE_SECONDS } from "../ts/server/social/parties.js";
import { loadCore } from "../ts/wasm/node.js";
import { drive, joinOverUdp } from "./client-core-support.js";
import { startCavesServer } from "./support/caves-server.js";

let server: RunningServer;
let baseUrl: string;
const clients: GameClient[] = [];

beforeAll(async () => {
  ({ server, baseUrl } = await startCavesServer());
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.close();
});

interface Player {
  client: GameClient;
  events: ChatEvent[];
}

/** A link that loses 20 % of the datagrams each way and duplicates 20 %. */
const lossy =
  (seed: number) =>
  (udp: Transport): Transport =>
    impairTransport(udp, parseProfileSpec("loss=20,dup=20,delay=10,jitter=5").profile, seed);

async function play(connection: GuestConnection): Promise<Player> {
  const client = GameClient.create({ core: await loadCore(), ...connection });
  clients.push(client);
  const events: ChatEvent[] = [];
  client.chat.listen((event) => events.push(event));
  await drive([client], `${connection.session.nick} playing`, () => client.state === "playing");
  return { client, events };
}

/** A guest playing over UDP (its link through `wrap`), with every chat event it sees from then on recorded. */
async function guest(nick: string, wrap?: (udp: Transport) => Transport): Promise<Player> {
  const client = await joinOverUdp(baseUrl, nick, clients, wrap);
  const events: ChatEvent[] = [];
  client.chat.listen((event) => events.push(event));
  return { client, events };
}
/** An account's player over UDP, its link keyed as the browser's is (actions tagged, docs/protocol.md § 6.1). */
const account = async (request: AccountRequest) =>
  play(
    await connectAccount(baseUrl, request, async (session) =>
      UdpNodeTransport.connect("127.0.0.1", session.udpPort, session.key),
    ),
  );

/** The lines a player saw, as "speaker: text" ("system" for speaker 0 without a name). */
function lines(player: Player): string[] {
  return player.events.flatMap((event) =>
    event.kind === "line" ? [`${event.speakerName || "system"}: ${event.text}`] : [],
  );
}

function sessionOf(player: Player): Session {
  const session = server.game.sessions.byEntityId(player.client.ownEntityId);
  if (session === undefined) throw new Error("no session for the player");
  return session;
}

/** When each client last posted: lines are paced at the server's sustained rate (1 a second) after a burst. */
const posts = new Map<GameClient, number[]>();

/** Waits until `client` may post without being refused for going too fast (chat's 1 line a second, bursts of 5). */
async function paced(client: GameClient): Promise<void> {
  const times = posts.get(client) ?? [];
  posts.set(client, times);
  if (times.length >= 4) {
    const wait = times[times.length - 4] + 4_100 - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  times.push(performance.now());
}

/** Posts `text` and drives everyone until `who` saw `line`. */
async function postAndSee(by: Player, text: string, who: Player, line: string, all: Player[]): Promise<void> {
  await paced(by.client);
  expect(by.client.postChat(text)).toBe("sent");
  await drive(
    all.map((p) => p.client),
    `"${line}" at ${who.client.ownEntityId}`,
    () => lines(who).includes(line),
  );
}

/** Drives until `player` saw a system line containing `part`. */
async function seeSystem(player: Player, part: string, all: Player[]): Promise<void> {
  await drive(
    all.map((p) => p.client),
    `a line with "${part}"`,
    () => lines(player).some((line) => line.startsWith("system: ") && line.includes(part)),
  );
}

describe("private lines, replies and the ignore list", () => {
  it("tells one player privately, echoes it to the teller, and the reply finds its way back", async () => {
    const ada = await guest("Tess");
    const bo = await guest("Ugo");
    const cy = await guest("Vic");
    const all = [ada, bo, cy];
    await postAndSee(ada, "/tell Ugo meet me at the well", bo, "Tess (private): meet me at the well", all);
    await drive(
      all.map((p) => p.client),
      "the echo",
      () => lines(ada).includes("(to Ugo): meet me at the well"),
    );
    const heard = bo.events.find((event) => event.kind === "line" && event.text === "meet me at the well");
    expect(heard).toMatchObject({ speakerEntityId: ada.client.ownEntityId });
    expect(speakerChannel((heard as { speakerName: string }).speakerName)).toEqual({
      channel: "private_from",
      nick: "Tess",
    });
    await postAndSee(bo, "/r on my way", ada, "Ugo (private): on my way", all);
    // Nobody else heard either line.
    await postAndSee(cy, "anyone here?", ada, "Vic: anyone here?", all);
    expect(lines(cy).filter((line) => line.includes("well") || line.includes("my way"))).toEqual([]);
  }, 30_000);

  it("answers every mistake with a clear line and posts nothing", async () => {
    const wes = await guest("Wes");
    const all = [wes];
    await postAndSee(wes, "/tell Nobodyhere hello", wes, "system: Nobody called Nobodyhere is playing now.", all);
    await postAndSee(wes, "/tell Wes hello", wes, "system: That is you.", all);
    await postAndSee(wes, "/tell", wes, "system: Tell whom? /tell nick text", all);
    await postAndSee(wes, "/r hi", wes, "system: Nobody told you anything yet: /tell nick text.", all);
    await postAndSee(wes, "/dance", wes, "system: There is no command /dance: /help lists them.", all);
    await postAndSee(
      wes,
      "/friend Wes",
      wes,
      "system: Friends are kept with an account: register to keep a friends list.",
      all,
    );
    await postAndSee(wes, "/leave", wes, "system: You are in no party.", all);
    // "//" says a line that starts with "/".
    await postAndSee(wes, "//help is a command", wes, "Wes: /help is a command", all);
    expect(lines(wes).filter((line) => line.startsWith("Wes: "))).toEqual(["Wes: /help is a command"]);
  }, 30_000);

  it("an ignored player's lines, private lines and invitations do not reach the one ignoring them", async () => {
    const xa = await guest("Xan");
    const yo = await guest("Yoko");
    const zed = await guest("Zed");
    const all = [xa, yo, zed];
    await postAndSee(
      yo,
      "/ignore Xan",
      yo,
      "system: You ignore Xan: you will not hear their lines, invites or trades.",
      all,
    );
    await postAndSee(xa, "hello all", zed, "Xan: hello all", all);
    await postAndSee(xa, "/tell Yoko psst", xa, "system: Yoko is not taking your messages.", all);
    await postAndSee(xa, "/invite Yoko", xa, "system: Yoko is not taking your invitations.", all);
    await postAndSee(yo, "/ignore", yo, "system: You ignore: Xan", all);
    expect(lines(yo).filter((line) => line.startsWith("Xan") || line.includes("psst"))).toEqual([]);
    await postAndSee(yo, "/unignore xan", yo, "system: You hear Xan again.", all);
    await postAndSee(xa, "hello again", yo, "Xan: hello again", all);
    // Lines reach a session in order: had the earlier one been sent to Yoko, it would have come first.
    expect(lines(yo).filter((line) => line.startsWith("Xan: "))).toEqual(["Xan: hello again"]);
  }, 30_000);
});

describe("friends and lines that wait", () => {
  it("keeps friends by account, says who comes and goes, and holds a line for an offline friend until it is read", async () => {
    const ann = await account({ kind: "register", name: "ann_social", password: "correct horse", nick: "Annika" });
    const ben = await account({ kind: "register", name: "ben_social", password: "battery staple", nick: "Benno" });
    const both = [ann, ben];
    await postAndSee(
      ann,
      "/friend Benno",
      ann,
      "system: Benno is now your friend: you will hear when they come and go.",
      both,
    );
    await seeSystem(ben, "Annika added you as a friend.", both);
    await postAndSee(ann, "/friends", ann, "system: Friends online: Benno", both);

    // Benno goes; Annika hears it and leaves him a line.
    server.game.leave(sessionOf(ben), "quit");
    ben.client.close();
    await seeSystem(ann, "Benno went offline.", [ann]);
    await postAndSee(ann, "/friends", ann, "system: Friends offline: Benno", [ann]);
    await postAndSee(ann, "/tell Benno the vault is open", ann, "system: Benno is offline: your line waits for them.", [
      ann,
    ]);
    expect(lines(ann)).toContain("(to Benno): the vault is open");
    const benId = server.game.accountStore.findByName("ben_social")!.id;
    const waiting = () =>
      server.game.database.db.prepare("SELECT count(*) FROM mail WHERE to_account = ?").pluck().get(benId) as number;
    expect(waiting()).toBe(1);

    // Benno comes back: the line is delivered, and deleted once his client acknowledged it.
    const again = await account({ kind: "login", name: "ben_social", password: "battery staple" });
    await drive([ann.client, again.client], "the waiting line", () =>
      lines(again).includes("Annika (private): the vault is open"),
    );
    expect(lines(again)).toContain("system: A line came while you were away:");
    await seeSystem(ann, "Benno is online.", [ann, again]);
    await drive([ann.client, again.client], "the line deleted once acknowledged", () => waiting() === 0);
    // A reply goes to who left the line.
    await postAndSee(again, "/r thanks", ann, "Benno (private): thanks", [ann, again]);
    await postAndSee(ann, "/unfriend benno", ann, "system: Benno is no longer your friend.", [ann, again]);
  }, 40_000);
});

describe("parties", () => {
  it("forms by invitation, talks on its channel, lists its members in their own details, and ends", async () => {
    const lea = await guest("Leia");
    const han = await guest("Hann");
    const all = [lea, han];
    await postAndSee(lea, "/invite Hann", lea, "system: You invited Hann.", all);
    await drive(
      all.map((p) => p.client),
      "the invitation",
      () => han.client.dialogs.shown.size > 0,
    );
    const [invitation] = han.client.dialogs.shown.values();
    expect(JSON.stringify(invitation.elements)).toContain("Leia invites you");
    expect(han.client.replyDialog(invitation.id, 1)).toBe(true);
    await seeSystem(lea, "Hann joined the party.", all);
    await drive(
      all.map((p) => p.client),
      "each member listed in the other's party TLV",
      () =>
        lea.client.party.members.some((mate) => mate.name === "Hann" && mate.entityId === han.client.ownEntityId) &&
        han.client.party.members.some((mate) => mate.name === "Leia" && mate.leads),
    );
    expect(lea.client.party.members).toHaveLength(1);
    await postAndSee(han, "/p ready when you are", lea, "Hann (party): ready when you are", all);
    expect(lines(han)).toContain("Hann (party): ready when you are");
    await postAndSee(han, "/party", han, "system: Your party (2 of 5): Leia (leads), Hann", all);
    // Only the leader invites and removes.
    await postAndSee(han, "/kick Leia", han, "system: Only Leia, who leads your party, removes members.", all);
    await postAndSee(han, "/leave", han, "system: You left the party.", all);
    await seeSystem(lea, "The party is over.", all);
    await drive(
      all.map((p) => p.client),
      "both out of the party",
      () => !lea.client.party.inParty && !han.client.party.inParty,
    );
  }, 40_000);

  it("a declined invitation is told to the leader, who must wait before asking again", async () => {
    const kim = await guest("Kimi");
    const rolf = await guest("Rolf");
    const all = [kim, rolf];
    await postAndSee(kim, "/invite Rolf", kim, "system: You invited Rolf.", all);
    await drive(
      all.map((p) => p.client),
      "the invitation",
      () => rolf.client.dialogs.shown.size > 0,
    );
    const [invitation] = rolf.client.dialogs.shown.values();
    expect(rolf.client.replyDialog(invitation.id, 2)).toBe(true);
    await seeSystem(kim, "Rolf declined your invitation.", all);
    await postAndSee(kim, "/invite Rolf", kim, "system: Rolf declined a moment ago: give them time.", all);
  }, 30_000);

  it("keeps an account's place while it is away, takes it back when it plays again, and lets it go after the grace period", async () => {
    const mo = await account({ kind: "register", name: "mo_party", password: "correct horse", nick: "Moira" });
    const ned = await account({ kind: "register", name: "ned_party", password: "battery staple", nick: "Nedda" });
    const pia = await guest("Pia");
    const all = [mo, ned, pia];
    for (const invited of [ned, pia]) {
      const nick = invited === ned ? "Nedda" : "Pia";
      await postAndSee(mo, `/invite ${nick}`, mo, `system: You invited ${nick}.`, all);
      await drive(
        all.map((p) => p.client),
        "the invitation",
        () => invited.client.dialogs.shown.size > 0,
      );
      const [invitation] = invited.client.dialogs.shown.values();
      invited.client.replyDialog(invitation.id, 1);
      await seeSystem(mo, `${nick} joined the party.`, all);
    }
    server.game.leave(sessionOf(ned), "timeout");
    ned.client.close();
    await seeSystem(mo, `Nedda is away (${PARTY_GRACE_SECONDS} s to come back).`, [mo, pia]);
    await drive([mo.client, pia.client], "Nedda shown away", () =>
      mo.client.party.members.some((mate) => mate.name === "Nedda" && mate.away && mate.entityId === 0),
    );
    const back = await account({ kind: "login", name: "ned_party", password: "battery staple" });
    await seeSystem(mo, "Nedda is back.", [mo, pia, back]);
    await drive([mo.client, pia.client, back.client], "Nedda back in Moira's party TLV", () =>
      mo.client.party.members.some((mate) => mate.name === "Nedda" && !mate.away),
    );
    // The leader goes for good: after the grace period the next member leads.
    const moira = sessionOf(mo);
    server.game.leave(moira, "timeout");
    mo.client.close();
    const game = server.game;
    const graceTicks = PARTY_GRACE_SECONDS * game.options.tickHz;
    // The grace period is counted in ticks; the test runs the world's ticks ahead rather than waiting a minute.
    for (let tick = 0; tick <= graceTicks; tick++) game.step();
    await seeSystem(back, "Moira did not come back and left the party.", [back, pia]);
    await seeSystem(back, "Nedda leads the party now.", [back, pia]);
    await postAndSee(back, "/party", back, "system: Your party (2 of 5): Nedda (leads), Pia", [back, pia]);
  }, 60_000);
});

describe("trade between players", () => {
  /** Puts `stacks` into `player`'s bag through the item room, and waits until the write is done. */
  async function give(player: Player, stacks: { itemId: number; count: number }[]): Promise<void> {
    await new Promise<void>((resolve, reject) =>
      server.game.items.exchange(sessionOf(player), [], stacks, (outcome) =>
        outcome === "ok" ? resolve() : reject(new Error(outcome)),
      ),
    );
  }
  const count = (player: Player, itemId: number) => server.game.items.countOf(sessionOf(player), itemId);
  const COIN = 7;
  const POTION = 6;
  const DAGGER = 2;

  /** Stands `player` on a free cell next to `other`. */
  function standBeside(player: Player, other: Player): void {
    const at = sessionOf(other).entity;
    for (const [dx, dy] of [
      [1, 0],
      [-1, 0],
      [0, 1],
      [0, -1],
      [1, 1],
      [-1, -1],
      [1, -1],
      [-1, 1],
    ]) {
      if (server.game.world.walkable(at.x + dx, at.y + dy)) {
        server.game.warps.teleport(sessionOf(player).entity, at.x + dx, at.y + dy);
        return;
      }
    }
    throw new Error("no free cell beside the other player");
  }

  /** Whether a dialog `player` is shown holds `text`. */
  function shows(player: Player, text: string): boolean {
    return [...player.client.dialogs.shown.values()].some((d) => JSON.stringify(d.elements).includes(text));
  }

  /** Posts `text` (paced) and drives until the server acknowledged it. */
  async function post(player: Player, text: string, all: Player[]): Promise<void> {
    await paced(player.client);
    expect(player.client.postChat(text)).toBe("sent");
    await drive(
      all.map((p) => p.client),
      `"${text}" acknowledged`,
      () => player.client.chat.unacknowledged === 0,
      15_000,
    );
  }

  async function answerTopDialog(player: Player, all: Player[], returnCode: number, text: string): Promise<void> {
    await drive(
      all.map((p) => p.client),
      `a dialog with "${text}"`,
      () => shows(player, text),
      15_000,
    );
    // The newest: an older window may still show until its close arrives.
    const dialog = [...player.client.dialogs.shown.values()]
      .filter((d) => JSON.stringify(d.elements).includes(text))
      .sort((a, b) => b.id - a.id)[0];
    expect(player.client.replyDialog(dialog.id, returnCode)).toBe(true);
  }

  it("exchanges both offers as one transaction over links that lose and duplicate a fifth of their datagrams", async () => {
    const ida = await guest("Ida", lossy(31));
    const jon = await guest("Jon", lossy(32));
    const all = [ida, jon];
    await give(ida, [{ itemId: COIN, count: 40 }]);
    await give(jon, [
      { itemId: POTION, count: 3 },
      { itemId: DAGGER, count: 1 },
    ]);
    standBeside(jon, ida);
    await postAndSee(ida, "/trade Jon", ida, "system: You asked Jon to trade.", all);
    await answerTopDialog(jon, all, 1, "Ida wants to trade");
    // The trade is open once Jon's answer arrived: both are shown its window.
    await drive(
      all.map((p) => p.client),
      "the trade window at both",
      () => shows(ida, "Trade with Jon") && shows(jon, "Trade with Ida"),
      15_000,
    );
    await post(ida, "/offer 25 gold", all);
    await post(jon, "/offer 2 potions", all);
    // Ida confirms; then Jon changes his offer, which clears her confirmation: her Confirm counted for that offer only.
    await answerTopDialog(ida, all, 1, "Jon gives: 2 healing potion.");
    await seeSystem(jon, "Ida confirmed the trade: confirm too to exchange.", all);
    await post(jon, "/offer dagger", all);
    await answerTopDialog(jon, all, 1, "You give: 2 healing potion, 1 dagger. Ida gives: 25 gold coin. Offer");
    await seeSystem(ida, "Jon confirmed the trade: confirm too to exchange.", all);
    expect(server.game.trades.stats.done).toBe(0);
    expect([count(ida, COIN), count(jon, POTION)]).toEqual([40, 3]);
    await answerTopDialog(ida, all, 1, "You give: 25 gold coin. Jon gives: 2 healing potion, 1 dagger. Offer");
    await seeSystem(ida, "Trade done: you gave 25 gold coin and got 2 healing potion, 1 dagger from Jon.", all);
    await seeSystem(jon, "Trade done: you gave 2 healing potion, 1 dagger and got 25 gold coin from Ida.", all);
    expect([count(ida, COIN), count(ida, POTION), count(ida, DAGGER)]).toEqual([15, 2, 1]);
    expect([count(jon, COIN), count(jon, POTION), count(jon, DAGGER)]).toEqual([25, 1, 0]);
  }, 60_000);

  it("refuses what cannot be traded with a clear answer, and walking apart calls it off", async () => {
    const kay = await guest("Kay");
    const lou = await guest("Lou");
    const all = [kay, lou];
    await give(kay, [{ itemId: COIN, count: 5 }]);
    await postAndSee(
      kay,
      "/offer 1 gold",
      kay,
      "system: You are not trading: /trade nick, standing next to them.",
      all,
    );
    server.game.warps.teleport(sessionOf(lou).entity, sessionOf(kay).entity.x + 8, sessionOf(kay).entity.y);
    await postAndSee(kay, "/trade Lou", kay, "system: Stand next to Lou to trade.", all);
    standBeside(lou, kay);
    await postAndSee(kay, "/trade Lou", kay, "system: You asked Lou to trade.", all);
    await answerTopDialog(lou, all, 1, "Kay wants to trade");
    await drive(
      all.map((p) => p.client),
      "the trade window",
      () => shows(kay, "Trade with Lou"),
    );
    await postAndSee(kay, "/offer 9 gold", kay, "system: You carry only 5 gold coin.", all);
    await postAndSee(kay, "/offer 1 dagger", kay, "system: You carry no dagger to offer.", all);
    await postAndSee(lou, "/offer 1 gold", lou, "system: You carry no gold to offer.", all);
    server.game.warps.teleport(sessionOf(lou).entity, sessionOf(kay).entity.x + 8, sessionOf(kay).entity.y);
    await seeSystem(kay, "You walked apart; the trade is off.", all);
    expect(count(kay, COIN)).toBe(5);
  }, 40_000);
});
