// Items survive any crash (issue 14): a registered player moves items between
// a chest and its bag as fast as the server answers, and the server process
// is killed with SIGKILL at a random moment, again and again. After every
// kill the database — read directly — holds every item exactly once (the sum
// over the bag, the chest and the ground never changes), and the bag is at
// least at the version of the last change the server acknowledged: a change
// is durable before the player hears of it.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import type { ItemOp } from "../ts/protocol/item-request.js";
import { ITEM_STATUSES } from "../ts/protocol/item-result.js";
import type { ItemDef } from "../ts/server/content/item-catalogue.js";
import { postJson } from "./support/game-harness.js";
import { storedItemTotals } from "./support/item-census.js";
import { writeNpcMap } from "./support/npc-map.js";
import { startServerProcess } from "./support/server-process.js";
import { type Joined, UdpTestClient } from "./support/udp-client.js";

const COIN: ItemDef = {
  id: 1,
  name: "coin",
  kind: "treasure",
  stack: 50,
  sprite: "coin",
  damage: 0,
  armor: 0,
  heal: 0,
};
const GEM: ItemDef = { id: 2, name: "gem", kind: "treasure", stack: 5, sprite: "gem", damage: 0, armor: 0, heal: 0 };
const TOTAL = { [COIN.id]: 120, [GEM.id]: 9 };
const KILLS = 6;

const dir = mkdtempSync(join(tmpdir(), "caves-items-crash-"));
const map = writeNpcMap({
  width: 14,
  height: 8,
  spawn: { x: 4, y: 4 },
  kinds: [],
  spawns: [],
  items: [COIN, GEM],
  chests: [{ name: "hoard", x: 5, y: 4, items: "coin:120, gem:9" }],
});
const children: ChildProcess[] = [];
const clients: UdpTestClient[] = [];

afterAll(() => {
  for (const client of clients) client.close();
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  map.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** Every item in the database by id, and the character's bag version. */
function stored(dbPath: string): { items: Record<number, number>; bagVersion: number } {
  const db = new Database(dbPath, { readonly: true });
  try {
    const items = storedItemTotals(db);
    const bag = db.prepare("SELECT version FROM item_containers WHERE key LIKE 'character:%'").get() as
      { version: number } | undefined;
    return { items, bagVersion: bag?.version ?? 0 };
  } finally {
    db.close();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("items and crashes", () => {
  it(`SIGKILL at random moments, ${KILLS} times, mid-stream of changes: every item in exactly one place`, async () => {
    const dbPath = join(dir, "caves.sqlite");
    let random = 0x9e3779b9;
    const next = () => {
      random = (Math.imul(random, 1664525) + 1013904223) >>> 0;
      return random / 2 ** 32;
    };
    let acknowledgedVersion = 0;
    let changes = 0;
    for (let round = 0; round < KILLS; round++) {
      const server = await startServerProcess(dbPath, map.path, children);
      const route = round === 0 ? "/api/register" : "/api/login";
      const answer = await postJson(server.httpPort, route, {
        name: "Hoarder",
        password: "hoarder-pw",
        nick: "Hoarder",
      });
      expect(answer.status).toBe(200);
      const client = await UdpTestClient.withSession(answer.body as unknown as Joined);
      clients.push(client);
      client.action(0, 0);
      await client.waitFor("own position", () => client.position(), 5000);
      // The chest is the only interactable: the first static entity next to the spawn.
      client.query(client.joined.entityId);
      const chestId = await client.waitFor("the chest", () => {
        return client.inView(2)[0]?.id;
      });
      // Changes as fast as answers come, until the kill.
      const killAt = Date.now() + 150 + next() * 600;
      let requestId = 1;
      const killed = (async () => {
        await sleep(killAt - Date.now());
        server.child.kill("SIGKILL");
        await once(server.child, "exit");
      })();
      while (Date.now() < killAt) {
        const op: ItemOp = next() < 0.5 ? "take" : "put";
        const id = requestId++;
        client.itemRequest(id, op, {
          container: chestId,
          slot: Math.floor(next() * 3),
          count: 1 + Math.floor(next() * 4),
        });
        const deadline = Date.now() + 200;
        while (Date.now() < deadline) {
          const result = client.received.find((r) => r.packet?.type === "item_result" && r.packet.requestId === id);
          if (result?.packet?.type === "item_result") {
            if (ITEM_STATUSES[result.packet.status] === "ok") {
              acknowledgedVersion = Math.max(acknowledgedVersion, result.packet.version);
              changes++;
            }
            break;
          }
          await sleep(2);
        }
      }
      await killed;
      client.close();
      const after = stored(dbPath);
      expect(after.items).toEqual(TOTAL);
      expect(after.bagVersion).toBeGreaterThanOrEqual(acknowledgedVersion);
    }
    // The loop did change things (else it proved nothing).
    expect(changes).toBeGreaterThan(KILLS * 5);
  }, 90_000);
});
