// Where players may fight each other. PvP is off unless the server's --pvp flag
// or the map's `pvp` property (bool) turns it on; even then a `safe_zone`
// object keeps the tiles it covers safe (../content/safe-zones.ts reads them) —
// the bundled map's great hall is one, so a newcomer's first minute is never a
// fight they did not choose.
import type { SafeZone } from "../content/safe-zones.js";

/** Answers "may players fight here?" per tile: the switch, minus the safe zones. */
export class PvpRule {
  constructor(
    readonly enabled: boolean,
    private readonly zones: readonly SafeZone[],
  ) {}

  /** Whether a player standing on (x, y) may attack and be attacked by players. */
  allowsAt(x: number, y: number): boolean {
    return this.enabled && !this.isSafe(x, y);
  }

  /** Whether the safe zones cover (x, y) . */
  isSafe(x: number, y: number): boolean {
    for (const zone of this.zones) {
      if (x >= zone.x && y >= zone.y && x < zone.x + zone.width && y < zone.y + zone.height) return true;
    }
    return false;
  }
}
