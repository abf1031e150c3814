// The dungeon generator off the tick thread (docs/dungeons.md § Where levels
// live): one worker_thread, started by LevelGenerator, runs generateDungeon for
// each request and posts the level back, its tiles transferred, not copied.
import { parentPort } from "node:worker_threads";
import { generateDungeon } from "./generate-dungeon.js";
import type { LevelRequest, LevelReply } from "./level-generator.js";

const port = parentPort;
if (port === null) throw new Error("level-worker.ts runs as a worker_thread (LevelGenerator)");
port.on("message", (request: LevelRequest) => {
  let reply: LevelReply;
  try {
    const startMs = performance.now();
    const level = generateDungeon({
      seed: request.seed,
      depth: request.depth,
      width: request.size,
      height: request.size,
    });
    reply = { id: request.id, level, ms: performance.now() - startMs };
    port.postMessage(reply, [level.tiles.buffer as ArrayBuffer]);
  } catch (error) {
    reply = { id: request.id, error: String(error) };
    port.postMessage(reply);
  }
});
