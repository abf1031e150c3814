// The bots' pure parts: command line, figures, and the
// rule that bots add no networking of their own (they drive the shared core).
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { UsageError } from "../cli/command-line.js";
import { parseBotArgs, USAGE } from "./cli-args.js";
import { DIALOG_RETURN_DISMISSED } from "../protocol/dialog.js";
import { ENTITY_FLAG_HOSTILE, ENTITY_FLAG_INTERACTABLE, ENTITY_FLAG_STATIC } from "../protocol/entity.js";
import { dialogChoice, dialogValues, isTalker, nearestTalker, within } from "./talk.js";
import {
  DurationHistogram,
  formatLive,
  formatProgress,
  formatSummary,
  type LiveFigures,
  percentile,
  percentiles,
} from "./figures.js";

function run(argv: string[]) {
  const command = parseBotArgs(argv);
  if (command.kind !== "run") throw new Error("expected a run");
  return command.options;
}

describe("command line", () => {
  it("has defaults for everything", () => {
    expect(run([])).toEqual({
      count: 10,
      server: null,
      http: "http://127.0.0.1:8080",
      behaviour: "wander",
      durationS: 60,
      netsim: null,
      seed: undefined,
      goal: null,
      nickPrefix: "bot",
      joinParallel: 8,
      updateMs: 10,
    });
    expect(parseBotArgs(["--count", "3", "--help"])).toEqual({ kind: "help" });
    expect(USAGE).toContain("--behaviour NAME");
    expect(run(["--behaviour", "talk"]).behaviour).toBe("talk");
    expect(USAGE).toContain("talk      walk up to the nearest creature a content script talks for");
  });

  it("reads the documented example, in both flag spellings", () => {
    const options = run([
      "--count=200",
      "--server",
      "127.0.0.1:7778",
      "--http",
      "http://127.0.0.1:8080/",
      "--behaviour",
      "goto",
      "--goal=40,12",
      "--duration",
      "60",
      "--netsim",
      "delay=80,jitter=30,loss=5,seed=9",
    ]);
    expect(options).toMatchObject({
      count: 200,
      server: { host: "127.0.0.1", port: 7778 },
      http: "http://127.0.0.1:8080",
      behaviour: "goto",
      goal: { x: 40, y: 12 },
      durationS: 60,
      seed: 9,
    });
    expect(options.netsim!.up).toEqual({ delayMs: 80, jitterMs: 30, lossPercent: 5, duplicatePercent: 0 });
    expect(options.netsim!.down).toEqual(options.netsim!.up);
    expect(run(["--netsim", "loss=1,seed=9", "--seed", "4"]).seed).toBe(4); // --seed wins over the spec's
  });

  it.each([
    [["--count", "0"], "--count must be an integer 1..1000"],
    [["--count", "ten"], "--count must be an integer"],
    [["--behaviour", "dance"], "--behaviour must be one of wander, goto, keyboard"],
    [["--server", "localhost"], "--server must be HOST:PORT"],
    [["--http", "ftp://x"], "--http must be an http:// or https:// URL"],
    [["--http", "nope"], "--http must be a URL"],
    [["--netsim", "loss=250"], "--netsim: loss must be a number from 0 to 100"],
    [["--goal", "3"], "--goal must be X,Y"],
    [["--goal", "3,4"], "--goal only applies to --behaviour goto"],
    [["--nick", "a-name-far-too-long"], "--nick must be 1-10"],
    [["--duration"], "--duration needs a value"],
    [["--colour", "red"], "unknown option --colour"],
    [["200"], 'unexpected argument "200"'],
  ])("rejects %j", (argv, message) => {
    expect(() => parseBotArgs(argv)).toThrow(UsageError);
    expect(() => parseBotArgs(argv)).toThrow(message);
  });
});

describe("talking", () => {
  const button = (returnCode: number, label = "") =>
    ({ kind: "button", x: 0, y: 0, width: 10, height: 10, returnCode, label }) as const;
  const text = (value: string) => ({ kind: "text", x: 0, y: 0, width: 10, height: 10, text: value }) as const;
  const input = (value: string) =>
    ({ kind: "text_input", x: 0, y: 0, width: 10, height: 10, maxBytes: 20, text: value }) as const;

  it("talks to living creatures a script talks for, nothing else", () => {
    expect(isTalker(18, 30, ENTITY_FLAG_INTERACTABLE)).toBe(true);
    expect(isTalker(18, 30, ENTITY_FLAG_INTERACTABLE | ENTITY_FLAG_HOSTILE)).toBe(true);
    expect(isTalker(18, 0, ENTITY_FLAG_INTERACTABLE)).toBe(false); // dead
    expect(isTalker(18, 30, 0)).toBe(false); // a creature no script talks for: fought, not talked to
    expect(isTalker(3, 0, ENTITY_FLAG_INTERACTABLE | ENTITY_FLAG_STATIC)).toBe(false); // a sign
  });

  it("presses each button alike, skipping text; dismisses a dialog without one", () => {
    const elements = [text("Hello"), button(1, "News"), text("or"), button(2, "Work"), button(7, "Bye")];
    expect([0, 0.3, 0.34, 0.5, 0.67, 0.99].map((random) => dialogChoice(elements, random))).toEqual([1, 1, 2, 2, 7, 7]);
    expect(dialogChoice([text("Just words")], 0.5)).toBe(DIALOG_RETURN_DISMISSED);
    expect(dialogValues([input("a"), button(1), input("")])).toEqual(["a", ""]);
    expect(within({ min: 300, max: 1200 }, 0)).toBe(300);
    expect(within({ min: 300, max: 1200 }, 0.5)).toBe(750);
  });

  it("picks the nearest creature to talk to, another than the last unless it is the only one", () => {
    const talker = (id: number, x: number, y: number, flags = ENTITY_FLAG_INTERACTABLE, hp = 30) => ({
      id,
      typeId: 18,
      hp,
      flags,
      x,
      y,
    });
    const entities = [talker(1, 10, 10, 0), talker(2, 14, 9), talker(3, 7, 7), talker(4, 11, 11, undefined, 0)];
    expect(nearestTalker(entities, { x: 10, y: 10 })?.id).toBe(3); // 3 tiles (2 is 4; 1 no talker, 4 dead)
    expect(nearestTalker(entities, { x: 10, y: 10 }, 3)?.id).toBe(2);
    expect(nearestTalker([talker(5, 0, 0)], { x: 10, y: 10 }, 5)?.id).toBe(5);
    expect(nearestTalker([talker(6, 12, 8), talker(7, 8, 12)], { x: 10, y: 10 })?.id).toBe(6); // the first of equals
    expect(nearestTalker([talker(1, 10, 10, 0)], { x: 10, y: 10 })).toBeNull();
  });
});

describe("figures", () => {
  it("percentiles by nearest rank", () => {
    expect(percentile([], 50)).toBeNaN();
    expect(percentile([7], 99)).toBe(7);
    const hundred = Array.from({ length: 100 }, (_, index) => 100 - index); // 100..1, unsorted on purpose
    expect(percentiles(hundred)).toEqual({ p50: 50, p90: 90, p99: 99 });
  });

  it("a run-long histogram gives percentiles to 0.1 ms in fixed memory", () => {
    const histogram = new DurationHistogram();
    expect(histogram.percentile(50)).toBeNaN();
    for (let index = 1; index <= 1000; index++) histogram.add(index / 100); // 0.01 .. 10 ms
    expect(histogram.percentiles()).toEqual({ p50: 5, p90: 9, p99: 9.9 });
    histogram.add(60_000); // beyond 10 s: counted in the last bucket
    expect(histogram.percentile(100)).toBe(10_000);
  });

  const live: LiveFigures = {
    elapsedS: 12.2,
    joined: 200,
    wanted: 200,
    joinFailures: 0,
    playing: 199,
    moving: 143,
    rttMs: { p50: 3, p90: 5.4, p99: 12 },
    corrections: 4,
    replans: 5,
    replansPerMinute: 25,
    chunkRetransmits: 1,
    reconnects: 0,
    goalsReached: 321,
    datagramsInPerSecond: 4000,
    datagramsOutPerSecond: 1300,
    roundMs: { p50: 0.5, p90: 1, p99: 2.25 },
    lateMs: { p50: 0, p90: 1, p99: 3 },
  };

  it("a live line names every figure the issue asks for", () => {
    expect(formatLive(live)).toBe(
      "12s joined 200/200 playing 199 moving 143 | rtt p50 3 p90 5 p99 12 ms | corrections 4 | " +
        "replans 5 (25/min) | chunk retransmits 1 | goals 321 | loop 2.3 ms late 3.0 ms",
    );
    expect(formatLive({ ...live, reconnects: 2, joinFailures: 1, rttMs: percentiles([]) })).toContain(
      "rtt p50 - p90 - p99 - ms | corrections 4",
    );
    expect(formatProgress({ joined: 57, failed: 0, wanted: 200, lastError: "" })).toBe("joining 57/200");
    expect(formatProgress({ joined: 57, failed: 2, wanted: 200, lastError: "join: server full" })).toBe(
      "joining 57/200 (failed 2: join: server full)",
    );
  });

  it("a summary reports movement, prediction, traffic, loop and memory", () => {
    const text = formatSummary({
      live,
      datagramsOut: 3500,
      pingsSent: 600,
      queriesSent: 400,
      chatAcksSent: 300,
      retractions: 10,
      stepsSent: 2000,
      goalsSet: 330,
      goalsAbandoned: 2,
      maxReplansPerGoal: 1,
      disconnects: 0,
      decodeErrors: 0,
      wasmMiBPerBot: 2,
      rssMiBPerBot: 0.55,
      rssMiB: 230,
      runRoundMs: { p50: 0.4, p90: 1.2, p99: 3.5 },
      runLateMs: { p50: 0, p90: 0.5, p99: 2 },
    });
    expect(text).toContain("200 joined of 200 (0 failed)");
    expect(text).toContain("2000 steps sent (10.0 per bot), goals 330 set, 321 reached, 2 abandoned");
    expect(text).toContain("4 corrections, 5 replans (25/min over the last minute), at most 1 replans for one goal");
    expect(text).toContain("2.0 MiB wasm per bot, 0.55 MiB RSS per bot");
    expect(text).toContain("round p50 0.4 p90 1.2 p99 3.5 ms, timer late p50 0.0 p90 0.5 p99 2.0 ms (whole run");
    expect(text).toContain(
      "3500 datagrams: 2000 steps, 10 retractions, 600 pings, 400 name queries, 300 chat acks, 190 cache acks",
    );
  });
});

describe("one client core", () => {
  it("bots only give input to the shared core: no wire encoding, prediction or routing of their own", () => {
    const folder = fileURLToPath(new URL(".", import.meta.url));
    const sources = readdirSync(folder).filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"));
    expect(sources).toContain("swarm.ts");
    for (const name of sources) {
      const source = readFileSync(`${folder}/${name}`, "utf8");
      expect(source, name).not.toMatch(/\bencode[A-Z]\w*\(|sendDatagram|\.replay\(|\.astar\(/);
      expect(source, name).not.toMatch(/from "\.\.\/client\/core\/(?!index\.js)/);
    }
  });
});
