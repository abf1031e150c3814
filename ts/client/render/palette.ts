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
/** Private lines (to and from the player) and the party channel (issue 39): apart from the crowd's chat. */
export const CHAT_PRIVATE = 0xe7;
export const CHAT_PARTY = 0x5f;
/** The server's "X joined" / "X left" lines (the log's presence channel): quiet. */
export const CHAT_PRESENCE = 0x92;
/** Labels over entities (names on hover, the interaction prompt). */
export const LABEL_BACKGROUND = 0x01;
export const LABEL_NAME = 0xff;
export const LABEL_PROMPT = 0xf8;
/** Names over heads (render/name-tags.ts): other players pale blue-white, the own name gold. */
export const NAME_TAG = 0xdb;
export const NAME_TAG_OWN = 0xf8;
/** Combat (issue 13): floating numbers and log lines for blows dealt, taken, missed, kills and the own death. */
export const COMBAT_DEALT = 0xfc;
export const COMBAT_TAKEN = 0xe4;
export const COMBAT_QUIET = 0x92;
export const COMBAT_KILL = 0x9d;
export const COMBAT_DEATH = 0xf0;
/** Damage numbers over entities in fights this player has no part in. */
export const COMBAT_OTHER = 0xff;
/** "miss" over the one missed: pale, apart from the numbers. */
export const COMBAT_MISS = 0xdf;
/** A struck sprite's flash, and a corpse's grey (a grey none of the art uses, docs/art.md, so a corpse is told apart). */
export const HIT_FLASH = 0xff;
export const CORPSE_GREY = 0x93;
/** The small HP bar over a damaged entity. */
export const ENTITY_HP_FILL = 0x1c;
export const ENTITY_HP_LOW = 0xe4;
export const ENTITY_HP_EMPTY = 0x24;
/** The pointer's outline over something a click attacks. */
export const ATTACK_OUTLINE = 0xe4;
/** The log's tabs: the one shown, the other, and the other with lines not yet seen. */
export const TAB_ACTIVE = 0xfd;
export const TAB_IDLE = 0x6e;
export const TAB_UNREAD = 0xf4;
/** The HUD's HP numbers beside the bar. */
export const HP_TEXT = 0xb7;
/** The HUD's experience bar (issue 39) under the HP bar: gold filled, dark gold empty; the level beside the name. */
export const XP_FILL = 0xf4;
export const XP_EMPTY = 0x48;
export const LEVEL_TEXT = 0xdb;
/** The log's line for a level reached. */
export const LEVEL_UP = 0xfc;
