// Chat, accounts and custom messages between headless GameClients and the real
// server, in-process, over real UDP loopback (the server's accounts live in
// its in-memory database): lines between two players, in order over lossy
// links, join notices, account registration and login with every refusal, a
// second login replacing the first, and a custom-message echo.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AccountRequest,
  type ChatEvent,
  connectAccount,
  connectGuest,
  GameClient,
  type GuestConnection,
  impairTransport,
  joinAccount,
  SessionError,
  type Transport,
} from "../ts/client/core/index.js";
import { UdpNodeTransport } from "../ts/client/transport/udp-node.js";
import { parseProfileSpec } from "../ts/netsim/index.js";
import type { RunningServer } from "../ts/server/server.js";
import { loadCore } from "../ts/wasm/node.js";
import { drive } from "./client-core-support.js";
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

type Wrap = (udp: Transport) => Transport;
const udpLink = (wrap: Wrap) => async (session: { udpPort: number }) =>
  wrap(await UdpNodeTransport.connect("127.0.0.1", session.udpPort));

/** A client on `connection`, with every chat event it sees recorded, driven until it plays. */
async function play(connection: GuestConnection): Promise<{ client: GameClient; events: ChatEvent[] }> {
  const client = GameClient.create({ core: await loadCore(), ...connection });
  clients.push(client);
  const events: ChatEvent[] = [];
  client.chat.listen((event) => events.push(event));
  await drive([client], `${connection.session.nick} playing`, () => client.state === "playing");
  return { client, events };
}

const guest = async (nick: string, wrap: Wrap = (udp) => udp) => play(await connectGuest(baseUrl, nick, udpLink(wrap)));
const account = async (request: AccountRequest) =>
  play(
    await connectAccount(
      baseUrl,
      request,
      udpLink((udp) => udp),
    ),
  );

/** Drives the clients in real time for `ms`. */
async function runFor(all: GameClient[], ms: number): Promise<void> {
  const end = performance.now() + ms;
  await drive(all, "the time to pass", () => performance.now() >= end, ms + 1000);
}

function lines(events: ChatEvent[]): string[] {
  return events.flatMap((event) => (event.kind === "line" ? [`${event.speakerName || "system"}: ${event.text}`] : []));
}

describe("chat between two players through the real server", () => {
  it("delivers a line to both players with the speaker's entity and name, after the join notices", async () => {
    const ada = await guest("Ada");
    const bo = await guest("Bo");
    const all = [ada.client, bo.client];
    // Joins within a second are announced together (join-notices.ts): "Bo joined" or "Ada and Bo joined",
    // by the system under the presence speaker name (the log's presence channel, issue 18).
    await drive(all, "Bo's join notice at Ada", () =>
      lines(ada.events).some((line) => line === "presence: Bo joined" || line === "presence: Ada and Bo joined"),
    );
    expect(ada.client.postChat("hello Bo")).toBe("sent");
    await drive(all, "the line at Bo", () => lines(bo.events).includes("Ada: hello Bo"));
    const line = bo.events.find((event) => event.kind === "line" && event.text === "hello Bo");
    expect(line).toMatchObject({ speakerEntityId: ada.client.ownEntityId, speakerName: "Ada" });
    await drive(all, "Ada's own line back and her ack", () => {
      return lines(ada.events).includes("Ada: hello Bo") && ada.client.chat.unacknowledged === 0;
    });
    // Bo acknowledged everything: the server holds nothing more for him.
    await drive(all, "the server's queue for Bo empties", () => {
      const session = [...server.game.sessions.values()].find((s) => s.entity.id === bo.client.ownEntityId);
      return session !== undefined && session.chat.pending === 0;
    });
    expect(bo.events.filter((event) => event.kind === "missed")).toEqual([]);
  }, 20_000);

  it("keeps every line, once and in order, when both links lose a quarter of their datagrams", async () => {
    const { profile } = parseProfileSpec("loss=25,delay=20,jitter=10");
    const cy = await guest("Cy", (udp) => impairTransport(udp, profile, 11));
    const di = await guest("Di", (udp) => impairTransport(udp, profile, 12));
    const all = [cy.client, di.client];
    const sent = ["one", "two", "three", "four", "five"];
    for (const text of sent) expect(cy.client.postChat(text)).toBe("sent");
    await drive(
      all,
      "Cy's five lines at Di",
      () => lines(di.events).filter((l) => l.startsWith("Cy: ")).length === 5,
      15_000,
    );
    expect(lines(di.events).filter((l) => l.startsWith("Cy: "))).toEqual(sent.map((text) => `Cy: ${text}`));
    await drive(all, "every line of Cy acknowledged", () => cy.client.chat.unacknowledged === 0, 10_000);
    expect(cy.events.filter((event) => event.kind === "not_posted")).toEqual([]);
  }, 30_000);

  it("tells the player about lines the server refused for going too fast", async () => {
    const ed = await guest("Ed");
    for (let index = 0; index < 7; index++) ed.client.postChat(`spam ${index}`);
    await drive([ed.client], "the refusals", () => ed.client.chat.unacknowledged === 0);
    await drive([ed.client], "the refusals", () => ed.events.some((event) => event.kind === "not_posted"));
    const refused = ed.events.flatMap((event) => (event.kind === "not_posted" ? [event.reason] : []));
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused)).toEqual(new Set(["rate_limited"]));
  }, 20_000);
});

describe("accounts over HTTP, playing over UDP", () => {
  it("registers, chats as its nick, and logs in again, replacing the first session", async () => {
    const first = await account({ kind: "register", name: "ada_account", password: "correct horse", nick: "Ada A" });
    expect(first.client.session.nick).toBe("Ada A");
    await drive([first.client], "the own nick by name lookup", () => {
      return first.client.names.get(first.client.ownEntityId) === "Ada A";
    });
    first.client.postChat("registered and here");
    await drive([first.client], "the own line", () => lines(first.events).includes("Ada A: registered and here"));

    const second = await account({ kind: "login", name: "ADA_ACCOUNT", password: "correct horse" });
    expect(second.client.ownEntityId).not.toBe(first.client.ownEntityId);
    await drive([second.client], "the nick after login", () => {
      return second.client.names.get(second.client.ownEntityId) === "Ada A";
    });
    // The first session's token stops working: its chat is never acknowledged any more.
    first.client.postChat("from the replaced session");
    await runFor([first.client, second.client], 600);
    expect(first.client.chat.unacknowledged).toBe(1);
  }, 30_000);

  it("refuses with the server's status: bad input 400, wrong password 401, name taken 409", async () => {
    const refusal = async (request: AccountRequest): Promise<[number, string]> => {
      try {
        await joinAccount(baseUrl, request);
      } catch (error) {
        if (error instanceof SessionError) return [error.status, error.message];
        throw error;
      }
      throw new Error("no refusal");
    };
    await joinAccount(baseUrl, { kind: "register", name: "taken_name", password: "long enough", nick: "Tak" });
    expect(await refusal({ kind: "register", name: "TAKEN_name", password: "long enough", nick: "T2" })).toEqual([
      409,
      'register: name "TAKEN_name" is taken',
    ]);
    expect(await refusal({ kind: "register", name: "x", password: "long enough", nick: "X" })).toEqual([
      400,
      "register: name must be 3-20 characters",
    ]);
    expect((await refusal({ kind: "register", name: "shortpw", password: "short", nick: "S" }))[0]).toBe(400);
    expect(await refusal({ kind: "login", name: "taken_name", password: "wrong password" })).toEqual([
      401,
      "login: wrong name or password",
    ]);
    expect(await refusal({ kind: "login", name: "nobody_here", password: "whatever it is" })).toEqual([
      401,
      "login: wrong name or password",
    ]);
    server.game.accountStore.setBan("taken_name", "griefing");
    expect(await refusal({ kind: "login", name: "taken_name", password: "long enough" })).toEqual([
      403,
      "login: account banned: griefing",
    ]);
    expect((await refusal({ kind: "login", name: "x", password: "y" }))[0]).toBe(401);
    expect((await refusal({ kind: "login", name: " ", password: "y" }))[0]).toBe(400);
  }, 20_000);

  it("says when the server cannot be reached", async () => {
    const error = await joinAccount("http://127.0.0.1:1", { kind: "login", name: "ada", password: "whatever" }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SessionError);
    expect((error as SessionError).status).toBe(0);
  });
});

describe("custom messages through the real server", () => {
  it("reaches the game's server handler, whose answer reaches the client's handler", async () => {
    server.game.onCustom(42, (session, payload) => server.game.sendCustom(session, 43, payload.slice().reverse()));
    const fe = await guest("Fe");
    const got: number[][] = [];
    fe.client.onCustom(43, (payload) => got.push([...payload]));
    fe.client.sendCustom(42, new Uint8Array([1, 2, 3]));
    await drive([fe.client], "the echo", () => got.length > 0);
    expect(got).toEqual([[3, 2, 1]]);
  }, 15_000);
});
