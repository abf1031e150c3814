-- What operators do (docs/server.md § Admin): bans with an expiry, of accounts
-- and of addresses, and the log of every admin action.

-- NULL with banned_reason set: banned for good; otherwise the ban ends then.
ALTER TABLE accounts ADD COLUMN banned_until_ms INTEGER;

-- `address` is the per-address key of address-key.ts: an IPv4 address, or an
-- IPv6 /64 ("2001:db8:1:2::/64"), so one host cannot dodge its ban by hopping
-- within its prefix.
CREATE TABLE address_bans (
  address TEXT PRIMARY KEY,
  reason TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  until_ms INTEGER
) STRICT;

CREATE TABLE admin_log (
  id INTEGER PRIMARY KEY,
  at_ms INTEGER NOT NULL,
  action TEXT NOT NULL,
  -- JSON: the request as the operator gave it, and what it did.
  detail TEXT NOT NULL
) STRICT;
