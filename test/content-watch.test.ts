// --watch reloads content scripts in the running world (docs/content.md § Checking and reloading): the real
// server on a copy of the bundled map, a protocol client talking to a hall guard; the guard's script is
// saved with new words, then with a syntax error — the new words are heard within a second, and after the
// broken save the last good version still answers.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { Logger } from "../ts/server/ops/log.js";
import { type RunningServer, startServer } from "../ts/server/server.js";
import { UdpTestClient } from "./support/udp-client.js";

const MAPS = fileURLToPath(new URL("../maps", import.meta.url));
const GUARD = 20;
let dir = "";
let server: RunningServer | undefined;
let client: UdpTestClient | undefined;

afterAll(async () => {
  client?.close();
  await server?.close();
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

const guardSays = (words: string) =>
  `on.talk("hall guard", function(guard, player) tell(player, ${JSON.stringify(words)}, guard.name) end)\n`;

describe("content --watch", () => {
  it("reloads a saved script within a second; a broken save leaves the last good version running", async () => {
    dir = mkdtempSync(join(tmpdir(), "caves-watch-"));
    for (const name of readdirSync(MAPS)) {
      if (/^caves\.(tmj|[a-z]+\.json)$/.test(name)) copyFileSync(join(MAPS, name), join(dir, name));
    }
    mkdirSync(join(dir, "caves.content"));
    const script = join(dir, "caves.content", "guard.lua");
    writeFileSync(script, guardSays("first words"));
    server = await startServer({
      host: "127.0.0.1",
      httpPort: 0,
      udpPort: 0,
      mapPath: join(dir, "caves.tmj"),
      watchMap: true,
      logger: new Logger("silent"),
    });
    client = await UdpTestClient.connect(server.httpPort, "Watcher");
    client.action(0, 0);
    await client.waitFor("own position", () => client!.position());
    const session = server.game.sessions.byEntityId(client.lastState()!.playerEntityId)!;
    const guard = [...server.game.npcs.values()].find((npc) => npc.entity.typeId === GUARD)!.entity;
    server.game.warps.teleport(session.entity, guard.x, guard.y - 1);
    await client.waitFor("the guard in view", () => client!.inView(GUARD)[0], 5000);
    const heard = (text: string) =>
      client!.received.filter((entry) => entry.packet?.type === "chat" && entry.packet.text === text).length;
    client.query(guard.id);
    await client.waitFor("the first words", () => heard("first words") === 1);

    writeFileSync(script, guardSays("second words"));
    await client.waitFor(
      "the second words",
      () => {
        client!.query(guard.id);
        return heard("second words") > 0;
      },
      3000,
    );

    writeFileSync(script, 'on.talk("hall guard", function(guard, player) tell(player, "never" end)\n');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const status = server.game.scripts!.status() as { files: { name: string; loadError: string | null }[] };
    expect(status.files.find((file) => file.name === "guard.lua")!.loadError).toMatch(/^guard\.lua:1:/);
    const before = heard("second words");
    client.query(guard.id);
    await client.waitFor("the second words again", () => heard("second words") > before);
    expect(heard("never")).toBe(0);
  });
});
