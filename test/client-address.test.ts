// The rule of edge/client-address.ts alone: parsing --trusted-proxy, matching ranges, and which
// X-Forwarded-For entry names the client (the right-most that is not a trusted proxy).
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { ClientAddresses, forwardedEntry, parseTrustedProxy } from "../ts/server/edge/client-address.js";

/** A request as the rule sees it: the TCP peer and the X-Forwarded-For header(s). */
function request(peer: string, forwardedFor?: string | string[]): IncomingMessage {
  const headers = forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor };
  return { socket: { remoteAddress: peer }, headers } as unknown as IncomingMessage;
}

function trusting(...ranges: string[]): ClientAddresses {
  return new ClientAddresses(ranges.map(parseTrustedProxy));
}

describe("parseTrustedProxy", () => {
  it("reads an address with or without a prefix", () => {
    expect(parseTrustedProxy("127.0.0.1")).toEqual({ address: "127.0.0.1", prefix: 32, family: "ipv4" });
    expect(parseTrustedProxy("10.0.0.0/8")).toEqual({ address: "10.0.0.0", prefix: 8, family: "ipv4" });
    expect(parseTrustedProxy("::1")).toEqual({ address: "::1", prefix: 128, family: "ipv6" });
    expect(parseTrustedProxy("fd00::/8")).toEqual({ address: "fd00::", prefix: 8, family: "ipv6" });
  });

  it("refuses what is not an address, a prefix out of range and anything extra", () => {
    for (const bad of [
      "",
      "proxy.example",
      "10.0.0.0/33",
      "10.0.0.0/",
      "10.0.0.0/-1",
      "::/129",
      "1.2.3.4/8/8",
      "10/8",
    ]) {
      expect(() => parseTrustedProxy(bad), bad).toThrow(/trusted proxy/);
    }
  });
});

describe("ClientAddresses.isTrusted", () => {
  it("matches ranges, including an IPv4 proxy seen v4-mapped on a dual-stack socket", () => {
    const rule = trusting("10.0.0.0/8", "127.0.0.1", "2001:db8:1::/48");
    expect(rule.isTrusted("10.255.1.2")).toBe(true);
    expect(rule.isTrusted("11.0.0.1")).toBe(false);
    expect(rule.isTrusted("127.0.0.1")).toBe(true);
    expect(rule.isTrusted("127.0.0.2")).toBe(false);
    expect(rule.isTrusted("::ffff:10.1.1.1")).toBe(true);
    expect(rule.isTrusted("2001:db8:1:ffff::9")).toBe(true);
    expect(rule.isTrusted("2001:db8:2::9")).toBe(false);
    expect(rule.isTrusted("")).toBe(false);
  });

  it("trusts nothing by default", () => {
    expect(new ClientAddresses().isTrusted("127.0.0.1")).toBe(false);
  });
});

describe("forwardedEntry", () => {
  it("reads bare addresses, bracketed IPv6 and an address with a port", () => {
    expect(forwardedEntry(" 203.0.113.5 ")).toBe("203.0.113.5");
    expect(forwardedEntry("2001:db8::5")).toBe("2001:db8::5");
    expect(forwardedEntry("[2001:db8::5]")).toBe("2001:db8::5");
    expect(forwardedEntry("[2001:db8::5]:4711")).toBe("2001:db8::5");
    expect(forwardedEntry("203.0.113.5:4711")).toBe("203.0.113.5");
  });

  it("is null for anything else", () => {
    for (const bad of ["", "unknown", "_hidden", "203.0.113", "[203.0.113.5]", "2001:db8::5:4711x", "a b"]) {
      expect(forwardedEntry(bad), bad).toBeNull();
    }
  });
});

describe("ClientAddresses.of", () => {
  const rule = trusting("127.0.0.1", "10.0.0.0/8");

  it("an untrusted peer is the client, whatever it claims", () => {
    expect(rule.of(request("198.51.100.1", "203.0.113.9"))).toBe("198.51.100.1");
  });

  it("a trusted peer without the header is the client", () => {
    expect(rule.of(request("127.0.0.1"))).toBe("127.0.0.1");
    expect(rule.of(request("127.0.0.1", "  "))).toBe("127.0.0.1");
  });

  it("takes the right-most entry that is not a trusted proxy", () => {
    expect(rule.of(request("127.0.0.1", "203.0.113.9"))).toBe("203.0.113.9");
    expect(rule.of(request("127.0.0.1", "1.1.1.1, 203.0.113.9, 10.0.0.2"))).toBe("203.0.113.9");
    expect(rule.of(request("::ffff:127.0.0.1", "203.0.113.9, 10.0.0.2"))).toBe("203.0.113.9");
  });

  it("reads repeated headers in order, and garbage left of the client is the client's own business", () => {
    expect(rule.of(request("127.0.0.1", ["1.1.1.1", "203.0.113.9, 10.0.0.2"]))).toBe("203.0.113.9");
    expect(rule.of(request("127.0.0.1", "<script>, 203.0.113.9"))).toBe("203.0.113.9");
  });

  it("when every entry is a trusted proxy, the left-most (the furthest known hop) is the client", () => {
    expect(rule.of(request("127.0.0.1", "10.0.0.3, 10.0.0.2"))).toBe("10.0.0.3");
  });

  it("falls back to the peer on a malformed entry it must read, and reports only the first", () => {
    const reports: Record<string, unknown>[] = [];
    const counted = new ClientAddresses([parseTrustedProxy("127.0.0.1")], (fields) => reports.push(fields));
    expect(counted.of(request("127.0.0.1", "203.0.113.9, bogus"))).toBe("127.0.0.1");
    expect(counted.of(request("127.0.0.1", "203.0.113.9,"))).toBe("127.0.0.1");
    expect(counted.malformed).toBe(2);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ peer: "127.0.0.1", header: "203.0.113.9, bogus" });
  });

  it("answers a request asked about twice once (a malformed one is counted once)", () => {
    const once = trusting("127.0.0.1");
    const req = request("127.0.0.1", "bogus");
    once.of(req);
    once.of(req);
    expect(once.malformed).toBe(1);
  });
});
