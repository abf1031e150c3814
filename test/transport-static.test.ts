// The game server serves the built browser client from the same origin as its API.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contentTypeFor, resolveStaticPath } from "../ts/server/transports/static-files.js";
import { startTestServer, type TestServer } from "./support/transport-client.js";

let root: string;
let clientDir: string;
let test: TestServer;

const FILES: Record<string, string | Uint8Array> = {
  "index.html": "<!doctype html><title>caves</title>",
  "assets/app-1234.js": "console.log('caves');",
  "assets/app.css": "body { margin: 0 }",
  "assets/core.wasm": new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]),
  "assets/tiles.tga": new Uint8Array([0, 0, 2, 0]),
  "assets/icon.png": new Uint8Array([137, 80, 78, 71]),
  "assets/logo.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>",
  "assets/data.json": "{}",
  "docs/index.html": "<p>docs</p>",
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "caves-static-"));
  clientDir = join(root, "client");
  for (const [path, content] of Object.entries(FILES)) {
    mkdirSync(join(clientDir, path, ".."), { recursive: true });
    writeFileSync(join(clientDir, path), content);
  }
  writeFileSync(join(root, "secret.txt"), "outside the client directory");
  test = await startTestServer({ clientDir });
});

afterAll(async () => {
  await test?.dispose();
  rmSync(root, { recursive: true, force: true });
});

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${test.baseUrl}${path}`, { headers });
}

/** A GET whose path reaches the server byte for byte (fetch would normalise "..", "%2e%2e" and the like). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: test.server.httpPort, path, method: "GET" }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("static client files", () => {
  it("serves index.html for / and each file with its content type", async () => {
    const index = await get("/");
    expect(index.status).toBe(200);
    expect(index.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await index.text()).toBe(FILES["index.html"]);
    const expected: Record<string, string> = {
      "assets/app-1234.js": "text/javascript; charset=utf-8",
      "assets/app.css": "text/css; charset=utf-8",
      "assets/core.wasm": "application/wasm",
      "assets/tiles.tga": "image/x-tga",
      "assets/icon.png": "image/png",
      "assets/logo.svg": "image/svg+xml",
      "assets/data.json": "application/json",
      "docs/": "text/html; charset=utf-8",
    };
    for (const [path, type] of Object.entries(expected)) {
      const response = await get(`/${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type"), path).toBe(type);
      const body = new Uint8Array(await response.arrayBuffer());
      const file = FILES[path.endsWith("/") ? `${path}index.html` : path];
      expect(body).toEqual(typeof file === "string" ? new TextEncoder().encode(file) : file);
    }
  });

  it("answers 404 JSON for missing files and for every way out of the directory", async () => {
    for (const path of [
      "/missing.js",
      "/assets",
      "/../secret.txt",
      "/assets/../../secret.txt",
      "/%2e%2e/secret.txt",
      "/assets/%2e%2e/%2e%2e/secret.txt",
      "/..%2fsecret.txt",
      "/assets/..%2f..%2fsecret.txt",
      "/%2e%2e%5csecret.txt",
      "/..\\secret.txt",
      "/assets%00.js",
      "/%E0%A4%A",
    ]) {
      const response = await rawGet(path);
      expect(response.status, path).toBe(404);
      expect((JSON.parse(response.body) as { error: string }).error).toBe("not found");
    }
  });

  it("keeps the API routes ahead of the files, answers HEAD, and revalidates by ETag", async () => {
    expect((await get("/api/status")).headers.get("content-type")).toBe("application/json");
    const head = await fetch(`${test.baseUrl}/assets/core.wasm`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("8");
    const etag = head.headers.get("etag")!;
    expect(etag).toMatch(/^".+"$/);
    expect((await get("/assets/core.wasm", { "if-none-match": etag })).status).toBe(304);
    // A POST is a state change: refused as one first when it is not JSON (415, what a form sends), even where no
    // route would take it; a JSON one to a file finds no route (404).
    expect((await fetch(`${test.baseUrl}/index.html`, { method: "POST", body: "{}" })).status).toBe(415);
    const json = { method: "POST", headers: { "content-type": "application/json" }, body: "{}" };
    expect((await fetch(`${test.baseUrl}/index.html`, json)).status).toBe(404);
  });

  it("answers / with a page saying how to build the client when dist/client is missing", async () => {
    const bare = await startTestServer({ clientDir: join(root, "not-built") });
    try {
      const page = await fetch(`${bare.baseUrl}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const text = await page.text();
      expect(text).toContain("not been built");
      expect(text).toContain("dist/client/");
      expect((await fetch(`${bare.baseUrl}/app.js`)).status).toBe(404);
    } finally {
      await bare.dispose();
    }
  });
});

describe("static path rules", () => {
  it("resolves inside the root only", () => {
    expect(resolveStaticPath("/srv/client", "/")).toBe("/srv/client/index.html");
    expect(resolveStaticPath("/srv/client", "/a/b.js")).toBe("/srv/client/a/b.js");
    expect(resolveStaticPath("/srv/client", "/a/../b.js")).toBe("/srv/client/b.js");
    expect(resolveStaticPath("/srv/client", "/../client2/x")).toBeUndefined();
    expect(resolveStaticPath("/srv/client", "/%2e%2e/x")).toBeUndefined();
    expect(resolveStaticPath("/srv/client", "/a\\..\\..\\x")).toBeUndefined();
    expect(resolveStaticPath("/srv/client", "/%zz")).toBeUndefined();
  });

  it("names content types by extension, octet-stream otherwise", () => {
    expect(contentTypeFor("x.HTML")).toBe("text/html; charset=utf-8");
    expect(contentTypeFor("x.mjs")).toBe("text/javascript; charset=utf-8");
    expect(contentTypeFor("x.bin")).toBe("application/octet-stream");
  });
});
