-- Playing together (issue 39, docs/social.md). An account's friends and the
-- accounts it ignores: one row per pair, by account, so a friend who changes
-- nothing but is offline is still found; the nick shown is the account's own.
-- And private lines to an account that was offline when they were sent: kept
-- until its player's client acknowledged them (at most a few per recipient,
-- the server refuses more), so a message is never lost to a dropped link.
CREATE TABLE friends (
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  friend_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  added_at_ms INTEGER NOT NULL,
  PRIMARY KEY (account_id, friend_id),
  CHECK (account_id <> friend_id)
) STRICT;
CREATE INDEX friends_by_friend ON friends (friend_id);

CREATE TABLE ignores (
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  ignored_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  added_at_ms INTEGER NOT NULL,
  PRIMARY KEY (account_id, ignored_id),
  CHECK (account_id <> ignored_id)
) STRICT;

CREATE TABLE mail (
  id INTEGER PRIMARY KEY,
  to_account INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  from_account INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  from_nick TEXT NOT NULL,
  text TEXT NOT NULL,
  sent_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX mail_by_recipient ON mail (to_account, id);
