-- The map's doors as players left them (issue 41, docs/maps.md § Doors): open
-- or closed, locked or not, one row per door that ever changed, keyed by the
-- world and the door's world cell. Written by the characters' periodic save,
-- just before them and from the same tick, so a restart or a crash brings back
-- doors and characters as of the same moment. `drawn` is the door as the map drew it
-- (its tiles, state and key: ts/server/world/doors.ts, drawnOf): a row whose
-- door the host has since redrawn, moved or removed is not applied — the map
-- wins. A dungeon level's doors are not kept: a level comes back from its seed
-- with every door closed.
CREATE TABLE doors (
  world TEXT NOT NULL,
  x INTEGER NOT NULL,
  y INTEGER NOT NULL,
  open INTEGER NOT NULL CHECK (open IN (0, 1)),
  locked INTEGER NOT NULL CHECK (locked IN (0, 1)),
  drawn TEXT NOT NULL,
  saved_at_ms INTEGER NOT NULL,
  PRIMARY KEY (world, x, y)
) STRICT;
