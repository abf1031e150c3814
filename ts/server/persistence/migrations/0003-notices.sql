-- The notice boards' notices (docs/persistence.md): what players pinned, so the
-- next reader sees them, across restarts. `board` names the board: the map and
-- the board's object (ts/server/interactables.ts).
CREATE TABLE notices (
  id INTEGER PRIMARY KEY,
  board TEXT NOT NULL,
  author TEXT NOT NULL,
  text TEXT NOT NULL,
  posted_at_ms INTEGER NOT NULL
) STRICT;

CREATE INDEX notices_by_board ON notices (board, id);
