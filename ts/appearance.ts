// The player looks a character can choose at join (issue 18 item 2): the tunic
// colours of the sprite sheet (docs/art.md: cell 0 blue, the variants 4..7 red,
// green, purple, gold). The server keeps the choice (accounts: migration 0005;
// guests: for the session) and tells every client in the `appearance` TLV
// (0x07, docs/protocol.md § 9); the clients draw it. One list for the server's
// check, the join card's choices and the renderer's cells.

/** The looks by index, as the join card names them. */
export const PLAYER_LOOKS = ["blue", "red", "green", "purple", "gold"] as const;
export type PlayerLook = (typeof PLAYER_LOOKS)[number];
export const PLAYER_LOOK_COUNT = PLAYER_LOOKS.length;

/** Whether `value` is the index of a look. */
export function isPlayerLook(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) < PLAYER_LOOK_COUNT;
}

/**
 * A join request's `appearance` field: absent (null: the server picks) or a look's index. Anything
 * else is refused in words.
 */
export function checkAppearance(value: unknown): { ok: true; value: number | null } | { ok: false; reason: string } {
  if (value === undefined || value === null) return { ok: true, value: null };
  if (isPlayerLook(value)) return { ok: true, value };
  return {
    ok: false,
    reason: `"appearance" must be a whole number 0..${PLAYER_LOOK_COUNT - 1} (${PLAYER_LOOKS.join(", ")})`,
  };
}

/** The look of a character that never chose one: stable for an account (its id), per session for a guest. */
export function defaultLook(stableId: number): number {
  return ((stableId % PLAYER_LOOK_COUNT) + PLAYER_LOOK_COUNT) % PLAYER_LOOK_COUNT;
}
