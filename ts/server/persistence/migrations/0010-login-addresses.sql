-- The addresses each account is played from (issue 41, docs/server.md § HTTP
-- limits): the source that registered it and each source that logged into it
-- with the right password, the last 8 per account. The login limits let such an
-- address through the holds that failures from elsewhere put on an account, so
-- a guesser who knows a name cannot lock its owner out — after a restart too.
-- `address` is an address key (ts/server/edge/address-key.ts): an IPv4 address
-- or an IPv6 /64.
CREATE TABLE login_addresses (
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  address TEXT NOT NULL,
  last_login_at_ms INTEGER NOT NULL,
  PRIMARY KEY (account_id, address)
) STRICT;
