// The HTTP side under abuse, over real loopback sockets against the real server
// (startServer): cross-site requests, idle-connection floods, slow headers,
// login brute force, registration spam and the 503 that left accounts behind.
// Sources are told apart by binding client sockets to different loopback
// addresses (127.0.0.2, 127.0.0.3, …), all of which reach a server on 127.0.0.1.
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openGameDatabase } from "../ts/server/persistence/database.js";
import type { RunningServer, ServerOptions } from "../ts/server/server.js";
import { postJsonFrom, requestFrom } from "./support/http-from.js";
import { startTestServer, type TestServer } from "./support/transport-client.js";

let dir: string;
const servers: TestServer[] = [];
const sockets: Socket[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "caves-http-abuse-"));
});

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await server.dispose();
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The real server on the test map, with a database file of its own. */
async function start(options: Partial<ServerOptions> = {}): Promise<RunningServer> {
  const started = await startTestServer({
    database: openGameDatabase(join(dir, `db-${servers.length}-${Date.now()}.sqlite`)),
    ...options,
  });
  servers.push(started);
  return started.server;
}

/** An idle TCP connection from `from`; resolves once connected, with a flag set when the server closes it. */
async function idleConnection(port: number, from: string): Promise<{ socket: Socket; closed: () => boolean }> {
  const socket = connect({ host: "127.0.0.1", port, localAddress: from });
  sockets.push(socket);
  let closed = false;
  socket.on("close", () => (closed = true));
  socket.on("error", () => (closed = true));
  socket.resume(); // read what the server sends (a 408), so its closing reaches us
  await once(socket, "connect");
  return { socket, closed: () => closed };
}

const until = async (condition: () => boolean, timeoutMs: number): Promise<boolean> => {
  const end = Date.now() + timeoutMs;
  while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
  return condition();
};

describe("cross-site requests", () => {
  it("a state-changing POST must be JSON: a text/plain form post is refused with 415 and creates nothing", async () => {
    const server = await start();
    const reply = await requestFrom(server.httpPort, "POST", "/api/guest", {
      body: JSON.stringify({ nick: "Forged" }),
      headers: { "content-type": "text/plain" },
    });
    expect(reply.status).toBe(415);
    expect(String(reply.body.error)).toMatch(/application\/json/);
    expect(server.game.sessions.size).toBe(0);
  });

  it("a POST from a page of another origin is refused with 403; same origin and no Origin (native clients) pass", async () => {
    const server = await start();
    const port = server.httpPort;
    const foreign = await postJsonFrom(port, "/api/guest", { nick: "Forged" }, undefined, {
      origin: "http://evil.example",
    });
    expect(foreign.status).toBe(403);
    expect(server.game.sessions.size).toBe(0);
    const same = await postJsonFrom(port, "/api/guest", { nick: "Same" }, undefined, {
      origin: `http://127.0.0.1:${port}`,
    });
    expect(same.status).toBe(200);
    const native = await postJsonFrom(port, "/api/guest", { nick: "Native" });
    expect(native.status).toBe(200);
  });
});

describe("connections", () => {
  it("idle connections beyond the per-address cap are closed, and another address is still served", async () => {
    const server = await start({ http: { connectionsPerAddress: 8 } });
    const port = server.httpPort;
    const held: { closed: () => boolean }[] = [];
    for (let index = 0; index < 12; index++) held.push(await idleConnection(port, "127.0.0.2"));
    expect(await until(() => held.filter((c) => c.closed()).length >= 4, 2000)).toBe(true);
    expect(held.slice(0, 8).every((c) => !c.closed())).toBe(true);
    const status = await requestFrom(port, "GET", "/api/status", { from: "127.0.0.3" });
    expect(status.status).toBe(200);
    expect((status.body.http as Record<string, number>).refusedConnections).toBeGreaterThanOrEqual(4);
  });

  it("a connection that never finishes its request headers is closed after the headers timeout", async () => {
    const server = await start({ http: { headersTimeoutMs: 500 } });
    const slow = await idleConnection(server.httpPort, "127.0.0.4");
    slow.socket.write("GET /api/status HTTP/1.1\r\nHost: x\r\n"); // never the blank line
    expect(await until(slow.closed, 5000)).toBe(true);
  });
});

describe("logins", () => {
  it("wrong passwords from one address meet 429 with Retry-After; another address can still log in", async () => {
    const server = await start({ http: { loginFailuresBeforeBackoff: 3 } });
    const port = server.httpPort;
    const created = await postJsonFrom(port, "/api/register", { name: "Target", password: "correct horse", nick: "T" });
    expect(created.status).toBe(200);
    const statuses = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      const reply = await postJsonFrom(
        port,
        "/api/login",
        { name: "Target", password: `guess${attempt}xx` },
        "127.0.0.5",
      );
      statuses.push(reply.status);
      if (reply.status === 429) expect(Number(reply.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    }
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.slice(3)).toEqual([429, 429, 429]);
    // The attacker's address is held back, even with the right password…
    const blocked = await postJsonFrom(port, "/api/login", { name: "Target", password: "correct horse" }, "127.0.0.5");
    expect(blocked.status).toBe(429);
    // …the owner, elsewhere, is not (the per-account limit allows more failures than the per-address one).
    const owner = await postJsonFrom(port, "/api/login", { name: "Target", password: "correct horse" }, "127.0.0.6");
    expect(owner.status).toBe(200);
  });

  it("wrong passwords for one account from many addresses meet the per-account limit", async () => {
    const server = await start({ http: { loginFailuresBeforeBackoff: 50, accountFailuresBeforeBackoff: 4 } });
    const port = server.httpPort;
    await postJsonFrom(port, "/api/register", { name: "Victim", password: "correct horse", nick: "V" });
    const statuses = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      const reply = await postJsonFrom(
        port,
        "/api/login",
        { name: "victim", password: "wrong guess" },
        `127.0.1.${attempt + 1}`,
      );
      statuses.push(reply.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });

  it("a guesser who knows the name cannot lock its owner out: the owner's own address still gets in, a new one waits", async () => {
    // A first wait of a minute, so the hold cannot run out while the test is slow.
    const server = await start({ http: { loginBackoffFirstMs: 60_000 } });
    const port = server.httpPort;
    const owner = "127.0.3.1";
    const created = await postJsonFrom(
      port,
      "/api/register",
      { name: "Owner", password: "correct horse", nick: "O" },
      owner,
    );
    expect(created.status).toBe(200);
    // Guesses from 12 addresses of the guesser's, two each: past the per-account limit (10) many times over.
    const statuses: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (let index = 0; index < 12; index++) {
        const reply = await postJsonFrom(
          port,
          "/api/login",
          { name: "owner", password: `guess ${round}-${index}` },
          `127.0.6.${index + 1}`,
        );
        statuses.push(reply.status);
      }
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10).every((status) => status === 429)).toBe(true);
    // An address the account never used waits, even with the right password: the limit still binds the guessers.
    const fresh = await postJsonFrom(port, "/api/login", { name: "owner", password: "correct horse" }, "127.0.6.99");
    expect(fresh.status).toBe(429);
    // The owner, from the address it registered from, is let in with the right password…
    const mine = await postJsonFrom(port, "/api/login", { name: "Owner", password: "correct horse" }, owner);
    expect(mine.status).toBe(200);
    // …its success clears nothing for the guessers…
    const guess = await postJsonFrom(port, "/api/login", { name: "owner", password: "one more" }, "127.0.6.13");
    expect(guess.status).toBe(429);
    // …and it gets in again while the guesses go on.
    const again = await postJsonFrom(port, "/api/login", { name: "owner", password: "correct horse" }, owner);
    expect(again.status).toBe(200);
  });

  it("logging into one's own account buys a guessing address no more tries at other accounts", async () => {
    const server = await start({ http: { loginBackoffFirstMs: 60_000 } });
    const port = server.httpPort;
    const guesser = "127.0.7.1";
    expect(
      (await postJsonFrom(port, "/api/register", { name: "Mine", password: "my password", nick: "M" }, guesser)).status,
    ).toBe(200);
    // A sweep over many names from one address meets the per-address limit (10 failures, any names)…
    const statuses: number[] = [];
    for (let index = 0; index < 11; index++) {
      const reply = await postJsonFrom(port, "/api/login", { name: `name${index}`, password: "123456" }, guesser);
      statuses.push(reply.status);
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    // …its own account still lets it in (an address it logged in from is held back only by its own failures there)…
    expect((await postJsonFrom(port, "/api/login", { name: "Mine", password: "my password" }, guesser)).status).toBe(
      200,
    );
    // …and that success does not clear the address's failures: the next guess at another name still waits.
    const after = await postJsonFrom(port, "/api/login", { name: "name11", password: "123456" }, guesser);
    expect(after.status).toBe(429);
  });

  it("password hashing is bounded: logins beyond the queue are answered 503 with Retry-After at once", async () => {
    const server = await start({ http: { hashConcurrency: 1, hashQueue: 2, loginFailuresBeforeBackoff: 1000 } });
    const port = server.httpPort;
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        postJsonFrom(port, "/api/login", { name: `nobody${index}`, password: "whatever1" }, `127.0.2.${index + 1}`),
      ),
    );
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 401).length).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThanOrEqual(1);
    for (const reply of replies.filter((r) => r.status === 503)) {
      expect(Number(reply.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    }
    expect(statuses.every((status) => status === 401 || status === 503)).toBe(true);
  }, 20_000);
});

describe("registration", () => {
  it("registrations from one address are limited (429), and an account refused never exists", async () => {
    const server = await start({ http: { registrationsPerAddress: 2 } });
    const port = server.httpPort;
    const statuses = [];
    for (let index = 0; index < 4; index++) {
      const reply = await postJsonFrom(
        port,
        "/api/register",
        { name: `spam${index}`, password: "password1", nick: `S${index}` },
        "127.0.0.7",
      );
      statuses.push(reply.status);
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
    const other = await postJsonFrom(
      port,
      "/api/register",
      { name: "honest", password: "password1", nick: "H" },
      "127.0.0.8",
    );
    expect(other.status).toBe(200);
    const login = await postJsonFrom(port, "/api/login", { name: "spam3", password: "password1" }, "127.0.0.9");
    expect(login.status).toBe(401);
  });

  it("a 503 (server full) never leaves an account behind, however many registrations race", async () => {
    const server = await start({ maxPlayers: 1 });
    const port = server.httpPort;
    const names = ["racer0", "racer1", "racer2", "racer3"];
    const replies = await Promise.all(
      names.map((name, index) =>
        postJsonFrom(port, "/api/register", { name, password: "password1", nick: name }, `127.0.3.${index + 1}`),
      ),
    );
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 503)).toHaveLength(3);
    const stored = server.game.accountStore;
    for (const [index, name] of names.entries()) {
      expect(stored.findByName(name) !== undefined, name).toBe(statuses[index] === 200);
    }
  }, 20_000);
});
