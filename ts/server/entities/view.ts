// How far a player sees and hears: the view square the broadcast sends and the
// radius within which joins and leaves are announced.
import { VIEW_TILES } from "../../constants.js";

/** Half the view square: entities within this Chebyshev distance are sent (31×31 around the player). */
export const VIEW_RADIUS = VIEW_TILES / 2;

/** Joins and leaves are announced to players within this many tiles: about the 3×3 chunks a client holds. */
export const NOTICE_RADIUS = 48;

/**
 * The most entities one view sends: in a crowd, the nearest this many (docs/protocol.md § 8.3). With
 * 100,000 creatures among 2000 players (~100 in each view) the per-view work — the list, its checksum,
 * its delta — was most of the tick; the cap bounds it however dense the world gets. 64 entries of 18
 * bytes fit one EntityPacket (66 do), so a crowded seed view is one datagram unless its entries carry meta.
 */
export const VIEW_ENTITIES_MAX = 64;
