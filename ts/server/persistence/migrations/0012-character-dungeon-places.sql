-- Where in a dungeon level a character was saved (issue 41, docs/dungeons.md §
-- Saved in a level): the level's identity — its seed, depth and size, what
-- regenerates it tile for tile — and the cell relative to its corner (the slot
-- it lands in next time may be another). x, y stay the map's stairs down the
-- level was reached by: where it comes back when the level cannot (the world's
-- stairs or dungeon seed changed) and what a server before this migration reads.
-- NULL dungeon columns: the character stands on a map, at x, y.
ALTER TABLE characters ADD COLUMN dungeon_seed INTEGER;
ALTER TABLE characters ADD COLUMN dungeon_depth INTEGER;
ALTER TABLE characters ADD COLUMN dungeon_size INTEGER;
ALTER TABLE characters ADD COLUMN dungeon_x INTEGER;
ALTER TABLE characters ADD COLUMN dungeon_y INTEGER;
