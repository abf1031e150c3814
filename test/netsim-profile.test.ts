import { describe, expect, it } from "vitest";
import { UsageError } from "../ts/cli/command-line.js";
import { parseHostPort, parseProxyArgs } from "../ts/netsim/cli-args.js";
import {
  formatProfile,
  isPerfectLink,
  parseProfileSpec,
  parseSeed,
  PERFECT_DUPLEX,
  ProfileError,
  profileFromSettings,
} from "../ts/netsim/profile.js";
import { deriveSeed, SeededRandom } from "../ts/netsim/rng.js";
import { formatStatusLine } from "../ts/netsim/status-line.js";

describe("profile spec strings", () => {
  it("applies base settings to both directions", () => {
    const { profile, seed } = parseProfileSpec("delay=80,jitter=30,loss=5,dup=2");
    const link = { delayMs: 80, jitterMs: 30, lossPercent: 5, duplicatePercent: 2 };
    expect(profile).toEqual({ up: link, down: link });
    expect(seed).toBeUndefined();
  });

  it("lets up-/down- settings override the base whatever their order, and reads a seed", () => {
    const { profile, seed } = parseProfileSpec(" up-delay=100 , delay=20, down-loss=12.5,seed=42,");
    expect(profile.up).toEqual({ delayMs: 100, jitterMs: 0, lossPercent: 0, duplicatePercent: 0 });
    expect(profile.down).toEqual({ delayMs: 20, jitterMs: 0, lossPercent: 12.5, duplicatePercent: 0 });
    expect(seed).toBe(42);
  });

  it("reads an empty spec as a perfect link", () => {
    const { profile } = parseProfileSpec("");
    expect(profile).toEqual(PERFECT_DUPLEX);
    expect(isPerfectLink(profile.up)).toBe(true);
  });

  it.each([
    ["delay=-5", /delay must be a number from 0 to 60000/],
    ["loss=101", /loss must be a number from 0 to 100/],
    ["dup=abc", /dup must be/],
    ["delay=80ms", /delay must be/],
    ["delay=", /delay must be/],
    ["latency=80", /unknown setting "latency"/],
    ["sideways-delay=1", /unknown setting/],
    ["delay", /not name=value/],
    ["seed=-1", /seed must be an integer/],
    ["seed=4294967296", /seed must be an integer/],
  ])("rejects %s", (spec, message) => {
    expect(() => parseProfileSpec(spec)).toThrow(ProfileError);
    expect(() => parseProfileSpec(spec)).toThrow(message);
  });

  it("formats profiles so they parse back equal", () => {
    const symmetric = parseProfileSpec("delay=80,jitter=30,loss=5,dup=2").profile;
    expect(formatProfile(symmetric)).toBe("delay=80,jitter=30,loss=5,dup=2");
    const asymmetric = profileFromSettings([
      ["delay", "10"],
      ["up-loss", "3"],
    ]);
    expect(parseProfileSpec(formatProfile(asymmetric)).profile).toEqual(asymmetric);
    expect(formatProfile(asymmetric)).toContain("up-loss=3");
  });

  it("parses seeds strictly", () => {
    expect(parseSeed("0")).toBe(0);
    expect(parseSeed("4294967295")).toBe(4294967295);
    expect(() => parseSeed("1.5")).toThrow(ProfileError);
  });
});

describe("proxy command line", () => {
  it("uses the documented defaults", () => {
    expect(parseProxyArgs([])).toEqual({
      kind: "run",
      options: {
        listen: { host: "127.0.0.1", port: 7778 },
        server: { host: "127.0.0.1", port: 7777 },
        profile: PERFECT_DUPLEX,
        seed: undefined,
        idleTimeoutMs: 30_000,
        maxClients: 256,
        showStatus: true,
      },
    });
  });

  it("reads profile flags in both --name value and --name=value forms, per direction", () => {
    const command = parseProxyArgs([
      "--delay",
      "80",
      "--jitter=30",
      "--loss",
      "5",
      "--up-delay",
      "120",
      "--down-dup=2",
      "--listen",
      "127.0.0.1:0",
      "--server=[::1]:9000",
      "--seed",
      "7",
      "--idle-ms",
      "500",
      "--max-clients",
      "3",
      "--quiet",
    ]);
    expect(command.kind).toBe("run");
    if (command.kind !== "run") return;
    expect(command.options.profile.up).toEqual({ delayMs: 120, jitterMs: 30, lossPercent: 5, duplicatePercent: 0 });
    expect(command.options.profile.down).toEqual({ delayMs: 80, jitterMs: 30, lossPercent: 5, duplicatePercent: 2 });
    expect(command.options).toMatchObject({
      listen: { host: "127.0.0.1", port: 0 },
      server: { host: "::1", port: 9000 },
      seed: 7,
      idleTimeoutMs: 500,
      maxClients: 3,
      showStatus: false,
    });
  });

  it("merges --profile with flags, later flags overriding setting by setting", () => {
    const command = parseProxyArgs(["--profile", "delay=50,loss=5,seed=3", "--loss", "9"]);
    if (command.kind !== "run") throw new Error("expected a run command");
    expect(command.options.profile.up).toEqual({ delayMs: 50, jitterMs: 0, lossPercent: 9, duplicatePercent: 0 });
    expect(command.options.seed).toBe(3);
  });

  it("answers --help and -h", () => {
    expect(parseProxyArgs(["--delay", "5", "--help"])).toEqual({ kind: "help" });
    expect(parseProxyArgs(["-h"])).toEqual({ kind: "help" });
  });

  it.each([
    [["--delay"], /--delay needs a value/],
    [["--delay", "--loss", "5"], /--delay needs a value/],
    [["--loss", "150"], /loss must be a number from 0 to 100/],
    [["--frobnicate"], /unknown option --frobnicate/],
    [["7778"], /unexpected argument "7778"/],
    [["--listen", "nowhere"], /--listen must be HOST:PORT/],
    [["--server", "127.0.0.1:0"], /--server port must be 1 to 65535/],
    [["--listen", "127.0.0.1:70000"], /--listen port/],
    [["--max-clients", "0"], /--max-clients must be a positive integer/],
    [["--quiet=yes"], /--quiet takes no value/],
    [["--seed", "x"], /seed must be an integer/],
  ])("rejects %j", (argv, message) => {
    expect(() => parseProxyArgs(argv)).toThrow(UsageError);
    expect(() => parseProxyArgs(argv)).toThrow(message);
  });

  it("parses host:port forms", () => {
    expect(parseHostPort("10.0.0.2:7777", "x", false)).toEqual({ host: "10.0.0.2", port: 7777 });
    expect(parseHostPort("[::1]:7777", "x", false)).toEqual({ host: "::1", port: 7777 });
    expect(parseHostPort(":7777", "x", false)).toEqual({ host: "127.0.0.1", port: 7777 });
    expect(parseHostPort("7777", "x", false)).toEqual({ host: "127.0.0.1", port: 7777 });
    expect(parseHostPort("localhost:0", "x", true)).toEqual({ host: "localhost", port: 0 });
  });
});

describe("seeded random numbers", () => {
  it("repeats a stream for a seed and differs between seeds", () => {
    const take = (seed: number) => {
      const random = new SeededRandom(seed);
      return Array.from({ length: 8 }, () => random.nextUint32());
    };
    expect(take(5)).toEqual(take(5));
    expect(take(5)).not.toEqual(take(6));
  });

  it("spreads floats evenly over [0, 1)", () => {
    const random = new SeededRandom(123);
    const buckets = new Array<number>(10).fill(0);
    let outOfRange = 0;
    for (let i = 0; i < 100_000; i++) {
      const value = random.nextFloat();
      if (!(value >= 0 && value < 1)) outOfRange++;
      else buckets[Math.floor(value * 10)]++;
    }
    expect(outOfRange).toBe(0);
    // Each bucket expects 10,000 with a standard deviation of about 95.
    for (const count of buckets) expect(Math.abs(count - 10_000)).toBeLessThan(500);
  });

  it("derives distinct, repeatable stream seeds", () => {
    const seeds = new Set<number>();
    for (let client = 0; client < 100; client++) {
      seeds.add(deriveSeed(1, client, "up"));
      seeds.add(deriveSeed(1, client, "down"));
    }
    expect(seeds.size).toBe(200);
    expect(deriveSeed(1, 3, "up")).toBe(deriveSeed(1, 3, "up"));
    expect(deriveSeed(1, 3, "up")).not.toBe(deriveSeed(2, 3, "up"));
  });
});

describe("status line", () => {
  it("shows per-direction counts and only the problems that occurred", () => {
    const link = { received: 10, forwarded: 9, dropped: 1, duplicated: 0, overflowed: 0, queued: 0, queuedBytes: 0 };
    const counts = {
      up: link,
      down: { ...link, overflowed: 3 },
      clients: 2,
      clientsOpened: 2,
      clientsExpired: 0,
      clientsRejected: 0,
      strayDatagrams: 0,
      sendErrors: 0,
    };
    expect(formatStatusLine(counts)).toBe(
      "up fwd 9 drop 1 dup 0 queued 0 | down fwd 9 drop 1 dup 0 queued 0 overflow 3 | clients 2",
    );
    expect(formatStatusLine({ ...counts, clientsRejected: 4 })).toMatch(/\| rejected 4$/);
  });
});
