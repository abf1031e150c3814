// Entity deltas when the downlink is later than the server's baseline ring is long (docs/protocol.md § 8.4):
// with 1.5 s (± 0.4 s) on the way down, every acknowledgement names a list sent more than a second before,
// which the ring of 12 broadcasts no longer holds. The server must go on writing against what it still has
// (the last baseline it knew, the empty list at worst) rather than against a list the client may lack, and
// the client must converge all the same. Two headless clients over real UDP to the real server, each with
// its downlink impaired by netsim, walk apart (out of each other's view) and back through each other; each
// must end up seeing the other where the server has it. Both delta forms run at once; the seed's packets
// on slow links are convergence.test.ts's.
import { describe, expect, it } from "vitest";
import type { GameClient } from "../ts/client/core/index.js";
import { PERFECT_DUPLEX, parseProfileSpec } from "../ts/netsim/index.js";
import { BASELINES_KEPT } from "../ts/server/sessions/entity-baselines.js";
import {
  CROSSING,
  driveFor,
  driveUntil,
  formatWalk,
  joinCourse,
  serverPosition,
  walkTogether,
  Watch,
  CourseServer,
} from "./convergence-support.js";

const course = new CourseServer();

/** The downlink: a one-way delay longer than the ring's second (BASELINES_KEPT broadcasts at 12 Hz). */
const LATE = "down-delay=1500,down-jitter=400";
/** A chunk arrives a one-way delay (and jitter) after the crossing that asked for it: 2 s plus that. */
const NEIGHBOURHOOD_DEADLINE_MS = 4000;

describe.concurrent(`entity deltas on a downlink of ${LATE}`, () => {
  const FORMS = [
    { name: "compact deltas (P-25)", tag: "c", compactDeltas: true },
    { name: "P-21 deltas", tag: "f", compactDeltas: false },
  ];
  // Late from the start, the acknowledgements never reach the ring and the baseline stays the empty list; a
  // link that turns late after a clean start leaves a real list as the baseline, which the client lets go of
  // once it has verified 16 newer ones — the server must not go on writing against it.
  const STARTS = [
    { start: "late from the start", lateAfterApart: false },
    { start: "clean, then late", lateAfterApart: true },
  ];
  for (const { name, tag: formTag, compactDeltas } of FORMS) {
    for (const { start, lateAfterApart } of STARTS) {
      const tag = `${formTag}${lateAfterApart ? "t" : "l"}`;
      it(`${name}, ${start}: two clients walk out of view and through each other, and each sees the other where the server has it`, async () => {
        expect(1500).toBeGreaterThan((BASELINES_KEPT / 12) * 1000);
        const late = parseProfileSpec(LATE).profile;
        const profile = lateAfterApart ? PERFECT_DUPLEX : late;
        const options = { entityDeltas: true, compactDeltas };
        const ada = await joinCourse(course.baseUrl, `ada-late-${tag}`, { profile, seed: 31, options });
        const bea = await joinCourse(course.baseUrl, `bea-late-${tag}`, { profile, seed: 32, options });
        course.clients.push(ada.client, bea.client);
        const walkers = (goals: { x: number; y: number }[]) =>
          [ada, bea].map(({ client }, index) => ({
            client,
            goal: goals[index],
            watch: new Watch(() => course.server, client, NEIGHBOURHOOD_DEADLINE_MS),
          }));

        const apart = await walkTogether(walkers([CROSSING.westPost, CROSSING.eastPost]));
        if (lateAfterApart) {
          for (const { impaired } of [ada, bea]) impaired!.duplex.setProfile(late);
          // Standing still while the round trip settles (a jump from milliseconds to seconds costs the walk
          // corrections, not what this test is about); the deltas go on at the idle rate meanwhile.
          await driveFor([ada.client, bea.client], 4000);
        }
        const through = await walkTogether(walkers([CROSSING.adaEnd, CROSSING.beaEnd]));
        for (const walk of [...apart, ...through]) console.log(formatWalk(`late downlink: ${walk.nick}`, walk));

        const adaAt = serverPosition(course.server, ada.client)!;
        const beaAt = serverPosition(course.server, bea.client)!;
        expect(adaAt).toEqual(CROSSING.adaEnd);
        expect(beaAt).toEqual(CROSSING.beaEnd);
        const sees = (client: GameClient, other: GameClient, at: { x: number; y: number }) => {
          const entity = client.entities.get(other.ownEntityId);
          return entity !== undefined && entity.x === at.x && entity.y === at.y;
        };
        await driveUntil(
          [ada.client, bea.client],
          "each seeing the other where the server has it",
          () => sees(ada.client, bea.client, beaAt) && sees(bea.client, ada.client, adaAt),
        );

        // The sessions used the form asked for, and their acknowledgements outran the ring.
        for (const { client } of [ada, bea]) {
          const session = [...course.server.game.sessions.values()].find(
            (each) => each.entity.id === client.ownEntityId,
          );
          expect(session?.baselines?.compact).toBe(compactDeltas);
          expect(session!.baselines!.staleAcks).toBeGreaterThan(0);
        }
      }, 90_000);
    }
  }
});
