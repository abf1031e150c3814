import dgram from "node:dgram";
import { afterEach, describe, expect, it } from "vitest";
import { profileFromSettings, type DuplexProfile } from "../ts/netsim/profile.js";
import { startUdpProxy, type ProxyCounts, type UdpProxy, type UdpProxyOptions } from "../ts/netsim/udp-proxy.js";

/** Resources to release after each test, newest first. */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function bindSocket(port = 0): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket("udp4");
    socket.once("error", reject);
    socket.bind(port, "127.0.0.1", () => {
      socket.off("error", reject);
      resolve(socket);
    });
  });
}

function closeSocket(socket: dgram.Socket): Promise<void> {
  return new Promise((resolve) => socket.close(() => resolve()));
}

/** A UDP echo server on a free loopback port that remembers which source ports it heard from. */
async function startEchoServer() {
  const socket = await bindSocket();
  const senderPorts: number[] = [];
  let received = 0;
  socket.on("message", (datagram, from) => {
    received++;
    senderPorts.push(from.port);
    socket.send(datagram, from.port, from.address);
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await closeSocket(socket);
  };
  cleanups.push(close);
  return { port: socket.address().port, senderPorts, received: () => received, close };
}

/** A client socket that records each datagram it receives with its arrival time. */
async function startClient() {
  const socket = await bindSocket();
  const arrivals: { id: number; atMs: number }[] = [];
  socket.on("message", (datagram) => arrivals.push({ id: datagram.readUInt32LE(0), atMs: performance.now() }));
  cleanups.push(() => closeSocket(socket));
  const sendTo = (port: number, id: number, sizeBytes = 16) => {
    const datagram = Buffer.alloc(sizeBytes);
    datagram.writeUInt32LE(id, 0);
    socket.send(datagram, port, "127.0.0.1");
  };
  return { socket, arrivals, sendTo, port: socket.address().port };
}

async function startProxy(echoPort: number, options: Partial<UdpProxyOptions> = {}): Promise<UdpProxy> {
  const proxy = await startUdpProxy({
    listen: { host: "127.0.0.1", port: 0 },
    server: { host: "127.0.0.1", port: echoPort },
    seed: 1,
    ...options,
  });
  cleanups.push(() => proxy.close());
  return proxy;
}

/** Polls until condition holds; the test's own timeout bounds the wait. */
async function waitFor(condition: () => boolean, pollMs = 5): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, pollMs));
}

function upOnly(settings: [string, string][]): DuplexProfile {
  return profileFromSettings(settings);
}

describe("UDP proxy on loopback", () => {
  it("forwards datagrams both ways and reports the bound port", async () => {
    const echo = await startEchoServer();
    const proxy = await startProxy(echo.port);
    expect(proxy.address).toBe("127.0.0.1");
    expect(proxy.port).toBeGreaterThan(0);
    const client = await startClient();
    for (let id = 0; id < 50; id++) client.sendTo(proxy.port, id);
    await waitFor(() => client.arrivals.length === 50);
    expect(client.arrivals.map((a) => a.id).sort((a, b) => a - b)).toEqual([...Array(50).keys()]);
    const counts: ProxyCounts = proxy.counts();
    expect(counts.up).toMatchObject({ received: 50, forwarded: 50, dropped: 0, queued: 0 });
    expect(counts.down).toMatchObject({ received: 50, forwarded: 50, dropped: 0, queued: 0 });
    expect(counts).toMatchObject({ clients: 1, clientsOpened: 1, strayDatagrams: 0, sendErrors: 0 });
    // The server hears the proxy's upstream socket, not the client.
    expect(new Set(echo.senderPorts)).toEqual(new Set(proxy.upstreamPorts()));
    expect(echo.senderPorts).not.toContain(client.port);
  });

  it("drops everything upstream at up-loss=100", async () => {
    const echo = await startEchoServer();
    const proxy = await startProxy(echo.port, { profile: upOnly([["up-loss", "100"]]) });
    const client = await startClient();
    for (let id = 0; id < 40; id++) client.sendTo(proxy.port, id);
    // Loss is decided as each datagram reaches the proxy, so once all 40 are counted nothing else can pass.
    await waitFor(() => proxy.counts().up.received === 40);
    expect(proxy.counts().up).toMatchObject({ dropped: 40, forwarded: 0, queued: 0 });
    // Sanity check that the path works: a datagram sent straight to the echo server comes back.
    client.sendTo(echo.port, 1000);
    await waitFor(() => client.arrivals.length === 1);
    expect(echo.received()).toBe(1);
    expect(client.arrivals[0].id).toBe(1000);
  });

  it("drops everything downstream at down-loss=100 while the server still hears it all", async () => {
    const echo = await startEchoServer();
    const proxy = await startProxy(echo.port, { profile: upOnly([["down-loss", "100"]]) });
    const client = await startClient();
    for (let id = 0; id < 40; id++) client.sendTo(proxy.port, id);
    await waitFor(() => proxy.counts().down.received === 40);
    expect(echo.received()).toBe(40);
    expect(proxy.counts().down).toMatchObject({ dropped: 40, forwarded: 0, queued: 0 });
    expect(proxy.counts().up).toMatchObject({ forwarded: 40, dropped: 0 });
    // A datagram forwarded after the drops arrives, so the 40 were not merely late.
    proxy.setProfile(upOnly([]));
    client.sendTo(proxy.port, 1000);
    await waitFor(() => client.arrivals.length > 0);
    expect(client.arrivals.map((a) => a.id)).toEqual([1000]);
  });

  it("adds its delay to the round-trip time", async () => {
    const echo = await startEchoServer();
    const proxy = await startProxy(echo.port, {
      profile: upOnly([
        ["up-delay", "30"],
        ["down-delay", "20"],
      ]),
    });
    const client = await startClient();
    const sentAtMs = new Map<number, number>();
    for (let id = 0; id < 5; id++) {
      sentAtMs.set(id, performance.now());
      client.sendTo(proxy.port, id);
    }
    await waitFor(() => client.arrivals.length === 5);
    // Only a lower bound: a loaded machine may be arbitrarily slower, never faster.
    for (const arrival of client.arrivals) expect(arrival.atMs - sentAtMs.get(arrival.id)!).toBeGreaterThanOrEqual(49);
  });

  it("gives each client its own upstream port and routes replies back to the right client", async () => {
    const echo = await startEchoServer();
    const proxy = await startProxy(echo.port, { profile: upOnly([["delay", "2"]]) });
    const first = await startClient();
    const second = await startClient();
    for (let id = 0; id < 10; id++) {
      first.sendTo(proxy.port, id);
      second.sendTo(proxy.port, 100 + id);
    }
    await waitFor(() => first.arrivals.length === 10 && second.arrivals.length === 10);
    expect(first.arrivals.every((a) => a.id < 100)).toBe(true);
    expect(second.arrivals.every((a) => a.id >= 100)).toBe(true);
    const upstreamPorts = new Set(echo.senderPorts);
    expect(upstreamPorts.size).toBe(2);
    expect(upstreamPorts.has(proxy.port)).toBe(false);
    expect(proxy.counts()).toMatchObject({ clients: 2, clientsOpened: 2 });
  });

  it("bounds the number of client mappings", async () => {
    const echo = await startEchoServer();
    const proxy = await startProxy(echo.port, { maxClients: 1 });
    const first = await startClient();
    const second = await startClient();
    first.sendTo(proxy.port, 1);
    await waitFor(() => first.arrivals.length === 1);
    for (let id = 0; id < 5; id++) second.sendTo(proxy.port, id);
    await waitFor(() => proxy.counts().clientsRejected === 5);
    expect(proxy.counts()).toMatchObject({ clients: 1, clientsOpened: 1 });
    expect(echo.received()).toBe(1);
  });

  it("expires idle client mappings and opens a fresh one when the client returns", async () => {
    const echo = await startEchoServer();
    const proxy = await startProxy(echo.port, { idleTimeoutMs: 100 });
    const client = await startClient();
    client.sendTo(proxy.port, 1);
    await waitFor(() => client.arrivals.length === 1);
    const firstUpstreamPort = proxy.upstreamPorts()[0];
    await waitFor(() => proxy.counts().clients === 0);
    expect(proxy.counts()).toMatchObject({ clientsExpired: 1, clientsOpened: 1 });
    // Counters of the expired mapping are kept in the totals.
    expect(proxy.counts().up.forwarded).toBe(1);
    client.sendTo(proxy.port, 2);
    await waitFor(() => client.arrivals.length === 2);
    expect(proxy.counts()).toMatchObject({ clients: 1, clientsOpened: 2 });
    expect(echo.senderPorts).toEqual([firstUpstreamPort, proxy.upstreamPorts()[0]]);
  });

  it("ignores datagrams reaching an upstream socket from anyone but the server", async () => {
    const echo = await startEchoServer();
    const proxy = await startProxy(echo.port);
    const client = await startClient();
    client.sendTo(proxy.port, 1);
    await waitFor(() => client.arrivals.length === 1);
    const intruder = await startClient();
    intruder.sendTo(proxy.upstreamPorts()[0], 666);
    await waitFor(() => proxy.counts().strayDatagrams === 1);
    expect(client.arrivals.map((a) => a.id)).toEqual([1]);
  });

  it("repeats the same per-client fates for the same seed", async () => {
    const echo = await startEchoServer();
    const survivorsFor = async (seed: number) => {
      const proxy = await startProxy(echo.port, { seed, profile: upOnly([["down-loss", "50"]]) });
      const client = await startClient();
      for (let id = 0; id < 100; id++) client.sendTo(proxy.port, id);
      await waitFor(() => proxy.counts().down.received === 100);
      await waitFor(() => client.arrivals.length === proxy.counts().down.forwarded);
      await proxy.close();
      // Loopback keeps send order and no delay is set, so arrival order is send order.
      return client.arrivals.map((a) => a.id);
    };
    const first = await survivorsFor(77);
    expect(first.length).toBeGreaterThan(20);
    expect(first.length).toBeLessThan(80);
    expect(await survivorsFor(77)).toEqual(first);
    expect(await survivorsFor(78)).not.toEqual(first);
  });

  it("close() frees its sockets, timers and in-flight datagrams", async () => {
    const udpHandles = () => process.getActiveResourcesInfo().filter((name) => name === "UDPWrap").length;
    const timerHandles = () => process.getActiveResourcesInfo().filter((name) => name === "Timeout").length;
    const echo = await startEchoServer();
    const client = await startClient();
    // A closed handle stays listed until the event loop's next turn; let earlier tests' handles go first.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
    await settle();
    const udpBefore = udpHandles();
    const timersBefore = timerHandles();
    const proxy = await startProxy(echo.port, { profile: upOnly([["down-delay", "5000"]]) });
    const second = await startClient();
    client.sendTo(proxy.port, 1);
    second.sendTo(proxy.port, 2);
    await waitFor(() => proxy.counts().down.queued === 2);
    expect(udpHandles()).toBe(udpBefore + 4); // listen socket, two upstream sockets, the second client
    const listenPort = proxy.port;
    const upstreamPorts = proxy.upstreamPorts();
    await proxy.close();
    await proxy.close(); // a second close is harmless
    await settle();
    expect(proxy.counts()).toMatchObject({ clients: 0, down: { queued: 0 } });
    expect(udpHandles()).toBe(udpBefore + 1); // only the second client is left
    // At most as many as before: the proxy left none behind (the 5 s deliveries were pending), and a
    // timer that existed before (the settle timer, vitest's own) may have fired meanwhile.
    expect(timerHandles()).toBeLessThanOrEqual(timersBefore);
    // The ports are free again: they can be bound.
    for (const port of [listenPort, ...upstreamPorts]) await closeSocket(await bindSocket(port));
  });

  it("rejects a listen address that is taken", async () => {
    const taken = await bindSocket();
    cleanups.push(() => closeSocket(taken));
    await expect(
      startUdpProxy({
        listen: { host: "127.0.0.1", port: taken.address().port },
        server: { host: "127.0.0.1", port: 9 },
      }),
    ).rejects.toThrow(/EADDRINUSE/);
  });
});
