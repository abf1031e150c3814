// The packet tool: its JSON form round-trips every packet (in process), and
// the real CLI (spawned through tsx) decodes the golden vector of every type,
// encodes the JSON back to the same hex, and exits 2 with a message on bad input.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { encodePacketToBytes } from "../ts/protocol/index.js";
import { encodeCommand, decodeCommand, formatJson, packetFromJson, packetToJson, toHex } from "../ts/tools/packet.js";
import { anyPacket } from "./protocol-arbitraries.js";
import { entityBytes, vectors } from "./protocol-vectors.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSX = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url));
const SPAWN_TIMEOUT_MS = 60_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the tool as `npx tsx ts/tools/packet.ts ...args` would (tsx resolved directly, skipping npx's lookup). */
function runTool(args: string[], stdin?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      TSX,
      ["ts/tools/packet.ts", ...args],
      { cwd: ROOT, timeout: SPAWN_TIMEOUT_MS },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(stdin ?? "");
  });
}

/** Runs jobs at most `limit` at a time: each spawn starts a Node process. */
async function inBatches<T, R>(items: T[], limit: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += limit) {
    results.push(...(await Promise.all(items.slice(start, start + limit).map(job))));
  }
  return results;
}

/** Hex with spaces every 4 bytes and a line break every 32, as someone might paste it. */
function spacedHex(bytes: number[]): string {
  return bytes
    .map((byte, index) => byte.toString(16).padStart(2, "0") + (index % 32 === 31 ? "\n" : index % 4 === 3 ? " " : ""))
    .join("");
}

describe("JSON form (in process)", () => {
  it("packetFromJson(packetToJson(p)) encodes to the same bytes, through text", () => {
    fc.assert(
      fc.property(anyPacket, (packet) => {
        const bytes = encodePacketToBytes(packet);
        const json = packetToJson(packet);
        const parsed = packetFromJson(JSON.parse(formatJson(json)));
        expect(encodePacketToBytes(parsed)).toEqual(bytes);
        expect(packetToJson(parsed)).toEqual(json);
      }),
      { seed: 0x7001, numRuns: 300 },
    );
  });

  it("decode(encode(json)) == json for the canonical JSON of every golden vector", () => {
    for (const [, bytes] of vectors) {
      const text = decodeCommand(toHex(new Uint8Array(bytes)));
      expect(encodeCommand(text)).toBe(toHex(new Uint8Array(bytes)));
      expect(decodeCommand(encodeCommand(text))).toBe(text);
    }
  });

  it("names every field, with u64 as hex / decimal strings and chunk ids also as cx, cy", () => {
    const action = JSON.parse(decodeCommand(toHex(new Uint8Array(vectors[1][1])))) as Record<string, unknown>;
    expect(action).toMatchObject({
      packet_type: "action",
      magic: "0x524C",
      version: 1,
      client_type: 3,
      auth_token: "0123456789abcdef",
      target_tick: 1000,
      player_action: "SE",
    });
    expect((action.cache as unknown[])[1]).toEqual({ chunk_id: 0xffff, cx: -1, cy: 0, version: 2 });
    const pong = JSON.parse(decodeCommand(toHex(new Uint8Array(vectors[9][1]))));
    expect(pong.timestamp_ms).toBe("1700000000123");
  });

  it("prints the ActionPacket trailer and a challenge's cookie (§ 6.1, § 12.1)", () => {
    const trailer = [7, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0xff, ...Array.from({ length: 16 }, (_, i) => 0xa0 + i)];
    const tagged = JSON.parse(decodeCommand(toHex(new Uint8Array([...vectors[1][1], ...trailer]))));
    expect(tagged.auth).toEqual({
      sequence: 7,
      challenge: String(0xff00000000000009n),
      tag: "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
    });
    const challenge = JSON.parse(decodeCommand(toHex(new Uint8Array([...vectors[9][1], 5, 0, 0, 0, 0, 0, 0, 0]))));
    expect(challenge).toMatchObject({ packet_type: "pong", challenge: "5" });
    expect(encodeCommand(JSON.stringify(tagged))).toBe(toHex(new Uint8Array([...vectors[1][1], ...trailer])));
  });

  it("names a player's level and its experience (issue 39: the level and progress TLVs)", () => {
    const detail = {
      packet_type: "entity_detail",
      tick: 9,
      entity_id: 4,
      meta: [
        { tag: "level", value: 3 },
        { tag: "name", value: "Ada" },
        { tag: "progress", xp: 170, levelXp: 150, nextXp: 300 },
      ],
    };
    const hex = encodeCommand(JSON.stringify(detail));
    // Tag 0x0a, len 1, level 3; tag 0x0b, len 12, three u32s.
    expect(hex).toContain("0a0103");
    expect(hex).toContain("0b0caa00000096000000" + "2c010000");
    expect(JSON.parse(decodeCommand(hex))).toMatchObject({ meta: detail.meta });
  });

  it("accepts chunk tiles as global tile ids and builds the palette", () => {
    const rows = Array.from({ length: 32 }, (_, y) => Array.from({ length: 32 }, (_, x) => (x === y ? 7 : 0xfffe)));
    const hex = encodeCommand(
      JSON.stringify({ packet_type: "chunk", chunk: { cx: 0, cy: 0, version: 1 }, tile_ids: rows }),
    );
    const decoded = JSON.parse(decodeCommand(hex));
    expect(decoded.palette).toEqual([7, 0xfffe]);
    expect(decoded.tile_indices[3][3]).toBe(0);
    expect(decoded.tile_indices[3][4]).toBe(1);
  });
});

// Spawning costs a Node start-up per run, so the CLI runs are gathered once and
// the tests below read their results: one decode per packet type, a few
// encodes (the in-process tests above cover every vector), one per error class.
const cliVectors = vectors.filter(([name]) => name !== "chunk, 64-entry palette" && name !== "entity, empty");
const vectorIndex = (name: string): number => cliVectors.findIndex(([vectorName]) => vectorName === name);
const CHUNK = vectorIndex("chunk, 2-entry palette");
const ENTITY = vectorIndex("entity with meta");
const encodeIndexes = [vectorIndex("state"), CHUNK, ENTITY]; // via argument, stdin, stdin
const badCases: [string[], string | undefined, RegExp][] = [
  [["decode", "4c52zz"], undefined, /not a hex digit/],
  [["decode", "-"], "4d52 0106 0000 0000 0000 0000 0000", /decode error bad_magic at byte 0/],
  [["encode", "{not json"], undefined, /invalid JSON/],
  [["encode", '{"packet_type":"ping","timestamp_ms":"1","typo":2}'], undefined, /packet\.typo is not a field/],
  [["encode", "-"], '{"packet_type":"entity_query","auth_token":"1","entity_id":-1}', /entity_id/],
  [[], undefined, /Usage/],
];

describe("packet tool CLI", () => {
  let decodeRuns: Run[] = [];
  let encodeRuns: Run[] = [];
  let badRuns: Run[] = [];
  let helpRun: Run;

  beforeAll(async () => {
    decodeRuns = await inBatches(cliVectors, 3, ([, bytes]) => runTool(["decode", spacedHex(bytes)]));
    encodeRuns = await inBatches(encodeIndexes, 3, (index) =>
      index === encodeIndexes[0]
        ? runTool(["encode", decodeRuns[index].stdout])
        : runTool(["encode", "-"], decodeRuns[index].stdout),
    );
    badRuns = await inBatches(badCases, 3, ([args, stdin]) => runTool(args, stdin));
    helpRun = await runTool(["--help"]);
  }, SPAWN_TIMEOUT_MS * 4);

  it("decodes the golden vector of every packet type", () => {
    expect(new Set(cliVectors.map(([, , packet]) => packet.type)).size).toBe(9);
    decodeRuns.forEach((run, index) => {
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${decodeCommand(toHex(new Uint8Array(cliVectors[index][1])))}\n`);
      expect(JSON.parse(run.stdout).packet_type).toBe(cliVectors[index][2].type);
    });
  });

  it("encodes the printed JSON back to the same hex", () => {
    encodeRuns.forEach((run, index) => {
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${toHex(new Uint8Array(cliVectors[encodeIndexes[index]][1]))}\n`);
    });
  });

  it("prints chunk tiles as 32 rows and entity TLVs by name", () => {
    const chunk = JSON.parse(decodeRuns[CHUNK].stdout);
    expect(chunk.chunk).toEqual({ chunk_id: 0x00030002, cx: 2, cy: 3, version: 9 });
    expect(chunk.palette).toEqual([5, 1]);
    expect(chunk.tile_indices.length).toBe(32);
    expect(chunk.tile_indices[0].slice(0, 5)).toEqual([1, 0, 0, 1, 0]);
    expect(chunk.tile_indices[31][31]).toBe(1);
    // One line per row keeps the output readable.
    expect(decodeRuns[CHUNK].stdout.split("\n").length).toBeLessThan(60);
    const second = JSON.parse(decodeRuns[ENTITY].stdout).entities[1];
    expect(second.entity_flags).toEqual(["is_static", "is_interactable"]);
    expect(second.meta).toEqual([
      { tag: "weapon", value: 0x0203 },
      { tag: "status_effects", value: 0x8001 },
      { tag: "name", value: "Zoë" },
      { tag: 0x20, hex: "99" },
    ]);
  });

  it("exits 2 with a message on stderr for bad input; --help exits 0", () => {
    badRuns.forEach((run, index) => {
      expect(run.code, badCases[index][0].join(" ")).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(badCases[index][2]);
    });
    expect(helpRun.code).toBe(0);
    expect(helpRun.stdout).toMatch(/packet decode <hex\|->/);
  });
});

describe("error messages (in process)", () => {
  const cases: [() => string, RegExp][] = [
    [() => decodeCommand("4c5"), /odd number of hex digits/],
    [() => decodeCommand(" \n"), /no hex digits/],
    [() => decodeCommand(`${toHex(new Uint8Array(entityBytes))}00`), /trailing_bytes at byte 65/],
    [() => encodeCommand('{"packet_type":"ping"}'), /timestamp_ms is missing/],
    [() => encodeCommand('{"packet_type":"warp"}'), /packet_type must be one of/],
    [() => encodeCommand('{"packet_type":"pong","timestamp_ms":"18446744073709551616"}'), /decimal u64/],
    [
      () => encodeCommand('{"packet_type":"action","auth_token":"1","target_tick":1,"cache":[],"player_action":"UP"}'),
      /player_action/,
    ],
    [() => encodeCommand('{"packet_type":"state","version":2}'), /version is 2 but must be 1/],
  ];
  it("name the problem", () => {
    for (const [run, message] of cases) expect(run).toThrow(message);
  });
});
