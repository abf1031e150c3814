-- Piles kept with their dungeon level (issue 15, docs/dungeons.md § Saved in a
-- level). A level is regenerated tile for tile from its seed, depth and size,
-- so a pile left in one is stored with that identity and a cell relative to
-- the level's corner (the slot it lands in next time may be another). NULL
-- level columns: a pile on a map, at world x, y, as before. While its level is
-- dropped (or after a restart, until someone goes down again) such a pile is
-- out of the world; it comes back at its cell when the level is generated again.
ALTER TABLE item_piles ADD COLUMN level_seed INTEGER;
ALTER TABLE item_piles ADD COLUMN level_depth INTEGER;
ALTER TABLE item_piles ADD COLUMN level_size INTEGER;

CREATE INDEX item_piles_by_level ON item_piles (world, level_seed, level_depth, level_size);
