// Vite builds the browser client (ts/client/index.html) into dist/client, which
// the game server serves at /. `npm run dev` serves it with hot reload and
// proxies the game server's HTTP API, WebRTC signalling and WebSocket to a
// running server: GAME_SERVER=http://host:port (default http://127.0.0.1:8080).
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const gameServer = process.env.GAME_SERVER ?? "http://127.0.0.1:8080";

export default defineConfig({
  root: fileURLToPath(new URL("./ts/client", import.meta.url)),
  publicDir: false,
  clearScreen: false,
  build: {
    outDir: fileURLToPath(new URL("./dist/client", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    sourcemap: true,
    // Keep core.wasm and the sheets as files: the server sends them with their own content types.
    assetsInlineLimit: 0,
  },
  server: {
    host: "127.0.0.1",
    port: Number(process.env.CLIENT_DEV_PORT ?? 5173),
    proxy: {
      // The game server accepts POSTs from its own origin only; the dev page's requests are ours.
      "/api": { target: gameServer, changeOrigin: true, headers: { origin: gameServer } },
      "/ws": { target: gameServer, ws: true, changeOrigin: true },
    },
  },
  // The sound worker (ts/client/assets/sound-worker.ts) is a module worker, bundled with what it imports.
  worker: { format: "es" },
  preview: { host: "127.0.0.1" },
});
