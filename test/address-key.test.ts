// What one source is for the per-address limits: an IPv4 address (also when it
// arrives v4-mapped on a dual-stack socket), or an IPv6 address's /64.
import { describe, expect, it } from "vitest";
import { addressKey } from "../ts/server/edge/address-key.js";

describe("addressKey", () => {
  it("an IPv4 address is its own key, v4-mapped or not", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("::FFFF:203.0.113.7")).toBe("203.0.113.7");
  });

  it("IPv6 addresses of one /64 share a key, whatever their spelling", () => {
    const key = addressKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd");
    expect(key).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0db8:0001:0002::1")).toBe(key);
    expect(addressKey("2001:DB8:1:2::ffff")).toBe(key);
    expect(addressKey("2001:db8:1:2::1%eth0")).toBe(key);
  });

  it("different /64s differ, including ones with :: in the prefix", () => {
    expect(addressKey("2001:db8:1:3::1")).not.toBe(addressKey("2001:db8:1:2::1"));
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("fe80::1")).toBe("fe80:0:0:0::/64");
  });
});
