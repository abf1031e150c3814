// The content suite's own scripts (bench/server/content/, docs/benchmarks.md § content) in the real world
// over real UDP with the real sandbox, so the bench measures what it says it does: the realistic talker
// answers a talk with a dialog of three choices and its errand goes from offered to paid (quest started,
// stepped three times, handed in for 2 gold coins through an exchange); the hostile files stop at their
// instruction budget and memory cap on every talk while the world ticks on. Each talk and answer shows in
// /api/status scripts: its events, and busyMs (ops/busy-time.ts) growing with them.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { DialogPacket } from "../ts/protocol/dialog.js";
import type { ItemDef } from "../ts/server/content/item-catalogue.js";
import { contentFileNames, readContentFile } from "../ts/server/content/content-files.js";
import { LuaRuntime } from "../ts/server/scripting/lua-sandbox.js";
import { MAX_REST_TICKS, SCRIPT_MEMORY_BYTES, STOPS_BEFORE_REST } from "../ts/server/scripting/script-room.js";
import { TALKER_KIND } from "../bench/server/world.js";
import type { ScriptsStatus } from "../bench/suites/server.js";
import { NpcGame } from "./support/npc-game.js";
import { testKind } from "./support/npc-map.js";
import { dialogs, labels, ownTlv, reply } from "./support/script-dialogs.js";
import type { UdpTestClient } from "./support/udp-client.js";

const CONTENT = fileURLToPath(new URL("../bench/server/content/", import.meta.url));
const COIN: ItemDef = {
  id: 1,
  name: "gold coin",
  kind: "treasure",
  stack: 100,
  sprite: "coin",
  damage: 0,
  armor: 0,
  heal: 0,
};
const TALKER = testKind({ ...TALKER_KIND });
const SPAWN = { x: 6, y: 6 };

const npcGame = new NpcGame();
let runtime: LuaRuntime;
beforeAll(async () => {
  runtime = await LuaRuntime.load();
});
afterEach(() => npcGame.cleanup());

/** A room with one bench talker beside the spawn, carrying the bench's script set `set`. */
async function start(set: "realistic" | "hostile") {
  const dir = join(CONTENT, set);
  const harness = await npcGame.start(
    {
      width: 16,
      height: 12,
      spawn: SPAWN,
      kinds: [TALKER],
      spawns: [{ kind: TALKER.name, x: 7, y: 6 }],
      items: [COIN],
    },
    { content: { runtime, files: contentFileNames(dir).map((name) => readContentFile(dir, name)) } },
  );
  const client = await npcGame.connect("Ada");
  const talker = await client.waitFor("the talker in view", () => client.inView(TALKER.typeId)[0]);
  const status = async (): Promise<ScriptsStatus> => {
    const response = await fetch(`http://127.0.0.1:${harness.httpPort}/api/status`);
    return ((await response.json()) as { scripts: ScriptsStatus }).scripts;
  };
  return { harness, client, talker, status };
}

/** The dialog's text lines. */
function texts(dialog: DialogPacket): string[] {
  return dialog.elements.flatMap((element) => (element.kind === "text" ? [element.text] : []));
}

/** Talks to the talker and waits for the dialog it opens (the newest, a dialog id not seen before). */
async function talk(client: UdpTestClient, talkerId: number): Promise<DialogPacket> {
  const seen = new Set(dialogs(client).map((dialog) => dialog.dialogId));
  client.query(talkerId);
  return client.waitFor("the talker's dialog", () => dialogs(client).find((dialog) => !seen.has(dialog.dialogId)));
}

/** The client's own standing in the one quest, from its EntityDetail. */
function errand(client: UdpTestClient): { state: number; progress: number } | undefined {
  const tlv = ownTlv(client, "quests");
  return tlv?.kind === "quests" ? tlv.quests[0] : undefined;
}

describe("the content suite's scripts", () => {
  it("realistic: a dialog per talk; the errand is started, stepped and paid; busyMs grows with each event", async () => {
    const { harness, client, talker, status } = await start("realistic");
    const before = await status();
    expect(before.files.map((file) => file.name)).toEqual(["talker.lua"]);
    expect(before.events).toBe(0);

    const first = await talk(client, talker.id);
    expect(labels(first)).toEqual(["Any news?", "Work?", "Goodbye"]);
    expect(texts(first)).toContain("You carry 0 gold. Looking for work?");
    const afterTalk = await status();
    expect(afterTalk.events).toBe(1);
    expect(afterTalk.busyMs).toBeGreaterThan(before.busyMs);

    reply(client, first, 2); // "Work?": the errand starts
    await client.waitFor("the errand started", () => (errand(client)?.state === 1 ? true : undefined));
    const afterAnswer = await status();
    expect(afterAnswer.events).toBe(2);
    expect(afterAnswer.busyMs).toBeGreaterThan(afterTalk.busyMs);

    // Three more errands make it ready; each talk says how far along it is.
    for (let done = 0; done < 3; done++) {
      const dialog = await talk(client, talker.id);
      expect(texts(dialog)).toContain(`Still at it? ${done} of 3 done.`);
      reply(client, dialog, 2);
      await client.waitFor(`errand ${done + 1} of 3`, () => (errand(client)?.progress === done + 1 ? true : undefined));
    }
    expect(errand(client)?.state).toBe(2); // ready
    const pay = await talk(client, talker.id);
    expect(texts(pay)).toContain("You've done enough. Come for your pay.");
    reply(client, pay, 2); // handed in: the reward is an exchange, its outcome a callback
    await client.waitFor("the pay", () =>
      client.received.some(
        (entry) => entry.packet?.type === "chat" && entry.packet.text === "That's the lot. Here's your pay.",
      ),
    );
    expect(errand(client)?.state).toBe(3); // done
    const me = harness.game.sessions.byEntityId(client.lastState()!.playerEntityId)!;
    expect(harness.game.items.countOf(me, COIN.id)).toBe(2);
    // "Any news?" is a line from the script's list.
    const news = await talk(client, talker.id);
    expect(texts(news)).toContain("You carry 2 gold. Looking for work?");
    reply(client, news, 1);
    await client.waitFor("a line of news", () =>
      client.received.some(
        (entry) => entry.packet?.type === "chat" && /^(The|Skeletons|Glow|Something)/.test(entry.packet.text),
      ),
    );
    const end = await status();
    expect(end.errors).toBe(0);
    expect(end.budgetStops + end.memoryStops).toBe(0);
    expect(end.busyMs).toBeGreaterThan(afterAnswer.busyMs);
  });

  it("hostile: every talk stops one file at its budget and the other at its memory cap; the world ticks on", async () => {
    const { harness, client, talker, status } = await start("hostile");
    const game = harness.game;
    const scripts = game.scripts!;
    const tickBefore = game.tick;
    let talks = 0;
    const talk = async () => {
      const events = scripts.stats.events;
      client.query(talker.id);
      talks++;
      await client.waitFor("both files' handlers run", () => (scripts.stats.events >= events + 2 ? true : undefined));
    };
    // Stopped three times within 10 s, each file rests (STOPS_BEFORE_REST): more talks cost them nothing.
    for (let index = 0; index < STOPS_BEFORE_REST; index++) await talk();
    const rested = scripts.stats.eventsRested;
    const stops = scripts.stats.budgetStops + scripts.stats.memoryStops;
    for (let index = 0; index < 5; index++) client.query(talker.id);
    await client.waitFor("the talks skipped", () => (scripts.stats.eventsRested >= rested + 10 ? true : undefined));
    expect(scripts.stats.budgetStops + scripts.stats.memoryStops).toBe(stops);
    // The hoard grows by a budget's worth of tables each talk (allocation is charged to the budget, so less and
    // less as the collector works harder) until its state is full: each talk after a rest has run out.
    while (scripts.stats.memoryStops === 0 && talks < 200) {
      game.tick += MAX_REST_TICKS;
      await talk();
    }
    expect(scripts.stats.memoryStops).toBeGreaterThanOrEqual(1);
    // One more talk, with the state full: each file stops once more, at the budget and at the cap.
    game.tick += MAX_REST_TICKS;
    const before = await status();
    client.query(talker.id);
    await client.waitFor("both files' handlers run", () =>
      scripts.stats.events >= before.events + 2 ? true : undefined,
    );
    const after = await status();
    expect(after.budgetStops - before.budgetStops).toBe(1);
    expect(after.memoryStops - before.memoryStops).toBe(1);
    expect(after.busyMs).toBeGreaterThan(before.busyMs);
    const files = new Map(after.files.map((file) => [file.name, file]));
    // Its one rest was the first three stops'; one stop per 7200 ticks rests it no more.
    expect(files.get("loop.lua")).toMatchObject({ running: true, errors: talks + 1, resting: false, rests: 1 });
    expect(files.get("loop.lua")!.lastError).toMatch(/^loop\.lua:\d+: instruction budget exceeded$/);
    expect(files.get("hoard.lua")).toMatchObject({ running: true, errors: talks + 1 });
    expect(files.get("hoard.lua")!.lastError).toBe("not enough memory");
    expect(files.get("hoard.lua")!.memoryBytes).toBeGreaterThan(SCRIPT_MEMORY_BYTES * 0.9);
    expect(files.get("hoard.lua")!.memoryBytes).toBeLessThanOrEqual(SCRIPT_MEMORY_BYTES);
    // No dialog was opened, and the tick went on through it all.
    expect(dialogs(client)).toEqual([]);
    await client.waitFor("ticks going on", () => (game.tick > tickBefore + 5 ? true : undefined));
  });
});
