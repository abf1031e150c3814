// The notice board keeps what was pinned (issue 18 item 6): a notice survives a
// restart on the same SQLite file and is shown, newest first, to whoever reads
// the board next — over real UDP on the bundled map.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type DialogPacket, encodePacketToBytes } from "../ts/protocol/index.js";
import { RETURN_POST } from "../ts/server/world/interactables.js";
import { NOTICES_KEPT, NoticeStore } from "../ts/server/persistence/notice-store.js";
import { openGameDatabase } from "../ts/server/persistence/database.js";
import { type Harness, startHarness, worldMapWithInteractables } from "./support/game-harness.js";
import { UdpTestClient } from "./support/udp-client.js";
import { walkNextTo } from "./support/walk.js";

const DEFAULT_MAP = fileURLToPath(new URL("../maps/caves.tmj", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "caves-notices-"));
const clients: UdpTestClient[] = [];
afterAll(() => {
  for (const client of clients) client.close();
  rmSync(dir, { recursive: true, force: true });
});

async function readBoard(server: Harness, nick: string): Promise<{ client: UdpTestClient; dialog: DialogPacket }> {
  const client = await UdpTestClient.connect(server.httpPort, nick);
  clients.push(client);
  client.action(0, 0);
  await client.waitFor("own position", () => client.position());
  const board = server.game.interactables.entityNamed("notice board")!;
  await walkNextTo(client, board.x, board.y);
  client.query(board.id);
  const dialog = await client.waitFor(
    "the board's dialog",
    () => client.received.flatMap((r) => (r.packet?.type === "dialog" ? [r.packet] : []))[0],
  );
  return { client, dialog };
}

const texts = (dialog: DialogPacket) => dialog.elements.flatMap((e) => (e.kind === "text" ? [e.text] : []));

describe("the notice board", () => {
  it("shows its notices newest first, to another player and after a restart", async () => {
    const dbPath = join(dir, "caves.sqlite");
    let server = await startHarness(worldMapWithInteractables(DEFAULT_MAP), { database: openGameDatabase(dbPath) });
    try {
      const { client, dialog } = await readBoard(server, "Pinner");
      expect(texts(dialog)).toContain("No notices yet.");
      for (const [seq, line] of [
        [1, "Spiders in the east tunnel"],
        [2, "Guards hit hard"],
      ] as const) {
        client.sendRaw(
          encodePacketToBytes({
            type: "dialog_reply",
            clientType: 0,
            authToken: client.token,
            dialogId: dialog.dialogId,
            returnCode: RETURN_POST,
            values: [line],
          }),
        );
        await client.waitFor(`notice ${seq} kept`, () => server.game.interactables.stats.noticesPosted === seq);
        if (seq === 1) {
          // The dialog closed with the first post: open it again for the second.
          client.received.length = 0;
          client.query(server.game.interactables.entityNamed("notice board")!.id);
          await client.waitFor("the board again", () => client.received.some((r) => r.packet?.type === "dialog"));
          const again = client.received.find((r) => r.packet?.type === "dialog")!.packet as DialogPacket;
          dialog.dialogId = again.dialogId;
        }
      }
      const other = await readBoard(server, "Reader");
      expect(texts(other.dialog).slice(1, 3)).toEqual([
        expect.stringMatching(/^Pinner, .*: Guards hit hard$/),
        expect.stringMatching(/^Pinner, .*: Spiders in the east tunnel$/),
      ]);
    } finally {
      await server.close();
    }
    server = await startHarness(worldMapWithInteractables(DEFAULT_MAP), { database: openGameDatabase(dbPath) });
    try {
      const { dialog } = await readBoard(server, "Later");
      expect(texts(dialog)[1]).toMatch(/^Pinner, .*: Guards hit hard$/);
      expect(dialog.y + dialog.height).toBeLessThanOrEqual(240);
    } finally {
      await server.close();
    }
  }, 60_000);

  it("keeps a board's newest notices only, and shows as many as fit one dialog", () => {
    const database = openGameDatabase(":memory:");
    const store = new NoticeStore(database.db);
    for (let i = 0; i < NOTICES_KEPT + 10; i++)
      store.post("m/board", { author: "A", text: `notice ${i}`, postedAtMs: i });
    store.post("m/other", { author: "B", text: "elsewhere", postedAtMs: 0 });
    const kept = store.recent("m/board", 1000);
    expect(kept).toHaveLength(NOTICES_KEPT);
    expect(kept[0].text).toBe(`notice ${NOTICES_KEPT + 9}`);
    expect(store.recent("m/other", 10)).toEqual([{ author: "B", text: "elsewhere", postedAtMs: 0 }]);
    database.close();
  });
});
