// Bad-link convergence (issue "netsim, headless bots, and staying smooth on a
// bad link"): the real server in-process, headless GameClients over real UDP
// loopback, netsim wrapped round each client's transport (both directions,
// seeded). For every link profile one client walks the course — a goal 30 tiles
// away behind two staggered walls — while a clean client walks the same route
// at the same moment as its baseline. Results are printed as a table line per
// profile (docs/netcode.md § Convergence on bad links).
import { describe, expect, it } from "vitest";
import { type DuplexProfile, parseProfileSpec, PERFECT_DUPLEX } from "../ts/netsim/index.js";
import {
  COURSE_GOAL,
  COURSE_START,
  CROSSING,
  formatWalk,
  joinCourse,
  nominalRttMs,
  serverPosition,
  walkTogether,
  Watch,
  CourseServer,
} from "./convergence-support.js";

const course = new CourseServer();

/** Replans allowed per goal beyond one per correction (docs/netcode.md: a correction costs at most one replan). */
const REPLAN_SLACK = 2;

const PROFILES: { name: string; profile: DuplexProfile; seed: number }[] = [
  { name: "clean", profile: PERFECT_DUPLEX, seed: 11 },
  { name: "delay=80,jitter=30", profile: parseProfileSpec("delay=80,jitter=30").profile, seed: 12 },
  { name: "delay=150", profile: parseProfileSpec("delay=150").profile, seed: 13 },
  { name: "loss=15", profile: parseProfileSpec("loss=15").profile, seed: 14 },
  {
    name: "loss=5,delay=120,jitter=40,dup=2",
    profile: parseProfileSpec("loss=5,delay=120,jitter=40,dup=2").profile,
    seed: 15,
  },
];

// The profiles run concurrently: each test's clean baseline walks at the same moment as its impaired client,
// so whatever load the machine is under affects both, and the file takes one walk's time instead of five.
describe.concurrent("a headless client converges on every link profile", () => {
  // Each profile with compact entity deltas (P-25, the client's default), P-21's entity deltas, and the seed's packets.
  const CARRIERS = [
    { suffix: "", tag: "", options: { entityDeltas: true, compactDeltas: true } },
    { suffix: " (P-21 deltas)", tag: "f", options: { entityDeltas: true, compactDeltas: false } },
    { suffix: " (seed packets)", tag: "s", options: { entityDeltas: false } },
  ];
  for (const { name: profileName, profile, seed } of PROFILES) {
    for (const carrier of CARRIERS) {
      const name = `${profileName}${carrier.suffix}`;
      it(`${name}: reaches a goal 30 tiles away in ≤ 1.5× the clean time + 2 RTT, never in a wall`, async ({
        expect,
      }) => {
        const options = carrier.options;
        const tag = `${seed}${carrier.tag}`;
        const clean = await joinCourse(course.baseUrl, `clean-${tag}`, { options });
        const impaired = await joinCourse(course.baseUrl, `bad-${tag}`, { profile, seed, options });
        course.clients.push(clean.client, impaired.client);
        for (const { client } of [clean, impaired]) expect(client.confirmed).toEqual(COURSE_START);

        const [cleanWalk, badWalk] = await walkTogether(
          [clean, impaired].map(({ client, steps }) => ({
            client,
            steps,
            goal: COURSE_GOAL,
            watch: new Watch(() => course.server, client),
          })),
        );
        const boundMs = 1.5 * cleanWalk.timeMs + 2 * nominalRttMs(profile);
        console.log(formatWalk(name, badWalk, cleanWalk.timeMs, boundMs));

        expect(badWalk.routeSteps).toBeGreaterThanOrEqual(30);
        expect(badWalk.crossings).toBeGreaterThanOrEqual(1); // into the goal's chunk, checked by the Watch
        expect(badWalk.timeMs).toBeLessThanOrEqual(boundMs);
        expect(badWalk.replans).toBeLessThanOrEqual(badWalk.corrections + REPLAN_SLACK);
        for (const { client } of [clean, impaired]) {
          expect(client.predicted).toEqual(COURSE_GOAL);
          expect(client.confirmed).toEqual(COURSE_GOAL);
          expect(serverPosition(course.server, client)).toEqual(COURSE_GOAL);
        }
      }, 60_000);
    }
  }
});

describe("two clients on bad links", () => {
  it("walk through each other's viewport and each sees the other's final position", async () => {
    const { profile } = parseProfileSpec("loss=5,delay=120,jitter=40,dup=2");
    const ada = await joinCourse(course.baseUrl, "ada-cross", { profile, seed: 21 });
    const bea = await joinCourse(course.baseUrl, "bea-cross", { profile, seed: 22 });
    course.clients.push(ada.client, bea.client);
    const walkers = (goals: { x: number; y: number }[]) =>
      [ada, bea].map(({ client }, index) => ({
        client,
        goal: goals[index],
        watch: new Watch(() => course.server, client),
      }));

    // Apart: 33 tiles, beyond the 15-tile view radius — neither may see the other.
    const apart = await walkTogether(walkers([CROSSING.westPost, CROSSING.eastPost]));
    expect(ada.client.entities.has(bea.client.ownEntityId)).toBe(false);
    expect(bea.client.entities.has(ada.client.ownEntityId)).toBe(false);

    // Through each other: they pass at about x = 58 and end 12 tiles apart, in view again.
    const through = await walkTogether(walkers([CROSSING.adaEnd, CROSSING.beaEnd]));
    for (const walk of [...apart, ...through]) console.log(formatWalk(`crossing views: ${walk.nick}`, walk));
    const adaAt = serverPosition(course.server, ada.client)!;
    const beaAt = serverPosition(course.server, bea.client)!;
    expect(adaAt).toEqual(CROSSING.adaEnd);
    expect(beaAt).toEqual(CROSSING.beaEnd);
    expect(ada.client.entities.get(bea.client.ownEntityId)).toMatchObject({ typeId: 0, ...beaAt });
    expect(bea.client.entities.get(ada.client.ownEntityId)).toMatchObject({ typeId: 0, ...adaAt });
    expect(ada.client.confirmed).toEqual(adaAt);
    expect(bea.client.confirmed).toEqual(beaAt);
  }, 60_000);
});
