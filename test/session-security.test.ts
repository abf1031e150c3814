// Issue 17 items 1 and 2 over real loopback UDP: a captured ActionPacket
// replayed from another address never moves the session there, an old step
// replayed from the same address executes once, a client that changes its
// source port keeps playing, and an address that has not proven it receives
// (a spoofed victim: a socket that never answers the challenge) is sent at
// most 3× the bytes that arrived "from" it — until it echoes the challenge.
// Other loopback addresses (127.0.0.2, ...) stand for other hosts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_AUTH_BYTES, ACTION_BYTES, ACTION_NOOP, ACTION_S } from "../ts/protocol/action.js";
import { lastWindowConsumedAt, tickOfWindow } from "../ts/window.js";
import type { RunningServer } from "../ts/server/server.js";
import { startServerOnTestMap, type TestServer } from "./support/test-server.js";
import { UdpTestClient } from "./support/udp-client.js";

let running: TestServer | undefined;
let server: RunningServer;
const clients: UdpTestClient[] = [];

beforeAll(async () => {
  running = await startServerOnTestMap();
  server = running.server;
});

afterAll(async () => {
  for (const c of clients) c.close();
  await running?.close();
});

function track(c: UdpTestClient): UdpTestClient {
  clients.push(c);
  return c;
}

/** A client that joined and plays (first state and own position seen); `sign` tags its ActionPackets. */
async function playing(nick: string, sign: boolean): Promise<UdpTestClient> {
  const c = track(await UdpTestClient.connect(server.httpPort, nick));
  if (sign) c.sign();
  c.action(0, 0);
  await c.waitFor("first state", () => c.lastState());
  await c.waitFor("own position", () => c.position());
  return c;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A target tick in the window `ahead` windows after the client's latest state. */
function targetFor(c: UdpTestClient, ahead: number): number {
  return tickOfWindow(lastWindowConsumedAt(c.lastState()!.tick) + ahead);
}

/** Waits until `windows` movement windows have passed, then for a fresh entity update. */
async function settle(c: UdpTestClient, windows: number): Promise<void> {
  const start = c.lastState()!.tick;
  await c.waitFor("ticks to pass", () => c.lastState()!.tick >= start + tickOfWindow(windows) + 2, 5000);
  c.action(0, 0);
  const after = c.entityPackets.length;
  await c.waitFor("fresh entity update", () => c.entityPackets.length > after);
}

describe("a replayed ActionPacket from another address (item 1)", () => {
  it("never moves a spec-only client's session: the attacker gets nothing, the victim's stream goes on", async () => {
    const victim = await playing("victim", false);
    const captured = victim.lastSent!;
    expect(captured.length).toBe(ACTION_BYTES);
    const attacker = track(await UdpTestClient.withSession(victim.joined, "127.0.0.2"));
    const statesBefore = victim.states.length;
    for (let i = 0; i < 5; i++) {
      attacker.sendRaw(captured);
      await sleep(60);
    }
    await sleep(400);
    expect(attacker.received.length).toBe(0);
    // 700 ms at 12 states a second: the victim kept its stream all along.
    expect(victim.states.length - statesBefore).toBeGreaterThanOrEqual(6);
    const drops = server.game.metrics.drops;
    expect(drops.get("untagged_move") ?? 0).toBeGreaterThanOrEqual(5);
  });

  it("never moves a signing client's session, tagged or with the trailer cut off", async () => {
    const victim = await playing("victim2", true);
    const captured = victim.lastSent!;
    expect(captured.length).toBe(ACTION_AUTH_BYTES);
    const attacker = track(await UdpTestClient.withSession(victim.joined, "127.0.0.3"));
    const statesBefore = victim.states.length;
    for (let i = 0; i < 3; i++) {
      attacker.sendRaw(captured); // sequence already seen, from another address: no newer than the newest, no move
      attacker.sendRaw(captured.slice(0, ACTION_BYTES)); // spec-only form of it: refused for a keyed session
      const forged = captured.slice();
      forged[ACTION_BYTES] ^= 0x55; // a fresh sequence needs a tag the attacker cannot make
      attacker.sendRaw(forged);
      await sleep(80);
    }
    await sleep(400);
    expect(attacker.received.length).toBe(0);
    expect(victim.states.length - statesBefore).toBeGreaterThanOrEqual(6);
    const drops = server.game.metrics.drops;
    expect(drops.get("stale_move") ?? 0).toBeGreaterThanOrEqual(3);
    expect(drops.get("untagged") ?? 0).toBeGreaterThanOrEqual(3);
    expect(drops.get("bad_tag") ?? 0).toBeGreaterThanOrEqual(3);
  });
});

describe("a captured keep-alive, the newest packet a signing client sent", () => {
  // A keep-alive over a session's proven link was not hashed (sending one again changes nothing there), so its
  // sequence was never recorded: captured and sent from another address, newer than every sequence the session
  // had checked, it moved the session there (found in issue 41's browser work; docs/security.md).
  it("does not move the session to the sender's address", async () => {
    const victim = await playing("keeper", true);
    victim.action(0, 0); // numbered and signed, over its proven link: its newest packet
    const captured = victim.lastSent!;
    expect(captured.length).toBe(ACTION_AUTH_BYTES);
    await sleep(150); // the server has it
    const session = server.game.sessions.byTokenValue(victim.token)!;
    const bound = session.peer!.key;
    const attacker = track(await UdpTestClient.withSession(victim.joined, "127.0.0.6"));
    attacker.sendRaw(captured);
    await sleep(400);
    expect(session.peer!.key).toBe(bound);
    expect(attacker.received.length).toBe(0);
  });
});

describe("a replayed step from the same address (item 1)", () => {
  it("executes once", async () => {
    const c = await playing("stepper", true);
    // Alone in open floor, south free for several tiles.
    server.game.entities.move(server.game.entities.get(c.joined.entityId)!, 20, 40);
    await settle(c, 1);
    const start = c.position()!;
    c.action(targetFor(c, 2), ACTION_S);
    const step = c.lastSent!;
    await settle(c, 3);
    expect(c.position()).toEqual({ x: start.x, y: start.y + 1 });
    // The same datagram five more times, a window apart: each would fill the next empty window.
    for (let i = 0; i < 5; i++) {
      c.sendRaw(step);
      await sleep(180);
    }
    await settle(c, 2);
    expect(c.position()).toEqual({ x: start.x, y: start.y + 1 });
    expect(server.game.metrics.drops.get("replayed") ?? 0).toBeGreaterThanOrEqual(5);
  });
});

describe("a legitimate address change (item 1)", () => {
  it("keeps playing after the client's source port and address change", async () => {
    const first = await playing("roamer", true);
    first.close(); // the old mapping is gone
    const moved = track(await UdpTestClient.withSession(first.joined, "127.0.0.4")).continueFrom(first);
    server.game.entities.move(server.game.entities.get(first.joined.entityId)!, 24, 40);
    moved.action(0, 0); // challenged, answered at once with the echo, then the stream resumes here
    await moved.waitFor("a challenge on the new address", () => moved.challenges.length > 0);
    await moved.waitFor("states on the new address", () => moved.states.length >= 3);
    await moved.waitFor("own position", () => moved.position());
    const start = moved.position()!;
    moved.action(targetFor(moved, 2), ACTION_S);
    await settle(moved, 3);
    expect(moved.position()).toEqual({ x: start.x, y: start.y + 1 });
  });
});

describe("a datagram of the old way in, arriving after the client moved", () => {
  // A client's packets held up in a frozen cluster gateway (SIGSTOP), delivered when it thaws after the client
  // has gone on through another gateway: newer than nothing the session accepted but older than what came over
  // the new link. The chaos run (ts/tools/chaos) saw sessions moved back to the thawed gateway's link, which the
  // client no longer listened on, and players not back.
  it("does not move the session back: a move needs a sequence newer than every one accepted", async () => {
    const first = await playing("thawed", true);
    const send = first.sendRaw.bind(first);
    const held: Uint8Array[] = [];
    first.sendRaw = (bytes: Uint8Array) => void held.push(bytes.slice());
    first.action(0, 0); // numbered, signed, held up on the way
    expect(held).toHaveLength(1);
    const moved = track(await UdpTestClient.withSession(first.joined, "127.0.0.5")).continueFrom(first);
    moved.action(0, 0);
    await moved.waitFor("states on the new address", () => moved.states.length >= 3);
    const session = server.game.sessions.byTokenValue(first.token)!;
    const bound = session.peer!.key;
    expect(bound).toContain("127.0.0.5");
    const before = moved.states.length;
    send(held[0]); // the old way in delivers it now
    await sleep(300);
    expect(session.peer!.key).toBe(bound);
    expect(server.game.metrics.drops.get("stale_move") ?? 0).toBeGreaterThanOrEqual(1);
    // The stream stayed on the new address all along.
    expect(moved.states.length - before).toBeGreaterThanOrEqual(2);
  });
});

describe("return routability (item 2)", () => {
  it("sends an address that never echoes its challenge at most 3× its bytes; once it echoes, chunks flow", async () => {
    // An attacker's own guest session, its datagrams claiming to come from the victim (127.0.0.5):
    // the victim's socket records what the server sends it and never answers.
    const { joinGuest } = await import("./support/udp-client.js");
    const joined = await joinGuest(server.httpPort, "reflector");
    const victim = track(await UdpTestClient.withSession(joined, "127.0.0.5")).sign();
    victim.answerChallenges = false;
    for (let i = 0; i < 20; i++) {
      victim.action(0, ACTION_NOOP, []); // empty cache list: "send me every chunk"
      await sleep(20);
    }
    await sleep(400);
    expect(victim.chunks.length).toBe(0);
    expect(victim.states.length).toBe(0);
    expect(victim.challenges.length).toBeGreaterThan(0);
    expect(victim.bytesReceived()).toBeLessThanOrEqual(3 * victim.bytesSent);
    // The address proves it receives: its next packet is challenged again, the echo brings the chunks.
    victim.answerChallenges = true;
    victim.action(0, ACTION_NOOP, []);
    await victim.waitFor("chunks after the echo", () => victim.chunks.length > 0);
    await victim.waitFor("states after the echo", () => victim.states.length > 0);
  });

  it("holds a spec-only session's first address from another host to the same limit", async () => {
    const { joinGuest } = await import("./support/udp-client.js");
    const joined = await joinGuest(server.httpPort, "reflector2");
    const victim = track(await UdpTestClient.withSession(joined, "127.0.0.6"));
    for (let i = 0; i < 20; i++) {
      victim.action(0, ACTION_NOOP, []);
      await sleep(20);
    }
    await sleep(400);
    expect(victim.chunks.length).toBe(0);
    expect(victim.bytesReceived()).toBeLessThanOrEqual(3 * victim.bytesSent);
    const status = server.game.status(1) as { addressProof: { bytesToUnproven: number; bytesFromUnproven: number } };
    expect(status.addressProof.bytesToUnproven).toBeLessThanOrEqual(3 * status.addressProof.bytesFromUnproven);
  });
});
