// The interface's colours, as RGB332 bytes (rrrgggbb) chosen from the art's
// palette (docs/art.md) so HUD and world read as one picture.

/** Where no tile is known yet: the cave's darkness. */
export const UNKNOWN_DARK = 0x00;
/** HUD panel: background, its left edge, divider lines. */
export const PANEL_BACKGROUND = 0x01;
export const PANEL_EDGE = 0x49;
export const PANEL_DIVIDER = 0x25;
/** Text. */
export const TEXT_WHITE = 0xff;
export const TEXT_DIM = 0x92;
export const TEXT_GOLD = 0xf8;
export const TEXT_GOOD = 0x9d;
export const TEXT_WARN = 0xf0;
export const TEXT_BAD = 0xe4;
export const TEXT_SHADOW = 0x01;
/** Health bar: filled and empty part, and its frame. */
export const HP_FILL = 0xc4;
export const HP_EMPTY = 0x44;
export const HP_FRAME = 0x01;
/** Click-to-move: steps already sent (in flight) bright, the planned rest dim. */
export const ROUTE_PENDING = 0x7f;
export const ROUTE_PLANNED = 0x2f;
export const ROUTE_GOAL = 0x7f;
/** The frame under a hostile entity: the brightest red, which none of the art uses (docs/art.md). */
export const HOSTILE_MARK = 0xe4;
/** The tile under the mouse pointer. */
export const CURSOR_OUTLINE = 0xb6;
/** Banner over the viewport (e.g. while reconnecting). */
export const BANNER_BACKGROUND = 0x01;
export const BANNER_EDGE = 0xf0;
/** Chat in the message log: players' lines, the system's, and our own lines the server refused. */
export const CHAT_PLAYER = 0xdb;
export const CHAT_SYSTEM = 0x9d;
export const CHAT_PROBLEM = 0xf0;
/** Labels over entities (names on hover, the interaction prompt). */
export const LABEL_BACKGROUND = 0x01;
export const LABEL_NAME = 0xff;
export const LABEL_PROMPT = 0xf8;
