-- Accounts and each account's one character (docs/persistence.md).

CREATE TABLE accounts (
  id INTEGER PRIMARY KEY,
  -- The name as registered, and its case-folded form, which is what must be unique.
  name TEXT NOT NULL,
  name_key TEXT NOT NULL UNIQUE,
  nick TEXT NOT NULL,
  -- scrypt$N$r$p$salt$hash (base64): the parameters travel with the hash.
  password_hash TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  last_login_at_ms INTEGER,
  -- NULL: not banned; otherwise the reason shown on refusal.
  banned_reason TEXT
) STRICT;

-- One row per account. Position is NULL until the first save (the character
-- has never been in the world: it gets a fresh spawn). `map` names the map the
-- position belongs to; on another map the character spawns fresh. An inventory
-- goes into its own table keyed by account_id (a later migration).
CREATE TABLE characters (
  account_id INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  map TEXT,
  x INTEGER,
  y INTEGER,
  hp INTEGER NOT NULL,
  hp_max INTEGER NOT NULL,
  elo INTEGER NOT NULL,
  saved_at_ms INTEGER NOT NULL
) STRICT;
