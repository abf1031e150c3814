// A client's corrections against the server's count of steps it could not take
// in the window they addressed. A step that reaches the server after its window
// is moved to a later one (or dropped), and one addressed past the server's
// horizon is dropped: the client's prediction for that window is then corrected,
// by design (docs/protocol.md). In tests whose client and server share one
// process, a starved machine makes both happen: the server's loop falls up to
// four ticks behind its timeline before it skips, while the client's clock
// follows the timeline (seen at load 10: 19 corrections, 2 steps past the
// horizon, none late). A correction with neither behind it is a bug whatever
// the load.
import { expect } from "vitest";

/** Steps the server moved or dropped as late, or dropped as past its horizon (keep-alives excepted). */
export function stepsNotTakenAsAddressed(game: {
  readonly metrics: { readonly actions: ReadonlyMap<string, number> };
}): number {
  const actions = game.metrics.actions;
  return (actions.get("late_moved") ?? 0) + (actions.get("late_dropped") ?? 0) + (actions.get("beyond_horizon") ?? 0);
}

/** No correction unless some step could not be taken as addressed; on a quiet machine, none at all. */
export function expectCorrectionsExplained(
  client: { readonly stats: { readonly corrections: number } },
  game: Parameters<typeof stepsNotTakenAsAddressed>[0],
): void {
  if (stepsNotTakenAsAddressed(game) === 0) {
    expect(client.stats.corrections, "corrections with every step taken in its window").toBe(0);
  }
}
