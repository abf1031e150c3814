// Player slots and join notices under a join flood (issue: eight threads
// re-joining from one address kept an honest player out 54 of 56 times, and
// 255 joins sent a bystander 510 system lines in 14 s): guest joins are
// rationed per source, a session that never sends a datagram gives its slot
// back within seconds, and only a session that starts playing is announced.
import { afterEach, describe, expect, it } from "vitest";
import type { ChatPacket } from "../ts/protocol/chat.js";
import type { RunningServer, ServerOptions } from "../ts/server/server.js";
import { postJsonFrom } from "./support/http-from.js";
import { startTestServer, type TestServer } from "./support/transport-client.js";
import { joinGuest, UdpTestClient } from "./support/udp-client.js";

const servers: TestServer[] = [];
const clients: UdpTestClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const server of servers.splice(0)) await server.dispose();
});

async function start(options: Partial<ServerOptions>): Promise<RunningServer> {
  const started = await startTestServer(options);
  servers.push(started);
  return started.server;
}

/** A guest join from `from`; its status. */
async function guest(port: number, nick: string, from = "127.0.0.1"): Promise<number> {
  return (await postJsonFrom(port, "/api/guest", { nick }, from)).status;
}

async function playing(port: number, nick: string): Promise<UdpTestClient> {
  const client = await UdpTestClient.connect(port, nick);
  clients.push(client);
  client.action(0, 0);
  await client.waitFor(`${nick}'s first state`, () => client.lastState());
  return client;
}

function systemLines(client: UdpTestClient): string[] {
  const texts = new Map<number, string>();
  for (const { packet } of client.received) {
    if (packet?.type === "chat" && (packet as ChatPacket).speakerEntityId === 0) {
      texts.set((packet as ChatPacket).seq, (packet as ChatPacket).text);
    }
  }
  return [...texts.values()];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a join flood", () => {
  it("meets the per-source join limit (429); another source still joins", async () => {
    const server = await start({ http: { guestJoinsPerAddress: 5 } });
    const statuses = [];
    for (let index = 0; index < 7; index++) statuses.push(await guest(server.httpPort, `Flood${index}`, "127.0.0.20"));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(await guest(server.httpPort, "Honest", "127.0.0.21")).toBe(200);
  });

  it("sessions that never send a datagram give their slots back within seconds; playing ones stay", async () => {
    const server = await start({ maxPlayers: 4, sessionTimeoutMs: 10_000, unboundSessionTimeoutMs: 1000 });
    const stayer = await playing(server.httpPort, "Stayer");
    for (let index = 0; index < 3; index++) expect(await guest(server.httpPort, `Ghost${index}`)).toBe(200);
    expect(await guest(server.httpPort, "Refused")).toBe(503);
    // The ghosts expire after about a second (eviction runs once a second); the player keeps playing.
    const deadline = Date.now() + 4000;
    while (server.game.sessions.size > 1 && Date.now() < deadline) {
      stayer.action(0, 0);
      await sleep(100);
    }
    expect(server.game.sessions.size).toBe(1);
    expect(server.game.sessions.byTokenValue(BigInt(`0x${stayer.joined.token}`))).toBeDefined();
    expect(await guest(server.httpPort, "Welcome")).toBe(200);
  });

  it("joins that never play announce nothing; a player is announced once it plays", async () => {
    const server = await start({});
    const bystander = await playing(server.httpPort, "Bystander");
    await bystander.waitFor("its own join notice", () => systemLines(bystander).includes("Bystander joined"));
    for (let index = 0; index < 10; index++) await joinGuest(server.httpPort, `Silent${index}`);
    const late = await playing(server.httpPort, "Late");
    await bystander.waitFor("Late's join notice", () => systemLines(bystander).includes("Late joined"));
    for (let round = 0; round < 5; round++) {
      bystander.action(0, 0);
      late.action(0, 0);
      await sleep(50);
    }
    expect(systemLines(bystander).filter((line) => line.startsWith("Silent"))).toEqual([]);
    expect(systemLines(bystander).filter((line) => line === "Late joined")).toHaveLength(1);
  });

  it("coalesces the joins of a second into one line per bystander", async () => {
    const server = await start({});
    const bystander = await playing(server.httpPort, "Bystander");
    await bystander.waitFor("its own join notice", () => systemLines(bystander).includes("Bystander joined"));
    const before = systemLines(bystander).length;
    const nicks = Array.from({ length: 8 }, (_, index) => `Bus${index}`);
    await Promise.all(nicks.map((nick) => playing(server.httpPort, nick)));
    await bystander.waitFor("the bus's notice", () => systemLines(bystander).length > before, 4000);
    await sleep(1500); // a second window, if the joins straddled two
    const lines = systemLines(bystander).slice(before);
    // Eight joins, at most two lines (one per window they fell into), every joiner counted once.
    expect(lines.length).toBeLessThanOrEqual(2);
    let counted = 0;
    for (const line of lines) {
      const others = /^(\w+), (\w+) and (\d+) others joined$/.exec(line);
      if (others) counted += 2 + Number(others[3]);
      else counted += line.replace(/ joined$/, "").split(/, | and /).length;
    }
    expect(counted).toBe(8);
    expect(lines.some((line) => /and \d+ others joined$/.test(line))).toBe(true);
  });

  it("a player who leaves before its join was announced is announced neither joining nor leaving", async () => {
    const server = await start({});
    const bystander = await playing(server.httpPort, "Bystander");
    await bystander.waitFor("its own join notice", () => systemLines(bystander).includes("Bystander joined"));
    const ghost = await playing(server.httpPort, "Ghost");
    const session = server.game.sessions.byTokenValue(ghost.token)!;
    expect(session.announced).toBe(true); // it played: its notice is waiting for the window
    server.game.leave(session, "left");
    const mark = await playing(server.httpPort, "Marker"); // a later join, so the window surely passed
    await bystander.waitFor(
      "Marker's notice",
      () => systemLines(bystander).some((line) => line.includes("Marker")),
      4000,
    );
    expect(mark.lastState()).toBeDefined();
    expect(systemLines(bystander).filter((line) => line.includes("Ghost"))).toEqual([]);
  });
});
