// How far a player sees and hears: the view square the broadcast sends and the
// radius within which joins and leaves are announced.
import { VIEW_TILES } from "../../constants.js";

/** Half the view square: entities within this Chebyshev distance are sent (31×31 around the player). */
export const VIEW_RADIUS = VIEW_TILES / 2;

/** Joins and leaves are announced to players within this many tiles: about the 3×3 chunks a client holds. */
export const NOTICE_RADIUS = 48;
