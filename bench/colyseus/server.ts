// The Colyseus side of the server suite (docs/benchmarks.md § Colyseus): a Colyseus 0.17 server with
// the WebSocket transport and one WorldRoom ("world") on the bench's world, plus a small status
// endpoint on a port of its own (the room's tick and patch counters and durations), so the harness
// reads the same figures from it as from our server's /api/status.
//
// usage: node --import tsx bench/colyseus/server.ts --map <dir>/map.tmj
// stdout: one JSON line {"event":"listening","port":WS_PORT,"statusPort":PORT}; SIGTERM stops it.
import { Server } from "@colyseus/core";
import { WebSocketTransport } from "@colyseus/ws-transport";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { WorldRoom, roomStats, setWorld } from "./world-room.js";

const { values } = parseArgs({ options: { map: { type: "string" }, port: { type: "string", default: "0" } } });
if (!values.map) {
  process.stderr.write("usage: bench/colyseus/server.ts --map <dir>/map.tmj [--port N]\n");
  process.exit(2);
}
setWorld(values.map);

const transport = new WebSocketTransport();
const server = new Server({ transport, greet: false, gracefullyShutdown: false });
server.define("world", WorldRoom);
await server.listen(Number(values.port), "127.0.0.1");
const port = (transport.server!.address() as AddressInfo).port;

const status = createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://localhost");
  if (url.pathname !== "/status") {
    response.writeHead(404).end();
    return;
  }
  const ticks = url.searchParams.has("ticks") ? Number(url.searchParams.get("ticks")) : undefined;
  // A patch happens every BROADCAST_EVERY_TICKS ticks: half as many cover the same window.
  const patches = ticks === undefined ? undefined : Math.max(1, Math.round(ticks / 2));
  response.writeHead(200, { "content-type": "application/json" });
  response.end(
    JSON.stringify({
      tick: roomStats.ticks,
      patches: roomStats.patches,
      players: roomStats.clients,
      chunksSent: roomStats.chunksSent,
      tickMs: roomStats.tickMs.percentiles(ticks),
      broadcastMs: roomStats.patchMs.percentiles(patches),
    }),
  );
});
status.listen(0, "127.0.0.1", () => {
  const statusPort = (status.address() as AddressInfo).port;
  process.stdout.write(JSON.stringify({ event: "listening", port, statusPort }) + "\n");
});

process.on("SIGTERM", () => {
  status.close();
  transport.shutdown();
  process.exit(0);
});
