// The protocol's in-place fast path: isValidAction and isValidPing give the
// verdict decodePacket gives on every datagram (valid, mutated, truncated,
// extended), and the ActionPacket readers return the fields decodePacket
// decodes, so a server that reads actions straight from the bytes behaves as
// if it had decoded them. Also: every packet layout matches its encoder.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ACTION_AUTH_LAYOUT,
  ACTION_BYTES,
  CHALLENGE_LAYOUT,
  ENTITY_ENTRY_LAYOUT,
  HEADER_BYTES,
  type Layout,
  MANIFEST_ENTRIES,
  PACKET_ACTION,
  PACKET_LAYOUTS,
  PACKET_PING,
  PACKET_PONG,
  PING_REPORT_LAYOUT,
  PACKET_TYPE_NAMES,
  createActionPacket,
  decodePacket,
  encodeAction,
  encodePacket,
  isValidAction,
  isValidPing,
  readActionCacheChunkId,
  readActionCacheVersion,
  readActionCode,
  readActionTargetTick,
  readActionTokenHigh,
  readActionTokenLow,
} from "../ts/protocol/index.js";
import { anyPacket, byteMutation, mutateBytes, u16, u32 } from "./protocol-arbitraries.js";

function encoded(packet: Parameters<typeof encodePacket>[0]): number[] {
  const out = new Uint8Array(1200);
  return Array.from(out.subarray(0, encodePacket(packet, out)));
}

describe("isValidAction / isValidPing", () => {
  it("accept exactly the datagrams decodePacket accepts as an action or a ping", () => {
    let actions = 0;
    let pings = 0;
    let refused = 0;
    fc.assert(
      fc.property(anyPacket, fc.array(byteMutation, { maxLength: 3 }), (packet, mutations) => {
        const datagram = new Uint8Array(mutateBytes(encoded(packet), mutations));
        const result = decodePacket(datagram);
        const action = result.ok && result.packet.type === "action";
        const ping = result.ok && result.packet.type === "ping";
        expect(isValidAction(datagram)).toBe(action);
        expect(isValidPing(datagram)).toBe(ping);
        if (action) actions++;
        else if (ping) pings++;
        else refused++;
      }),
      { seed: 7, numRuns: 5000 },
    );
    // Every outcome is common, or the comparison above checks nothing.
    expect(Math.min(actions, pings, refused)).toBeGreaterThan(100);
  });

  it("refuse every single-byte change to the header and every action code above ACTION_MAX", () => {
    const bytes = new Uint8Array(ACTION_BYTES);
    encodeAction(createActionPacket(), bytes);
    expect(isValidAction(bytes)).toBe(true);
    for (let at = 0; at < HEADER_BYTES - 2; at++) {
      for (let value = 0; value < 256; value++) {
        const copy = bytes.slice();
        copy[at] = value;
        const result = decodePacket(copy);
        expect(isValidAction(copy)).toBe(result.ok && result.packet.type === "action");
      }
    }
    const last = ACTION_BYTES - 2;
    for (let code = 0; code < 0x10000; code += 7) {
      const copy = bytes.slice();
      copy[last] = code & 0xff;
      copy[last + 1] = code >>> 8;
      expect(isValidAction(copy)).toBe(decodePacket(copy).ok);
    }
  });
});

describe("ActionPacket readers", () => {
  it("read the fields decodePacket decodes", () => {
    const token = fc.bigInt({ min: 0n, max: 0xffffffffffffffffn });
    const entry = fc.record({ chunkId: u32, version: u16 });
    fc.assert(
      fc.property(
        token,
        u32,
        fc.array(entry, { minLength: MANIFEST_ENTRIES, maxLength: MANIFEST_ENTRIES }),
        fc.integer({ min: 0, max: 8 }),
        (authToken, targetTick, cache, action) => {
          const bytes = new Uint8Array(ACTION_BYTES);
          encodeAction({ type: "action", clientType: 3, authToken, targetTick, cache, action }, bytes);
          const result = decodePacket(bytes);
          if (!result.ok || result.packet.type !== "action") throw new Error("encoded action does not decode");
          const packet = result.packet;
          expect(isValidAction(bytes)).toBe(true);
          expect(readActionTokenLow(bytes)).toBe(Number(packet.authToken & 0xffffffffn));
          expect(readActionTokenHigh(bytes)).toBe(Number(packet.authToken >> 32n));
          expect(readActionTargetTick(bytes)).toBe(packet.targetTick);
          for (let index = 0; index < MANIFEST_ENTRIES; index++) {
            expect(readActionCacheChunkId(bytes, index)).toBe(packet.cache[index].chunkId);
            expect(readActionCacheVersion(bytes, index)).toBe(packet.cache[index].version);
          }
          expect(readActionCode(bytes)).toBe(packet.action);
        },
      ),
      { seed: 11, numRuns: 500 },
    );
  });
});

describe("packet layouts", () => {
  it("name one layout per packet type, and every fixed-size packet is its layout's length", () => {
    expect(PACKET_LAYOUTS).toHaveLength(PACKET_TYPE_NAMES.length);
    PACKET_LAYOUTS.forEach((layout, id) => {
      // Ping and Pong share one layout.
      expect(layout.name).toBe(PACKET_TYPE_NAMES[id] === "pong" ? "ping" : PACKET_TYPE_NAMES[id]);
    });
    fc.assert(
      fc.property(anyPacket, (packet) => {
        const bytes = encoded(packet);
        const layout = PACKET_LAYOUTS[bytes[3]];
        const variable = layout.fields.some((field) => field.size < 0);
        // The optional tails: an ActionPacket's authentication trailer, a Pong's challenge, a Ping's report
        // (§ 6.1, § 12.1, § 12.4).
        const tail =
          bytes[3] === PACKET_ACTION
            ? ACTION_AUTH_LAYOUT
            : bytes[3] === PACKET_PONG
              ? CHALLENGE_LAYOUT
              : bytes[3] === PACKET_PING
                ? PING_REPORT_LAYOUT
                : null;
        if (variable) expect(bytes.length).toBeGreaterThanOrEqual(layout.fixedBytes);
        else expect([layout.fixedBytes, tail?.fixedBytes]).toContain(bytes.length);
      }),
      { seed: 5, numRuns: 1000 },
    );
  });

  it("agree with the field tables of docs/protocol.md: same names, offsets and sizes", () => {
    // Each "## … (type N, …)" section's first table lists the packet's fields;
    // rows whose offset and size are plain numbers must match the layout.
    const lines = readFileSync(fileURLToPath(new URL("../docs/protocol.md", import.meta.url)), "utf8").split("\n");
    const byLayout: { layout: Layout; rows: string[][] }[] = [];
    let current: { layout: Layout; rows: string[][] } | null = null;
    for (const line of lines) {
      const heading = /^#+ .*\(types? (\d+)/.exec(line);
      if (heading !== null || /^#+ 8\.1 EntityEntry/.test(line)) {
        const layout = heading !== null ? PACKET_LAYOUTS[Number(heading[1])] : ENTITY_ENTRY_LAYOUT;
        current = { layout, rows: [] };
        byLayout.push(current);
      } else if (current !== null && line.startsWith("|")) {
        current.rows.push(
          line
            .split("|")
            .slice(1, -1)
            .map((cell) => cell.trim()),
        );
      } else if (current !== null && current.rows.length > 0) {
        current = null; // only the first table after the heading
      }
    }
    let checked = 0;
    for (const { layout, rows } of byLayout) {
      if (rows.length === 0 || rows[0][0] !== "Offset") continue;
      for (const [offset, size, , rawName] of rows.slice(2)) {
        const name = rawName.replace(/`/g, "");
        if (name === "header" || !/^\d+$/.test(offset) || !/^\d+$/.test(size) || size === "0") continue;
        const field = layout.fields.find((candidate) => candidate.name === name);
        expect(field, `${layout.name}.${name} is in docs/protocol.md but not in the layout`).toBeDefined();
        expect(field?.offset, `${layout.name}.${name} offset`).toBe(Number(offset));
        expect(field?.size, `${layout.name}.${name} size`).toBe(Number(size));
        checked++;
      }
    }
    // Every packet's fixed fields are documented, so most of them were compared.
    expect(checked).toBeGreaterThanOrEqual(60);
  });
});
