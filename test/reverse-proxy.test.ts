// The nginx example of docs/deploying.md (ops/nginx/forgotten-caves.conf) in front of a real server, as a
// browser meets it: over HTTPS (a self-signed certificate where certbot's would be, on free ports instead of
// 443 and 80), a guest join whose Origin the server accepts only if the proxy kept Host, the WebSocket
// fallback upgraded through it and carrying the session's first view, WebRTC signalling reaching the
// server, /metrics kept in, and plain HTTP sent to HTTPS. Skipped, with the reason, without nginx.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
  DatagramLog,
  expectFirstView,
  type Joined,
  signedActionDatagram,
  startTestServer,
  type TestServer,
} from "./support/transport-client.js";
import { freeLoopbackPort, toolSkipReason } from "./support/installed-tool.js";

const skip = toolSkipReason("nginx", ["-v"], "nginx");
if (skip !== null) process.stderr.write(`test/reverse-proxy.test.ts skipped: ${skip}\n`);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describe.skipIf(skip !== null)("the nginx example in front of the server", () => {
  let game: TestServer;
  let nginx: ChildProcess | undefined;
  let directory: string;
  let tlsPort: number;
  let plainPort: number;
  /** The site's name as a browser would have it in the address bar (with the test's port). */
  let origin: string;

  /** A request to the proxy over HTTPS, as from a page at `origin` (Host as the browser sends it). */
  function viaProxy(
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const outgoing = request(
        {
          host: "127.0.0.1",
          port: tlsPort,
          method,
          path,
          servername: "play.example.org",
          rejectUnauthorized: false,
          headers: { host: `play.example.org:${tlsPort}`, ...headers },
          timeout: 10_000,
        },
        (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => (text += chunk.toString()));
          response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body: text }));
        },
      );
      outgoing.on("error", reject);
      outgoing.end(body);
    });
  }

  beforeAll(async () => {
    game = await startTestServer();
    directory = mkdtempSync(join(tmpdir(), "caves-nginx-"));
    tlsPort = await freeLoopbackPort();
    plainPort = await freeLoopbackPort();
    origin = `https://play.example.org:${tlsPort}`;
    const key = join(directory, "key.pem");
    const certificate = join(directory, "cert.pem");
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=play.example.org", "-days", "1"].concat([
        "-keyout",
        key,
        "-out",
        certificate,
      ]),
      { stdio: "ignore", timeout: 30_000 },
    );
    // The shipped site, with only what a test machine must change: the ports, the certificate's place, no IPv6.
    const site = readFileSync(new URL("../ops/nginx/forgotten-caves.conf", import.meta.url), "utf8")
      .replace("listen 443 ssl http2;", `listen 127.0.0.1:${tlsPort} ssl http2;`)
      .replace("listen 80;", `listen 127.0.0.1:${plainPort};`)
      .replace(/^\s*listen \[::\]:\d+.*$/gm, "")
      .replace("/etc/letsencrypt/live/play.example.org/fullchain.pem", certificate)
      .replace("/etc/letsencrypt/live/play.example.org/privkey.pem", key)
      .replaceAll("127.0.0.1:8080", `127.0.0.1:${game.server.httpPort}`);
    expect(site).toContain(`proxy_pass http://127.0.0.1:${game.server.httpPort}`);
    writeFileSync(join(directory, "site.conf"), site);
    const config = join(directory, "nginx.conf");
    // One process in the foreground, so the test owns it and stops it by its id.
    writeFileSync(
      config,
      `daemon off;\nmaster_process off;\npid ${directory}/nginx.pid;\nerror_log stderr;\nevents {}\n` +
        `http {\n  access_log off;\n  include ${directory}/site.conf;\n}\n`,
    );
    let stderr = "";
    nginx = spawn("nginx", ["-e", "stderr", "-p", directory, "-c", config], { stdio: ["ignore", "ignore", "pipe"] });
    nginx.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // Until nginx answers through to the server (the test's timeout bounds the wait).
    for (;;) {
      if (nginx.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
      if ((await viaProxy("GET", "/api/world").catch(() => null))?.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  afterAll(async () => {
    if (nginx !== undefined && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx!.once("exit", resolve));
      nginx.kill("SIGTERM");
      await exited;
    }
    await game?.dispose();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it("passes a page's join to the server with Host kept, so its Origin is the server's own", async () => {
    const joined = await viaProxy("POST", "/api/guest", JSON.stringify({ nick: "Proxied" }), {
      "content-type": "application/json",
      origin,
    });
    expect(joined.status, joined.body).toBe(200);
    expect(JSON.parse(joined.body)).toMatchObject({ nick: "Proxied" });
    // A page of another site is still refused: the check is the server's, not switched off by the proxy.
    const foreign = await viaProxy("POST", "/api/guest", JSON.stringify({ nick: "Foreign" }), {
      "content-type": "application/json",
      origin: "https://evil.example",
    });
    expect(foreign.status).toBe(403);
  });

  it("upgrades GET /ws and carries the session's datagrams both ways", async () => {
    const answer = await viaProxy("POST", "/api/guest", JSON.stringify({ nick: "Upgraded" }), {
      "content-type": "application/json",
      origin,
    });
    const body = JSON.parse(answer.body) as { token: string; key: string; entityId: number; udpPort: number };
    const joined: Joined = { ...body, tokenValue: BigInt(`0x${body.token}`) };
    const socket = new WebSocket(`wss://127.0.0.1:${tlsPort}/ws`, {
      rejectUnauthorized: false,
      headers: { host: `play.example.org:${tlsPort}` },
      origin,
    });
    socket.binaryType = "nodebuffer";
    const log = new DatagramLog();
    socket.on("message", (data: Buffer) => log.record(new Uint8Array(data)));
    try {
      await new Promise((resolve, reject) => {
        socket.once("open", resolve);
        socket.once("error", reject);
      });
      socket.send(signedActionDatagram(joined, 1));
      await expectFirstView(log, joined);
    } finally {
      socket.close();
    }
  });

  it("takes WebRTC signalling to the server, keeps /metrics in and sends plain HTTP to HTTPS", async () => {
    const joined = JSON.parse(
      (
        await viaProxy("POST", "/api/guest", JSON.stringify({ nick: "Signalled" }), {
          "content-type": "application/json",
          origin,
        })
      ).body,
    ) as { token: string };
    // The server's own answer to a bad offer (400, in words): the request reached it through the proxy.
    const offer = await viaProxy(
      "POST",
      "/api/rtc",
      JSON.stringify({ token: joined.token, type: "offer", sdp: "v=0" }),
      {
        "content-type": "application/json",
        origin,
      },
    );
    expect(offer.status).toBe(400);
    expect((JSON.parse(offer.body) as { error: string }).error).toEqual(expect.any(String));
    expect((await viaProxy("GET", "/metrics")).status).toBe(404);
    const redirect = await new Promise<{ status: number; location?: string }>((resolve, reject) => {
      httpGet({ host: "127.0.0.1", port: plainPort, path: "/", headers: { host: "play.example.org" } }, (response) => {
        response.resume();
        resolve({ status: response.statusCode!, location: response.headers.location });
      }).on("error", reject);
    });
    expect(redirect).toEqual({ status: 301, location: "https://play.example.org/" });
  });
});
