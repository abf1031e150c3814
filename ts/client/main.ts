// The page's entry point (index.html loads it): loads the wasm core and the
// art, shows the join card, and on Play joins the server over HTTP (as a guest,
// or logging in or registering an account), opens the link (WebRTC data
// channel, or the WebSocket fallback) and starts a PlaySession with chat,
// dialogs and names layered on it (SocialSession), and the bag and chest windows (ItemPanels). URL parameters:
// ?transport=websocket|webrtc forces a link, ?debug=1 opens the debug overlay
// at start, ?spectate shows the spectator's card instead of the join card and
// watches the world with no body (SpectateSession, docs/client.md § Spectating);
// ?spectate&follow=ID&x=X&y=Y watches at once, following entity ID from tile
// (X, Y), with the credentials the browser already holds (the operators'
// console's Follow opens it in a frame, docs/server.md § Admin).
import "./ui/style.css";
import { CanvasView } from "./browser/canvas-view.js";
import { PlaySession } from "./browser/play-session.js";
import { markPlay } from "./browser/timing-marks.js";
import { SpectateSession } from "./browser/spectate-session.js";
import { ReplayWatch } from "./browser/replay-watch.js";
import { type ClientResources, loadResources } from "./browser/resources.js";
import {
  CameraFeed,
  connectAccount,
  connectGuest,
  connectSpectator,
  fetchMapArt,
  GameClient,
  gatewayBaseUrl,
  type GuestConnection,
  type MakeTransport,
  signedTransport,
  type SpectateRequest,
} from "./core/index.js";
import { type Atlas, installTileLooks, uploadAtlas } from "./render/atlas.js";
import { FrameRenderer } from "./render/frame.js";
import { installMapArt } from "./render/map-art.js";
import { installTileLights } from "./render/light.js";
import { DEFAULT_TILE_LOOKS, titleScene } from "./render/title-scene.js";
import { connectBest, connectOptionsFromQuery, offerWebRtc, type WebRtcOffer } from "./transport/connect.js";
import { DebugOverlay } from "./ui/debug-overlay.js";
import { FrameLog } from "./browser/frame-log.js";
import { type JoinRequest, JoinScreen } from "./ui/join-screen.js";
import { explainJoinError } from "./ui/refusal.js";
import { ItemPanels } from "./ui/item-panels.js";
import { SocialSession } from "./ui/social-session.js";
import { StatusLine } from "./ui/status-line.js";
import { TileImages } from "./ui/tile-images.js";
import { TouchControls } from "./ui/touch-controls.js";
import { Minimap, tileColours } from "./ui/minimap.js";
import { WhoOnline } from "./ui/who-online.js";
import { QuestJournal } from "./ui/quest-journal.js";
import { PartyPanel } from "./ui/party-panel.js";
import { renderOffline, SoundBoard } from "./ui/sound-board.js";
import { SoundCues } from "./ui/sound-cues.js";
import { rms, SOUND_NAMES, type SoundName } from "./assets/sounds.js";
import { WasmBlitter } from "../wasm/blit.js";
import { PLAYER_LOOKS } from "../appearance.js";
import { playerLookCell } from "./render/entity-sprites.js";

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

/** A replay's page drops its link only after an hour of silence: a paused replay sends no frames. */
const REPLAY_DISCONNECT_AFTER_MS = 3_600_000;
/**
 * How long a link to another gateway may take to open, each way (the data channel, then the WebSocket): a
 * gateway that does not answer within it is passed over for the next, within the session's 10 s.
 */
const MOVE_LINK_TIMEOUT_MS = 2_500;

const query = new URLSearchParams(location.search);
// The server is where the page was served from, under its path: the origin for the game's own page at /, a
// replay viewer's root for one the operators' console reaches at /api/admin/viewers/ID/ (through the server).
const serverUrl = location.origin + location.pathname.replace(/\/[^/]*$/, "");
const status = new StatusLine(element("status"));
const debug = new DebugOverlay(element("debug"), query.get("debug") === "1");
const frameLog = query.get("debug") === "1" ? new FrameLog() : undefined;
const join = new JoinScreen(document, (request) => void play(request));
let loaded: Loaded | null = null;
// The sound (V or its button mutes it, remembered); it opens on Play, a user gesture.
const sounds = new SoundBoard(element("sound"), storageOrNull());
if (query.get("debug") === "1") {
  // For tests and tools (docs/client.md § Sound): renders a sound offline through the page's own graph.
  Object.assign(window, {
    cavesSound: {
      names: SOUND_NAMES,
      render: async (name: SoundName) => rms(await renderOffline(name)),
    },
    // Every frame's camera and own sprite (browser/frame-log.ts): a teleport's frames, for tests.
    cavesFrames: { take: () => frameLog?.take() ?? [] },
  });
}
let session: PlaySession | null = null;
// ?spectate: the spectator's card, and a SpectateSession instead of a PlaySession.
// ?replay (served by `replay watch`): a spectator of the replayed world at once, with the replay bar.
const replaying = query.has("replay");
const spectating = query.has("spectate") || replaying;
const spectateCard = element<HTMLFormElement>("spectate");
let watching: SpectateSession | null = null;
// Following from the console (?spectate&follow=…); a replay follows by its own list, never from the address.
const followRequest = spectating && !replaying ? followFromQuery(query) : null;
if (replaying) {
  join.hide();
} else if (spectating) {
  join.hide();
  // Following from the console starts by itself: the card shows only if the server refuses.
  spectateCard.hidden = followRequest !== null;
  spectateCard.addEventListener("submit", (event) => {
    event.preventDefault();
    void spectate(element<HTMLInputElement>("admin-token").value.trim());
  });
}

/**
 * `follow=ID&x=X&y=Y` (the console's Follow): the entity to follow and the tile it was last seen on, where the
 * camera starts; null when absent or not whole numbers (then the card is shown as for a plain ?spectate).
 */
function followFromQuery(params: URLSearchParams): { entityId: number; at: { x: number; y: number } } | null {
  const [id, x, y] = ["follow", "x", "y"].map((name) => params.get(name) ?? "");
  if (![id, x, y].every((value) => /^\d{1,10}$/.test(value))) return null;
  // An entity id is a u32 other than 0 (a store's ids start at 1; a cluster's region's at its range).
  if (Number(id) === 0 || Number(id) > 0xffffffff) return null;
  return { entityId: Number(id), at: { x: Number(x), y: Number(y) } };
}

status.set("Loading the game…", "busy");
loadResources().then(
  (resources) => {
    const blitter = new WasmBlitter(resources.core);
    const atlas = uploadAtlas(blitter, resources.images);
    const renderer = new FrameRenderer(blitter, atlas);
    const view = new CanvasView(element("game"), element("stage"), blitter, {
      screen: element("screen"),
      panel: element("panel"),
      status: element("status"),
    });
    loaded = { resources, blitter, atlas, renderer, view };
    installTileLooks(blitter, atlas, DEFAULT_TILE_LOOKS);
    const sprites = new TileImages(document, resources.images.sprites);
    join.setLookImages(PLAYER_LOOKS.map((_, look) => sprites.cell(document, playerLookCell(look), true)));
    renderer.render(titleScene(blitter));
    view.present();
    join.setReady(true);
    element<HTMLButtonElement>("watch").disabled = false;
    status.set(spectating ? "Press Watch to see the world." : "Choose a name and press Play, or log in.");
    // No token typed: the browser's own credentials (the console's login) go with the join, as with its fetches.
    if (replaying || followRequest !== null) void spectate("");
  },
  (error: unknown) => {
    const message = `The game could not load: ${error instanceof Error ? error.message : String(error)}`;
    join.showError(message);
    status.set(message, "bad");
  },
);

/** The page's localStorage, or null where the browser refuses it (a privacy mode). */
function storageOrNull(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** Joins as the request says: the password, if any, goes only into the HTTP(S) request. */
function connect(request: JoinRequest, makeTransport: MakeTransport): Promise<GuestConnection> {
  return request.kind === "guest"
    ? connectGuest(serverUrl, request.nick, makeTransport, fetch, request.appearance)
    : connectAccount(serverUrl, request, makeTransport);
}

/**
 * Loads the map's art or the built-in tiles for `world`, and sizes the canvas to the renderer's screen: what
 * every way into the world does before its first frame.
 */
async function installWorld(world: GuestConnection["world"]): Promise<void> {
  const { blitter, atlas, renderer, view } = loaded!;
  // A host's own map brings its own art (docs/art.md § Map art); else the built-in tiles draw it.
  const art = world.art ?? null;
  if (art) {
    const pixels = await fetchMapArt(serverUrl, art);
    renderer.setMapTiles(installMapArt(blitter, art, pixels, world.tiles));
  } else {
    renderer.setMapTiles(null);
    installTileLooks(blitter, atlas, world.tiles);
  }
  // The framebuffer is sized for the map's tiles (30 × 30 of them and the panel); the canvas follows.
  view.setScreen(renderer.screen);
  installTileLights(blitter, world.tiles);
}

/** Watches the world as a spectator (?spectate), with the admin token if one was given. */
async function spectate(adminToken: string): Promise<void> {
  if (!loaded || watching) return;
  const { resources, renderer, view } = loaded;
  const button = element<HTMLButtonElement>("watch");
  const error = element("spectate-error");
  // The sound opens on a user gesture: the Watch button's, or (a replay's page opens by itself) the first click or key.
  if (replaying) {
    for (const type of ["pointerdown", "keydown"]) window.addEventListener(type, () => sounds.start(), { once: true });
  } else {
    sounds.start();
  }
  button.disabled = true;
  error.textContent = "";
  status.set("Opening the view…", "busy");
  try {
    // Read again at each rejoin (a lost link, a replay's world made again): the camera comes back where it was;
    // the first join of a Follow from the console starts where its entity was last seen.
    const request: SpectateRequest = {
      ...(adminToken === "" ? {} : { adminToken }),
      get at() {
        return watching?.cameraTile ?? followRequest?.at;
      },
      get follow() {
        return watching?.following || undefined;
      },
    };
    const connection = await connectSpectator(serverUrl, request, (joined) =>
      connectBest(serverUrl, joined.token, connectOptionsFromQuery(location.search)),
    );
    await installWorld(connection.world);
    const client = GameClient.create({
      core: resources.core,
      transport: connection.transport,
      session: connection.session,
      world: connection.world,
      reconnect: connection.reconnect,
      // A paused replay sends no frames for as long as it stays paused: only a closed link is a loss.
      ...(replaying ? { options: { disconnectAfterMs: REPLAY_DISCONNECT_AFTER_MS } } : {}),
    });
    window.addEventListener("pagehide", () => client.close(), { once: true });
    spectateCard.hidden = true;
    watching = new SpectateSession({
      client,
      feed: new CameraFeed(client),
      start: connection.session.camera,
      ...(followRequest === null ? {} : { follow: followRequest.entityId }),
      renderer,
      view,
      debug,
      status,
      // The public lines it overhears and the blows near its camera, in the log a player's page has.
      log: {
        logPanel: element("log-panel"),
        viewClip: element("screen"),
        logMirror: element("log"),
        combatMirror: element("combat-log"),
      },
    });
    if (replaying) {
      new ReplayWatch({ baseUrl: serverUrl, client, session: watching, bar: element("replay"), status });
    }
    // What a player there would hear: the followed one's steps, the doors around the camera.
    const cues = new SoundCues(client, sounds, watching.listener);
    const listen = () => {
      cues.update();
      requestAnimationFrame(listen);
    };
    requestAnimationFrame(listen);
  } catch (failure) {
    const explanation = explainJoinError(failure, serverUrl);
    error.textContent = explanation;
    status.set(`Not watching: ${explanation}`, "bad");
    spectateCard.hidden = false;
    button.disabled = false;
  }
}

async function play(request: JoinRequest): Promise<void> {
  if (!loaded || session) return;
  const { resources, renderer, view } = loaded;
  join.setBusy(true);
  join.showError("");
  markPlay();
  sounds.start();
  const who = request.kind === "guest" ? request.nick : request.name;
  status.set(request.kind === "register" ? `Registering ${who}…` : `Joining as ${who}…`, "busy");
  const notes: string[] = [];
  const linkOptions = {
    ...connectOptionsFromQuery(location.search),
    onFallback: (reason: string) => notes.push(`No data channel (${reason}); using WebSocket`),
  };
  // The data channel's offer is gathered while the join's request is out (it needs nothing of the session);
  // the first link takes it, a later one (a reconnect) makes its own.
  let offer: WebRtcOffer | undefined;
  const firstOffer = (): WebRtcOffer | undefined => {
    const taken = offer;
    offer = undefined;
    return taken;
  };
  try {
    // Every link signs its ActionPackets with the session key (signed-transport.ts): a cluster's session can
    // then go on through another gateway when its own stops answering (moveTo below).
    const joining = connect(request, async (joined) =>
      signedTransport(await connectBest(serverUrl, joined.token, { ...linkOptions, offer: firstOffer() }), joined.key),
    );
    // After the join's request has gone: the first RTCPeerConnection of a page can take a moment to make.
    if (!linkOptions.disableWebRtc) offer = startOffer();
    const connection = await joining;
    await installWorld(connection.world);
    const client = GameClient.create({
      core: resources.core,
      transport: connection.transport,
      session: connection.session,
      world: connection.world,
      reconnect: connection.reconnect,
      // A cluster's gateway that stops answering: the same session goes on through the next one the join
      // named, at its own origin (docs/protocol.md § 6.2), each way tried for at most MOVE_LINK_TIMEOUT_MS.
      moveTo: async (moving, gateway) =>
        signedTransport(
          await connectBest(gatewayBaseUrl(serverUrl, gateway), moving.token, {
            ...linkOptions,
            webRtcTimeoutMs: MOVE_LINK_TIMEOUT_MS,
            webSocketTimeoutMs: MOVE_LINK_TIMEOUT_MS,
          }),
          moving.key,
        ),
    });
    // Leaving the page closes the link (for WebRTC that sends the close the server waits for), so the
    // server ends the session at once and the others read "left" now, not after its 10 s timeout.
    window.addEventListener("pagehide", () => client.close(), { once: true });
    join.hide();
    session = new PlaySession({
      client,
      nick: connection.session.nick,
      renderer,
      view,
      debug,
      status,
      notes,
      deathScreen: element("death"),
      logMirror: element("log"),
      combatMirror: element("combat-log"),
      logPanel: element("log-panel"),
      viewClip: element("screen"),
      hudBar: element("hud-bar"),
      frameLog,
    });
    // Chat, dialogs and names, for as long as the page plays (its listeners and the scene hook hold it).
    const social = new SocialSession({
      client,
      renderer,
      canvas: view.canvas,
      chatForm: element("chat"),
      chatInput: element("chat-input"),
      chatNote: element("chat-note"),
      dialogLayer: element("dialogs"),
      log: session.messages,
      scrollLog: (direction) => session?.scrollLog(direction),
      tiles: resources.images.tiles,
    });
    // The bag and the chest windows (their listeners hold them).
    new ItemPanels({
      client,
      layer: element("items"),
      sprites: new TileImages(document, resources.images.sprites),
      home: view.canvas,
      note: (text, bad) => social.note(text, bad),
    });
    // The d-pad and the use, chat and bag buttons on a touch screen (they press the game's keys).
    new TouchControls(element("touch"), window, view.canvas);
    // The map of the explored chunks (M) and who is online (O); their listeners and timers hold them.
    new Minimap(element("minimap"), client, tileColours(connection.world.tiles, resources.images.tiles));
    element("who").hidden = false;
    new WhoOnline(element("who"), serverUrl, view.canvas, {
      ownNick: connection.session.nick,
      post: (line) => void client.postChat(line),
      draft: (line) => social.draft(line),
    });
    // The quest journal (J): the quests under way and what each asks.
    element("quests").hidden = false;
    new QuestJournal(element("quests"), client, serverUrl, view.canvas);
    // The party (issue 39): the other members and their health, while the player is in one.
    new PartyPanel(element("party"), client);
    const cues = new SoundCues(client, sounds);
    const listen = () => {
      cues.update();
      requestAnimationFrame(listen);
    };
    requestAnimationFrame(listen);
  } catch (error) {
    // The same plain words on the card and under the game: what happened, not just "not connected".
    const explanation = explainJoinError(error, serverUrl);
    join.showError(explanation);
    status.set(`Not connected: ${explanation}`, "bad");
  } finally {
    // A join refused before its link was made leaves the offer unused.
    firstOffer()?.close();
    join.setBusy(false);
  }
}

/** An offer for the data channel (offerWebRtc), or none where the browser has no WebRTC (the WebSocket then). */
function startOffer(): WebRtcOffer | undefined {
  try {
    return offerWebRtc();
  } catch {
    return undefined;
  }
}
