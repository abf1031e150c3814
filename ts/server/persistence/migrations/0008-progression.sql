-- A character that grows (issue 39, docs/combat.md § Experience and levels): the
-- experience it has gathered, from which its level (and so its hp_max) follows
-- by the curve of ts/progression.ts. Saved with the rest of the character, under
-- the same guarantee; a quest's experience in the transaction that hands the
-- quest in. Every character made before it starts at 0: level 1, as it was.
ALTER TABLE characters ADD COLUMN xp INTEGER NOT NULL DEFAULT 0 CHECK (xp >= 0);
