// The page's entry point (index.html loads it): loads the wasm core and the
// art, shows the join card, and on Play joins the server (HTTP), opens the
// link (WebRTC data channel, or the WebSocket fallback) and starts a
// PlaySession. URL parameters: ?transport=websocket|webrtc forces a link,
// ?debug=1 opens the debug overlay at start.
import "./ui/style.css";
import { CanvasView } from "./browser/canvas-view.js";
import { PlaySession } from "./browser/play-session.js";
import { type ClientResources, loadResources } from "./browser/resources.js";
import { connectGuest, GameClient } from "./core/index.js";
import { type Atlas, installTileLooks, uploadAtlas } from "./render/atlas.js";
import { FrameRenderer } from "./render/frame.js";
import { DEFAULT_TILE_LOOKS, titleScene } from "./render/title-scene.js";
import { connectBest, connectOptionsFromQuery } from "./transport/connect.js";
import { DebugOverlay } from "./ui/debug-overlay.js";
import { JoinScreen } from "./ui/join-screen.js";
import { explainJoinError } from "./ui/refusal.js";
import { StatusLine } from "./ui/status-line.js";
import { WasmBlitter } from "../wasm/blit.js";

interface Loaded {
  resources: ClientResources;
  blitter: WasmBlitter;
  atlas: Atlas;
  renderer: FrameRenderer;
  view: CanvasView;
}

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`index.html lacks #${id}`);
  return found as T;
}

const query = new URLSearchParams(location.search);
const serverUrl = location.origin;
const status = new StatusLine(element("status"));
const debug = new DebugOverlay(element("debug"), query.get("debug") === "1");
const join = new JoinScreen(document, (nick) => void play(nick));
let loaded: Loaded | null = null;
let session: PlaySession | null = null;

status.set("Loading the game…", "busy");
loadResources().then(
  (resources) => {
    const blitter = new WasmBlitter(resources.core);
    const atlas = uploadAtlas(blitter, resources.images);
    const renderer = new FrameRenderer(blitter, atlas);
    const view = new CanvasView(element("game"), element("stage"), blitter);
    loaded = { resources, blitter, atlas, renderer, view };
    installTileLooks(blitter, atlas, DEFAULT_TILE_LOOKS);
    renderer.render(titleScene(blitter));
    view.present();
    join.setReady(true);
    status.set("Choose a name and press Play.");
  },
  (error: unknown) => {
    const message = `The game could not load: ${error instanceof Error ? error.message : String(error)}`;
    join.showError(message);
    status.set(message, "bad");
  },
);

async function play(nick: string): Promise<void> {
  if (!loaded || session) return;
  const { resources, blitter, atlas, renderer, view } = loaded;
  join.setBusy(true);
  join.showError("");
  status.set(`Joining as ${nick}…`, "busy");
  const notes: string[] = [];
  const linkOptions = {
    ...connectOptionsFromQuery(location.search),
    onFallback: (reason: string) => notes.push(`No data channel (${reason}); using WebSocket`),
  };
  try {
    const connection = await connectGuest(serverUrl, nick, (guest) => connectBest(serverUrl, guest.token, linkOptions));
    installTileLooks(blitter, atlas, connection.world.tiles);
    const client = GameClient.create({
      core: resources.core,
      transport: connection.transport,
      session: connection.session,
      world: connection.world,
      reconnect: connection.reconnect,
    });
    join.hide();
    session = new PlaySession({ client, nick: connection.session.nick, renderer, view, debug, status, notes });
  } catch (error) {
    join.showError(explainJoinError(error, serverUrl));
    status.set("Not connected.", "bad");
  } finally {
    join.setBusy(false);
  }
}
