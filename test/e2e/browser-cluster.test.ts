// The browser in a cluster (issue 19: WebRTC at the gateway; issue 41: a gateway lost). Chromium opens a
// gateway of a real cluster (`ts/cluster/main.ts`: redis-server, PostgreSQL, two regions, two gateways, all on
// loopback), joins, and plays over a WebRTC data channel the gateway answers and forwards — the session
// handed from region 0 (where joins land) to region 1 (whose ground the spawn is) on the way — then walks.
// Then its gateway is killed: the page goes on through the other gateway, another origin, in the same
// session (its signed ActionPackets move it: docs/protocol.md § 6.2) — same entity, what it carried, no
// rejoin. And the refusals: another site's page cannot use a gateway; over a game link to another gateway,
// a wrong tag or a stale sequence does not move a session, a fresh tagged packet does.
// Needs /usr/bin/chromium, redis-server and PostgreSQL; without them the suite says so and is skipped.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PeerConnection } from "node-datachannel";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { postgresSkipReason } from "../../ts/cluster/postgres-process.js";
import { ACTION_TAG_AT } from "../../ts/protocol/action.js";
import { decodePacketPlain } from "../../ts/protocol/packet.js";
import {
  clusterSkipReason,
  partHealth,
  startedAgain,
  startTestCluster,
  type TestCluster,
  until,
} from "../support/cluster-process.js";
import { itemDef } from "../support/item-client.js";
import { writeNpcMap } from "../support/npc-map.js";
import { signedActionDatagram } from "../support/transport-client.js";
import { UdpTestClient, type Joined } from "../support/udp-client.js";
import { builtClientDir, CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM, positionIn, waitForDebug } from "./browser-support.js";

const skip = !HAVE_CHROMIUM ? `no ${CHROMIUM}` : (clusterSkipReason() ?? postgresSkipReason());
if (skip !== null) process.stderr.write(`test/e2e/browser-cluster.test.ts skipped: ${skip}\n`);

const DAGGER = itemDef({ id: 2, name: "dagger", kind: "weapon", damage: 9 });
/** Region 1's ground (x ≥ 32), a chest beside it. */
const SPAWN = { x: 40, y: 35 };
/** The gateways' WebRTC ports (--rtc-ports), cut in two by the launcher: the second half is gateway 1's. */
const RTC_PORTS = { min: 46_100, max: 46_139 };

describe.skipIf(skip !== null)("the browser client in a cluster", () => {
  let cluster: TestCluster;
  let browser: Browser;

  beforeAll(async () => {
    const map = writeNpcMap({
      width: 80,
      height: 70,
      spawn: SPAWN,
      kinds: [],
      spawns: [],
      items: [DAGGER],
      chests: [{ name: "box", x: SPAWN.x + 1, y: SPAWN.y, items: "dagger" }],
    });
    cluster = await startTestCluster(
      2,
      ["--client-dir", builtClientDir(), "--rtc-ports", `${RTC_PORTS.min}-${RTC_PORTS.max}`],
      map,
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
  }, 30_000);

  const gatewayStats = async (httpPort: number) =>
    (await (await fetch(`http://127.0.0.1:${httpPort}/api/gateway`)).json()) as {
      webrtc: { open: number; answered: number };
      sessionsFound: number;
      routeLookups: { asked: number; found: number };
    };
  /** The players' entity ids in either region. */
  const playerIds = async () =>
    new Set([
      ...(await cluster.regionStatus(0)).positions.map((p) => p.id),
      ...(await cluster.regionStatus(1)).positions.map((p) => p.id),
    ]);
  /** Datagrams the regions dropped for `reason` (their /metrics), summed. */
  const dropped = async (reason: string) => {
    let total = 0;
    for (const region of cluster.ready.regions) {
      const text = await (await fetch(`http://127.0.0.1:${region.httpPort}/metrics`)).text();
      const line = new RegExp(`^caves_dropped_datagrams_total\\{reason="${reason}"\\} (\\d+)$`, "m").exec(text);
      total += line === null ? 0 : Number(line[1]);
    }
    return total;
  };

  it("plays over a WebRTC data channel through the gateway, handed to the spawn's region, and walks", async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 760 } });
    page.on("pageerror", (error) => console.error(`[cluster page] ${error.message}`));
    await page.goto(`http://127.0.0.1:${cluster.ready.gateways[0].httpPort}/?debug=1`);
    await expect.poll(() => page.getByTestId("play").isEnabled(), { timeout: 10_000 }).toBe(true);
    await page.getByTestId("nick").fill("Rtc");
    await page.getByTestId("play").click();
    await waitForDebug(page, (text) => /^state playing$/m.test(text) && positionIn(text), 15_000);
    await waitForDebug(page, (text) => /^transport webrtc$/m.test(text), 10_000);
    expect(await page.getByTestId("status").textContent()).toMatch(/^Playing as Rtc via webrtc$/);
    expect((await gatewayStats(cluster.ready.gateways[0].httpPort)).webrtc.answered).toBeGreaterThanOrEqual(1);
    await until("region 1 playing it", async () => (await cluster.regionStatus(1)).players === 1);
    // A walk west, key by key: the steps reach region 1 through the data channel, and their State comes back.
    const start = positionIn((await page.getByTestId("debug").textContent()) ?? "")!;
    await page.locator("#game").focus();
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press("ArrowLeft");
      await page.waitForTimeout(250);
    }
    const moved = await waitForDebug(
      page,
      (text) => {
        const at = positionIn(text);
        return at !== null && at.x === start.x - 3 && at.y === start.y && at;
      },
      10_000,
    );
    expect(moved).toEqual({ x: start.x - 3, y: start.y });
    await page.close();
    await until("its session ended", async () => (await playerIds()).size === 0);
  }, 60_000);

  it("goes on through the other gateway when its own is killed: the same entity, what it carried, no rejoin", async () => {
    const [g0, g1] = cluster.ready.gateways;
    const page = await browser.newPage({ viewport: { width: 1000, height: 760 } });
    page.on("pageerror", (error) => console.error(`[cluster page] ${error.message}`));
    await page.goto(`http://127.0.0.1:${g0.httpPort}/?debug=1`);
    await expect.poll(() => page.getByTestId("play").isEnabled(), { timeout: 10_000 }).toBe(true);
    await page.getByTestId("nick").fill("Mover");
    await page.getByTestId("play").click();
    await waitForDebug(page, (text) => /^state playing$/m.test(text) && /^transport webrtc$/m.test(text), 15_000);
    const [entityId] = await until("its entity in a region", async () => {
      const ids = await playerIds();
      return ids.size === 1 && [...ids];
    });
    const spawned = await waitForDebug(page, (text) => positionIn(text), 5000);
    expect(spawned).toEqual(SPAWN);

    // It takes the dagger from the chest beside it (E opens it, T takes everything: into the bag).
    await page.locator("#game").focus();
    await page.keyboard.press("KeyE");
    await expect.poll(() => page.getByTestId("chest").isVisible(), { timeout: 5000 }).toBe(true);
    await page.keyboard.press("KeyT");
    const bag = page.getByTestId("bag");
    const dagger = bag.locator(`.items-grid [data-item-id="${DAGGER.id}"]`);
    await expect.poll(() => dagger.isVisible(), { timeout: 5000 }).toBe(true);
    await page.keyboard.press("Escape");
    await expect.poll(() => bag.isVisible()).toBe(false);
    // And a step, through gateway 0.
    await page.locator("#game").focus();
    await page.keyboard.press("ArrowLeft");
    await waitForDebug(page, (text) => positionIn(text)?.x === SPAWN.x - 1 && true, 5000);

    const gateway0 = await partHealth(g1.httpPort, "gateway 0");
    process.kill(gateway0.pid!, "SIGKILL");
    const killedAt = performance.now();
    // Its link goes silent; after 3 s the page opens one to gateway 1 — another origin — and goes on.
    await waitForDebug(
      page,
      (text) => /^links moved 1 rejoined 0$/m.test(text) && /^state playing$/m.test(text),
      15_000,
    );
    process.stderr.write(
      `test/e2e/browser-cluster: the page went on through gateway 1 ${Math.round(performance.now() - killedAt)} ms after the kill\n`,
    );
    await waitForDebug(page, (text) => /^transport webrtc$/m.test(text), 5000);
    // The page counts the move when its new link opens; gateway 1 finds the session's route in the directory
    // only on the first ActionPacket through that link, a round trip to Redis later: awaited, not assumed.
    await expect.poll(async () => (await gatewayStats(g1.httpPort)).sessionsFound, { timeout: 5000 }).toBe(1);
    expect((await gatewayStats(g1.httpPort)).webrtc.answered).toBeGreaterThanOrEqual(1);
    // The same entity, the only player: no second session was made.
    expect([...(await playerIds())]).toEqual([entityId]);
    // It walks on through gateway 1.
    await page.locator("#game").focus();
    await page.keyboard.press("ArrowLeft");
    await waitForDebug(page, (text) => positionIn(text)?.x === SPAWN.x - 2 && true, 5000);
    // What it carried is the session's, on the server: the dagger, equipped through gateway 1.
    await page.keyboard.press("KeyI");
    await expect.poll(() => bag.isVisible()).toBe(true);
    await dagger.click();
    await page.getByTestId("item-action-equip").click();
    await expect
      .poll(() => page.getByTestId("bag-weapon").getAttribute("data-item-id"), { timeout: 5000 })
      .toBe(String(DAGGER.id));
    expect(await waitForDebug(page, (text) => /^links moved \d+ rejoined \d+$/m.exec(text)?.[0], 1000)).toBe(
      "links moved 1 rejoined 0",
    );
    expect([...(await playerIds())]).toEqual([entityId]);
    await page.close();
    await startedAgain(g1.httpPort, gateway0);
  }, 90_000);

  it("lets no other site's page use a gateway: neither its WebRTC signalling nor its WebSocket", async () => {
    const [g0, g1] = cluster.ready.gateways;
    // Another site: a page served from another port of the same host (not a gateway's).
    const site: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><title>elsewhere</title>");
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
      const tried = await page.evaluate(async (port) => {
        const rtc = await fetch(`http://127.0.0.1:${port}/api/rtc`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ token: "0123456789abcdef", sdp: "v=0\r\nm=application 9 UDP/DTLS/SCTP\r\n" }),
        }).then(
          (response) => `answered ${response.status}`,
          () => "refused",
        );
        const ws = await new Promise<string>((resolve) => {
          const socket = new window.WebSocket(`ws://127.0.0.1:${port}/ws`);
          socket.onopen = () => {
            socket.close();
            resolve("open");
          };
          socket.onerror = () => resolve("refused");
        });
        return { rtc, ws };
      }, g1.httpPort);
      expect(tried).toEqual({ rtc: "refused", ws: "refused" });
      await page.close();
    } finally {
      await new Promise<void>((resolve) => site.close(() => resolve()));
    }
    // What the browser was told, and that a sibling gateway's page is let in where another site's is not.
    const rtc = `http://127.0.0.1:${g1.httpPort}/api/rtc`;
    const preflight = (origin: string) =>
      fetch(rtc, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST" } });
    const sibling = `http://127.0.0.1:${g0.httpPort}`;
    expect((await preflight("http://evil.example")).status).toBe(403);
    const allowed = await preflight(sibling);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(sibling);
    const posted = await fetch(rtc, {
      method: "POST",
      headers: { origin: "http://evil.example", "content-type": "application/json" },
      body: "{}",
    });
    expect(posted.status).toBe(403);
    expect(posted.headers.get("access-control-allow-origin")).toBeNull();
    const upgrade = (origin: string) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(`ws://127.0.0.1:${g1.httpPort}/ws`, { headers: { origin } });
        socket.on("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
        socket.on("open", () => {
          socket.close();
          resolve(101);
        });
        socket.on("error", () => {});
      });
    expect(await upgrade("http://evil.example")).toBe(403);
    expect(await upgrade(sibling)).toBe(101);
  }, 60_000);

  it("over another gateway's game link, a wrong tag or a stale sequence moves no session; a fresh tagged packet does", async () => {
    const [g0, g1] = cluster.ready.gateways;
    // A session bound over UDP through gateway 1 (signed, as every client now is).
    const join = await fetch(`http://127.0.0.1:${g1.httpPort}/api/guest`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ nick: "Stays" }),
    });
    expect(join.status).toBe(200);
    const joined = (await join.json()) as Joined & { key: string };
    const udp = (await UdpTestClient.withSession(joined)).sign();
    try {
      await udp.placed();
      // A scheduled action: its packet's tag is checked and its sequence kept, the newest the session accepted
      // (a keep-alive over the proven link is not checked, and its sequence is not kept).
      udp.action(udp.lastState()!.tick + 8, 0);
      const sequence = udp.sequenceSent();
      // A WebSocket to gateway 0, which does not route the session: what it sends is forwarded (the
      // directory names the region), and the region decides.
      await until("gateway 0 up", async () => (await partHealth(g1.httpPort, "gateway 0")).state === "up", 30_000);
      const link = new WebSocket(`ws://127.0.0.1:${g0.httpPort}/ws`);
      const states: number[] = [];
      link.on("message", (data: Buffer) => {
        const decoded = decodePacketPlain(new Uint8Array(data));
        if (decoded.ok && decoded.packet.type === "state") states.push(decoded.packet.tick);
      });
      await new Promise<void>((resolve, reject) => {
        link.once("open", () => resolve());
        link.once("error", reject);
      });
      try {
        const session = { ...joined, tokenValue: BigInt(`0x${joined.token}`) };
        // A fresh sequence under a wrong tag.
        const forged = signedActionDatagram(session, sequence + 10);
        forged[ACTION_TAG_AT] ^= 0xff;
        const badTags = await dropped("bad_tag");
        link.send(forged);
        await until("the wrong tag dropped", async () => (await dropped("bad_tag")) > badTags);
        // The right tag on a sequence the session has seen (a packet sent before, captured and sent again).
        const stale = await dropped("stale_move");
        link.send(signedActionDatagram(session, sequence));
        await until("the stale sequence dropped", async () => (await dropped("stale_move")) > stale);
        // Neither moved it: its UDP link still gets its States, the WebSocket none.
        const before = udp.states.length;
        await udp.waitFor("States over UDP still", () => udp.states.length >= before + 3, 3000);
        expect(states).toEqual([]);
        // A fresh, rightly tagged packet moves it onto the WebSocket through gateway 0.
        link.send(signedActionDatagram(session, sequence + 1));
        await until("States over the WebSocket", async () => states.length >= 3);
        const region = await cluster.regionStatus(1);
        expect(region.positions.filter((p) => p.id === joined.entityId)).toHaveLength(1);
      } finally {
        link.close();
      }
    } finally {
      udp.close();
    }
  }, 60_000);

  it("each gateway answers a data channel from its own share of --rtc-ports", async () => {
    const g1 = cluster.ready.gateways[1];
    const join = await fetch(`http://127.0.0.1:${g1.httpPort}/api/guest`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ nick: "Ports" }),
    });
    const { token } = (await join.json()) as { token: string };
    const offerer = new PeerConnection("ports", { iceServers: [] });
    offerer.onStateChange(() => {}); // lets node-datachannel free the connection when it closes
    try {
      const channel = offerer.createDataChannel("datagrams", { unordered: true, maxRetransmits: 0 });
      channel.onClosed(() => {});
      offerer.setLocalDescription();
      await until("the offer gathered", async () => offerer.gatheringState() === "complete");
      const answer = await fetch(`http://127.0.0.1:${g1.httpPort}/api/rtc`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token, sdp: offerer.localDescription()!.sdp }),
      });
      expect(answer.status).toBe(200);
      const { sdp } = (await answer.json()) as { sdp: string };
      const port = Number(/a=candidate:.* 127\.0\.0\.1 (\d+) typ host/.exec(sdp)?.[1]);
      const half = (RTC_PORTS.max - RTC_PORTS.min + 1) / 2;
      expect(port).toBeGreaterThanOrEqual(RTC_PORTS.min + half);
      expect(port).toBeLessThanOrEqual(RTC_PORTS.max);
    } finally {
      offerer.close();
    }
  }, 30_000);
});
