// What signing an ActionPacket costs (docs/protocol.md § 6.1): the browser's tag (@noble/hashes through
// ts/protocol/action-mac-portable.ts, the function the page's Outbox calls as it sends) timed in Chromium, and
// beside it in Node the same function and node:crypto's (action-mac-node.ts: the bots' and the server's), and
// in Chromium WebCrypto's HMAC (a Promise per packet: why the page does not use it on its send path).
// Run: npx tsx bench/micro/action-mac.ts [--packets N]   (note `uptime` beside the figures)
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { ACTION_TAG_AT, ACTION_TAG_BYTES } from "../../ts/protocol/action.js";
import { createSessionKey, nodeActionMac } from "../../ts/protocol/action-mac-node.js";
import { portableActionMac } from "../../ts/protocol/action-mac-portable.js";

const { values } = parseArgs({ options: { packets: { type: "string", default: "20000" } } });
const packets = Number(values.packets);
const CHROMIUM = "/usr/bin/chromium";

/** Microseconds a tag, over `packets` messages of the tagged length, after a warm-up of a tenth as many. */
function timeMac(mac: (message: Uint8Array, out: Uint8Array, at: number) => void): number {
  const message = new Uint8Array(ACTION_TAG_AT).map((_, index) => index);
  const out = new Uint8Array(ACTION_TAG_BYTES);
  for (let index = 0; index < packets / 10; index++) mac(message, out, 0);
  const start = performance.now();
  for (let index = 0; index < packets; index++) {
    message[14] = index & 0xff;
    mac(message, out, 0);
  }
  return ((performance.now() - start) * 1000) / packets;
}

const key = createSessionKey();
const node = { portable: timeMac(portableActionMac(key)), nodeCrypto: timeMac(nodeActionMac(key)) };

// The page's function, bundled as the client's bundle has it, run in Chromium.
const bundle = await build({
  entryPoints: [fileURLToPath(new URL("../../ts/protocol/action-mac-portable.ts", import.meta.url))],
  bundle: true,
  format: "iife",
  globalName: "actionMacPortable",
  write: false,
  target: "es2022",
});
// A page from 127.0.0.1, a secure context (WebCrypto's subtle is only there).
const site = createServer((_req, res) => res.end("<!doctype html><title>action-mac</title>"));
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
  await page.addScriptTag({ content: bundle.outputFiles[0].text });
  const inBrowser = await page.evaluate(
    async ({ packets, tagAt, tagBytes }) => {
      const keyBytes = crypto.getRandomValues(new Uint8Array(32));
      const message = new Uint8Array(tagAt).map((_, index) => index);
      const out = new Uint8Array(tagBytes);
      const mac = (
        globalThis as unknown as { actionMacPortable: typeof import("../../ts/protocol/action-mac-portable.js") }
      ).actionMacPortable.portableActionMac(keyBytes);
      for (let index = 0; index < packets / 10; index++) mac(message, out, 0);
      let start = performance.now();
      for (let index = 0; index < packets; index++) {
        message[14] = index & 0xff;
        mac(message, out, 0);
      }
      const portable = ((performance.now() - start) * 1000) / packets;
      const webKey = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      const webPackets = Math.max(1, Math.floor(packets / 4));
      start = performance.now();
      for (let index = 0; index < webPackets; index++) {
        message[14] = index & 0xff;
        await crypto.subtle.sign("HMAC", webKey, message);
      }
      const webCrypto = ((performance.now() - start) * 1000) / webPackets;
      return { portable, webCrypto };
    },
    { packets, tagAt: ACTION_TAG_AT, tagBytes: ACTION_TAG_BYTES },
  );
  const format = (us: number) => `${us.toFixed(2)} µs`;
  process.stdout.write(
    `ActionPacket tag, ${packets} packets of ${ACTION_TAG_AT} bytes:\n` +
      `  Chromium, @noble/hashes (the page's send path): ${format(inBrowser.portable)} a packet\n` +
      `  Chromium, WebCrypto (awaited one by one):        ${format(inBrowser.webCrypto)} a packet\n` +
      `  Node, @noble/hashes:                             ${format(node.portable)} a packet\n` +
      `  Node, node:crypto (bots, the server's check):    ${format(node.nodeCrypto)} a packet\n`,
  );
} finally {
  await browser.close();
  site.close();
}
