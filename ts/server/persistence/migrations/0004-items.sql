-- Items (issue 14, docs/items.md). Every place an item can be is a container
-- with a key: "character:<account_id>" (a bag and its two equipment slots, 250
-- weapon and 251 armor), "chest:<world>:<object id>" (a chest of the map). A
-- container's row exists once it was first written (a chest: once seeded from
-- the map), so an emptied chest is not filled again at the next start.
-- Piles on the ground are one stack each, with their tile. An item change is
-- one transaction over every row it touches: an item is never in two places,
-- nor in none, whenever the process dies.
CREATE TABLE item_containers (
  key TEXT PRIMARY KEY,
  version INTEGER NOT NULL
) STRICT;

CREATE TABLE item_stacks (
  container TEXT NOT NULL REFERENCES item_containers (key) ON DELETE CASCADE,
  slot INTEGER NOT NULL,
  item_id INTEGER NOT NULL,
  count INTEGER NOT NULL CHECK (count > 0),
  PRIMARY KEY (container, slot)
) STRICT;

CREATE TABLE item_piles (
  id INTEGER PRIMARY KEY,
  world TEXT NOT NULL,
  x INTEGER NOT NULL,
  y INTEGER NOT NULL,
  item_id INTEGER NOT NULL,
  count INTEGER NOT NULL CHECK (count > 0)
) STRICT;

CREATE INDEX item_piles_by_world ON item_piles (world);
