// Services driven alone through their real ports, with no Game, socket or
// clock between: the egress (the one send-plus-metrics every service uses)
// and chat's reliable delivery — who hears a line, the in-flight window, the
// cumulative ack and the backing-off re-send — step by step at chosen times.
import { describe, expect, it } from "vitest";
import { type ChatPacket, decodePacket } from "../ts/protocol/index.js";
import { CHAT_WINDOW } from "../ts/server/sessions/chat-channel.js";
import { ChatService } from "../ts/server/talk/chat.js";
import { Egress } from "../ts/server/edge/egress.js";
import { ENTITY_TYPE_PLAYER, EntityStore } from "../ts/server/entities/entities.js";
import { Metrics } from "../ts/server/ops/metrics.js";
import { RETRANSMIT_INITIAL_MS } from "../ts/server/sessions/retransmit.js";
import { type Session, SessionRegistry } from "../ts/server/sessions/session.js";
import { CapturingPeer } from "./support/game-without-network.js";

/** The real ports a service is wired with, and a way to add players to them. */
function rooms() {
  const metrics = new Metrics();
  const egress = new Egress(metrics);
  const sessions = new SessionRegistry({ ratePerSecond: 60, burst: 120 });
  const entities = new EntityStore();
  const peers = new Map<Session, CapturingPeer>();
  const player = (nick: string, x: number, y: number, bound = true): Session => {
    const entity = entities.spawn({
      typeId: ENTITY_TYPE_PLAYER,
      x,
      y,
      hp: 10,
      hpMax: 10,
      elo: 0,
      flags: 0,
      name: nick,
      meta: [],
    });
    const session = sessions.create(entity, nick, performance.now());
    const peer = new CapturingPeer(`udp:${nick}`, "127.0.0.1");
    peers.set(session, peer);
    // sourceProven: these players play from the address that joined (address-proof.ts).
    if (bound) sessions.bind(session, peer, true);
    return session;
  };
  return { metrics, egress, sessions, player, peers };
}

function chatsOf(peer: CapturingPeer): ChatPacket[] {
  return peer.datagrams.map((datagram) => {
    const result = decodePacket(datagram);
    if (!result.ok || result.packet.type !== "chat") throw new Error("expected only chat datagrams");
    return result.packet as ChatPacket;
  });
}

describe("egress", () => {
  it("sends to a bound session's peer and counts it; sends nothing to an unbound one", () => {
    const { metrics, egress, player, peers } = rooms();
    const bound = player("Ada", 5, 5);
    const unbound = player("Bo", 6, 6, false);
    egress.send(bound, new Uint8Array([1, 2, 3]));
    egress.send(unbound, new Uint8Array([4, 5]));
    expect(peers.get(bound)!.datagrams.map((d) => [...d])).toEqual([[1, 2, 3]]);
    expect(peers.get(unbound)!.datagrams).toEqual([]);
    expect([metrics.datagramsOut, metrics.bytesOut]).toEqual([1, 3]);
  });

  it("writes over the slab for a transport that copies, and never over bytes a transport holds a view of", () => {
    const { metrics, egress, player, sessions, peers } = rooms();
    // A peer that copies on sendFrom, as the batched UDP socket does; and one that keeps views (send only).
    const copied: number[][] = [];
    const copying = player("Cy", 7, 7, false);
    sessions.bind(
      copying,
      {
        key: "udp:Cy",
        address: "127.0.0.1",
        transport: "udp",
        send: () => {
          throw new Error("a copying peer is handed its bytes by sendFrom");
        },
        sendFrom: (bytes, start, length) => copied.push([...bytes.subarray(start, start + length)]),
      },
      true,
    );
    const slab = egress.slab;
    const first = slab.bytes;
    // Ten times a slab's worth of 72-byte datagrams: before, each moved the slab on, and every 64 KiB a new
    // one was allocated (the external memory behind V8's major collections at 5000 players).
    const count = Math.ceil((10 * first.length) / 72);
    for (let index = 0; index < count; index++) {
      slab.reserve(72);
      slab.bytes.fill(index & 0xff, slab.at, slab.at + 72);
      egress.sendWritten(copying, 72);
    }
    expect(slab.bytes).toBe(first);
    expect(copied).toHaveLength(count);
    copied.forEach((datagram, index) => expect(datagram).toEqual(Array(72).fill(index & 0xff)));
    expect([metrics.datagramsOut, metrics.bytesOut]).toEqual([count, 72 * count]);
    // A peer that holds views: its datagram is never written over by the next one.
    const holding = player("Di", 8, 8);
    slab.reserve(4);
    slab.bytes.set([1, 2, 3, 4], slab.at);
    egress.sendWritten(holding, 4);
    slab.reserve(72);
    slab.bytes.fill(9, slab.at, slab.at + 72);
    egress.sendWritten(copying, 72);
    expect([...peers.get(holding)!.datagrams[0]]).toEqual([1, 2, 3, 4]);
  });
});

describe("chat through its ports", () => {
  it("sends a line to every bound session; an unbound one keeps it until it is bound", () => {
    const { metrics, egress, sessions, player, peers } = rooms();
    const chat = new ChatService(sessions, egress, metrics);
    const ada = player("Ada", 5, 5);
    const bo = player("Bo", 500, 500);
    const cy = player("Cy", 7, 7, false);
    chat.system("the caves are open");
    for (const session of [ada, bo]) {
      expect(chatsOf(peers.get(session)!).map((c) => [c.seq, c.text])).toEqual([[1, "the caves are open"]]);
    }
    expect(peers.get(cy)!.datagrams).toEqual([]);
    expect(cy.chat.pending).toBe(1);
    expect(metrics.datagramsOut).toBe(2);
    sessions.bind(cy, peers.get(cy)!, true);
    chat.pump(cy, performance.now());
    expect(chatsOf(peers.get(cy)!).map((c) => c.seq)).toEqual([1]);
    expect(metrics.datagramsOut).toBe(3);
  });

  it("tells a nearby notice only to the players within its radius", () => {
    const { metrics, egress, sessions, player, peers } = rooms();
    const chat = new ChatService(sessions, egress, metrics);
    const near = player("Near", 10, 10);
    const edge = player("Edge", 13, 7);
    const far = player("Far", 14, 10);
    chat.systemNear(10, 10, 3, "Dee joined");
    expect(chatsOf(peers.get(near)!).map((c) => c.text)).toEqual(["Dee joined"]);
    expect(chatsOf(peers.get(edge)!).map((c) => c.text)).toEqual(["Dee joined"]);
    expect(peers.get(far)!.datagrams).toEqual([]);
  });

  it("keeps at most CHAT_WINDOW lines in flight, and a cumulative ack lets the next ones go", () => {
    const { metrics, egress, sessions, player, peers } = rooms();
    const chat = new ChatService(sessions, egress, metrics);
    const ada = player("Ada", 5, 5);
    const lines = CHAT_WINDOW + 4;
    for (let line = 1; line <= lines; line++) chat.system(`line ${line}`);
    const peer = peers.get(ada)!;
    expect(chatsOf(peer).map((c) => c.seq)).toEqual(Array.from({ length: CHAT_WINDOW }, (_, i) => i + 1));
    peer.datagrams.length = 0;
    chat.onAck(ada, { type: "chat_ack", clientType: 0, authToken: ada.token, seq: 4 }, performance.now());
    expect(chatsOf(peer).map((c) => c.seq)).toEqual([9, 10, 11, 12]);
    expect(chatsOf(peer).every((c) => c.oldestSeq === 5)).toBe(true);
    expect(chat.stats.retransmits).toBe(0);
  });

  it("re-sends the unacknowledged window when the timer runs out, then waits twice as long", () => {
    const { metrics, egress, sessions, player, peers } = rooms();
    const chat = new ChatService(sessions, egress, metrics);
    const ada = player("Ada", 5, 5);
    const startMs = performance.now();
    chat.system("one");
    chat.system("two");
    const sentMs = performance.now();
    const peer = peers.get(ada)!;
    peer.datagrams.length = 0;
    // The first line's send, between startMs and sentMs, started the timer: nothing is due a moment later.
    chat.pump(ada, startMs + 1);
    expect(peer.datagrams).toEqual([]);
    const resentMs = sentMs + RETRANSMIT_INITIAL_MS;
    chat.pump(ada, resentMs);
    expect(chatsOf(peer).map((c) => c.seq)).toEqual([1, 2]);
    expect(chat.stats.retransmits).toBe(2);
    peer.datagrams.length = 0;
    chat.pump(ada, resentMs + RETRANSMIT_INITIAL_MS + 1);
    expect(peer.datagrams).toEqual([]);
    chat.pump(ada, resentMs + 2 * RETRANSMIT_INITIAL_MS);
    expect(chatsOf(peer).map((c) => c.seq)).toEqual([1, 2]);
    expect(chat.stats.retransmits).toBe(4);
  });
});
