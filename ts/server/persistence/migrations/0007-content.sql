-- Content scripts (issue 38, docs/content.md). A character's quests: one row
-- per quest it has started, with its state (active, ready to hand in, done)
-- and its progress toward the quest's goal; written in the same turn it
-- changes, before the player is told, so a quest step is never lost by a
-- restart. And the world's values a script keeps across restarts and reloads
-- (a shop's stock): one row per key, its value JSON.
CREATE TABLE character_quests (
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  quest TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('active', 'ready', 'done')),
  progress INTEGER NOT NULL CHECK (progress >= 0),
  PRIMARY KEY (account_id, quest)
) STRICT;

CREATE TABLE world_values (
  world TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (world, key)
) STRICT;
