// Which pages may use a cluster gateway from another origin (ts/cluster/gateway-origins.ts), how the HTTP side
// shares one path across origins with them alone (HttpApi.shareAcrossOrigins: the browser's preflight and the
// answer's Access-Control-Allow-Origin, on a real server), and the join's gateway list a browser goes on
// through (parseGateways, gatewayBaseUrl: docs/protocol.md § 6.2).
import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayBaseUrl, parseGateways, SessionError } from "../ts/client/core/session-api.js";
import type { GatewayEndpoint } from "../ts/cluster/directory.js";
import { isGatewayOrigin } from "../ts/cluster/gateway-origins.js";
import { HttpApi } from "../ts/server/http/http-api.js";

const GATEWAYS: GatewayEndpoint[] = [
  { id: "g0", httpPort: 8080, udpPort: 7777 },
  { id: "g1", httpPort: 8081, udpPort: 7778 },
  { id: "g2", httpPort: 443, udpPort: 7779, url: "https://g2.example.org" },
];
const sentTo = (host: string) => ({ headers: { host } }) as unknown as IncomingMessage;

describe("a gateway's sibling origins", () => {
  it("are the gateways' ports on the host the request was sent to, and the public URLs given", () => {
    const req = sentTo("127.0.0.1:8081");
    expect(isGatewayOrigin("http://127.0.0.1:8080", req, GATEWAYS)).toBe(true);
    expect(isGatewayOrigin("https://127.0.0.1:8080", req, GATEWAYS)).toBe(true);
    expect(isGatewayOrigin("https://g2.example.org", req, GATEWAYS)).toBe(true);
    expect(isGatewayOrigin("https://g2.example.org:443", req, GATEWAYS)).toBe(true);
    expect(isGatewayOrigin("http://[::1]:8080", sentTo("[::1]:8081"), GATEWAYS)).toBe(true);
  });

  it("are nobody else: another port, another host, another scheme's port, or not an origin at all", () => {
    const req = sentTo("127.0.0.1:8081");
    expect(isGatewayOrigin("http://127.0.0.1:9000", req, GATEWAYS)).toBe(false);
    expect(isGatewayOrigin("http://127.0.0.1", req, GATEWAYS)).toBe(false);
    expect(isGatewayOrigin("http://evil.example:8080", req, GATEWAYS)).toBe(false);
    expect(isGatewayOrigin("http://localhost:8080", req, GATEWAYS)).toBe(false);
    expect(isGatewayOrigin("http://g2.example.org", req, GATEWAYS)).toBe(false);
    expect(isGatewayOrigin("https://g2.example.org.evil.example", req, GATEWAYS)).toBe(false);
    expect(isGatewayOrigin("null", req, GATEWAYS)).toBe(false);
    expect(isGatewayOrigin("file://", req, GATEWAYS)).toBe(false);
    expect(isGatewayOrigin("http://127.0.0.1:8080", { headers: {} } as unknown as IncomingMessage, GATEWAYS)).toBe(
      false,
    );
  });
});

describe("a path shared across origins (HttpApi.shareAcrossOrigins)", () => {
  const api = new HttpApi(() => {});
  let base = "";
  const SIBLING = "http://sibling.example:8081";
  beforeAll(async () => {
    api.route("POST", "/shared", () => ({ body: { ok: true } }));
    api.route("POST", "/private", () => ({ body: { ok: true } }));
    api.shareAcrossOrigins("/shared", (origin) => origin === SIBLING);
    await api.listen(0, "127.0.0.1");
    base = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => api.server.close(() => resolve())));

  const preflight = (path: string, origin: string) =>
    fetch(`${base}${path}`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
  const post = (path: string, origin: string) =>
    fetch(`${base}${path}`, { method: "POST", headers: { origin, "content-type": "application/json" }, body: "{}" });

  it("answers the sibling's preflight and names it in the answer", async () => {
    const allowed = await preflight("/shared", SIBLING);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(SIBLING);
    expect(allowed.headers.get("access-control-allow-headers")).toBe("content-type");
    const answer = await post("/shared", SIBLING);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("access-control-allow-origin")).toBe(SIBLING);
  });

  it("refuses another site's page, and the sibling's on a path not shared", async () => {
    const foreign = await preflight("/shared", "http://evil.example");
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    const posted = await post("/shared", "http://evil.example");
    expect(posted.status).toBe(403);
    expect(posted.headers.get("access-control-allow-origin")).toBeNull();
    expect(((await posted.json()) as { error: string }).error).toMatch(/evil\.example are not accepted/);
    expect((await post("/private", SIBLING)).status).toBe(403);
    const unshared = await preflight("/private", SIBLING);
    expect(unshared.status).toBe(405);
    expect(unshared.headers.get("access-control-allow-origin")).toBeNull();
    // A preflight for another method is no way round it.
    const put = await fetch(`${base}/shared`, {
      method: "OPTIONS",
      headers: { origin: SIBLING, "access-control-request-method": "PUT" },
    });
    expect(put.status).toBe(405);
  });
});

describe("the join's gateways, for a client that goes on through another", () => {
  it("reads a url beside the ports, as an origin, and refuses one that is not", () => {
    expect(parseGateways([{ httpPort: 8080, udpPort: 7777 }], "join")).toEqual([{ httpPort: 8080, udpPort: 7777 }]);
    expect(parseGateways([{ httpPort: 443, udpPort: 7778, url: "https://g1.example.org:443" }], "join")).toEqual([
      { httpPort: 443, udpPort: 7778, url: "https://g1.example.org" },
    ]);
    for (const url of ["ftp://g1.example.org", "https://g1.example.org/play", "https://user@g1.example.org", 7, ""]) {
      expect(() => parseGateways([{ httpPort: 443, udpPort: 7778, url }], "join"), String(url)).toThrow(SessionError);
    }
  });

  it("finds a gateway at its url, or on the host joined through at its HTTP port", () => {
    expect(gatewayBaseUrl("http://127.0.0.1:8080", { httpPort: 8081, udpPort: 7778 })).toBe("http://127.0.0.1:8081");
    expect(gatewayBaseUrl("https://caves.example.org/", { httpPort: 8443, udpPort: 7778 })).toBe(
      "https://caves.example.org:8443",
    );
    expect(
      gatewayBaseUrl("http://127.0.0.1:8080", { httpPort: 443, udpPort: 7778, url: "https://g1.example.org" }),
    ).toBe("https://g1.example.org");
  });
});
