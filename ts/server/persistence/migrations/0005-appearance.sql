-- A character's chosen look (issue 18 item 2): an index into the player looks
-- (ts/appearance.ts; the `appearance` TLV 0x07 carries it to every client).
-- NULL: never chosen (accounts made before this migration, or a client that did
-- not say); the server then gives the look the account id picks, the same one
-- every time, so a character no longer changes colour on reconnect.
ALTER TABLE accounts ADD COLUMN appearance INTEGER CHECK (appearance BETWEEN 0 AND 255);
