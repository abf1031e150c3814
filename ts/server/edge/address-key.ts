// What "one source" means for a per-address limit. An IPv4 client of a
// dual-stack socket shows up as ::ffff:a.b.c.d and is that IPv4 address. An
// IPv6 host usually owns a whole /64 (SLAAC, privacy addresses), so a limit
// keyed by the full address would give one attacker 2^64 fresh budgets:
// IPv6 sources are keyed by their /64.

/** The key a per-address limit counts `address` under: the IPv4 address, or an IPv6 address's /64 prefix. */
export function addressKey(address: string): string {
  if (!address.includes(":")) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  const bare = address.split("%")[0].toLowerCase(); // a zone index names an interface, not a host
  const [head, tail = ""] = bare.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = bare.includes("::") ? (tail === "" ? [] : tail.split(":")) : [];
  const groups = bare.includes("::")
    ? [
        ...headGroups,
        ...new Array<string>(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill("0"),
        ...tailGroups,
      ]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, "") || "0")
    .join(":")}::/64`;
}
