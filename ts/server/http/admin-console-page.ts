// The page of the operators' console at /admin (admin-console.ts): one document, no build step. It draws
// the map's cells once (GET /api/admin/map), then every second where everyone is (GET /api/admin/world):
// players as green squares with their nicks, creatures as red ones. A click selects who or what is there:
// the panel beside the map shows it (GET /api/admin/entity) with buttons that act on a player through the
// admin API's own routes (POST /api/admin/message, mute, unmute, kick, ban, teleport), each answered on the
// page with what it did, and the admin log below them. The browser sends the token it was given at its
// login prompt with each request (Basic credentials, same origin). Text from players is only ever set as
// textContent. The Health tab's graphs are admin-console-health.ts's, the People tab admin-console-people.ts's,
// the Recordings tab admin-console-recordings.ts's. The script avoids `${` and backquotes: it lives in this
// template string.
import { HEALTH_SCRIPT } from "./admin-console-health.js";
import { PEOPLE_SCRIPT } from "./admin-console-people.js";
import { RECORDINGS_MARKUP, RECORDINGS_SCRIPT } from "./admin-console-recordings.js";

export const ADMIN_CONSOLE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Forgotten Caves: console</title>
<link rel="stylesheet" href="/admin/uplot.css">
<script src="/admin/uplot.js"></script>
<style>
  body { margin: 0; font: 14px system-ui, sans-serif; background: #15171a; color: #e6e6e6; display: flex; height: 100vh; }
  #side { width: 20rem; padding: 0.75rem; overflow: auto; border-right: 1px solid #333; flex: none; box-sizing: border-box; }
  #view, #health, #people, #recordings { flex: 1; overflow: auto; position: relative; }
  #health, #people, #recordings { padding: 0.75rem; }
  [hidden] { display: none !important; }
  .table { overflow-x: auto; }
  #recording-list td { white-space: normal; overflow-wrap: anywhere; min-width: 4rem; }
  #recording-list td:first-child { white-space: nowrap; min-width: 0; }
  table { border-collapse: collapse; font-size: 13px; }
  th, td { text-align: left; padding: 0.2rem 0.5rem; border-bottom: 1px solid #262a30; white-space: nowrap; }
  th { color: #9aa; font-weight: normal; }
  td button { padding: 0.1rem 0.4rem; font-size: 12px; }
  #chat-log li, #admin-log-full li { font-size: 13px; border-bottom: 1px solid #262a30; display: flex; gap: 0.4rem; align-items: baseline; flex-wrap: wrap; }
  #chat-log li span.text { flex: 1; min-width: 8rem; overflow-wrap: anywhere; }
  #chat-log li .nick { color: #4ee06a; }
  .chart { margin: 0 0 1rem; }
  .uplot { color: #e6e6e6; font-family: inherit; }
  #tabs { display: flex; flex-wrap: wrap; gap: 0.3rem; margin: 0.5rem 0; }
  #tabs button[aria-selected="true"] { background: #3a4250; border-color: #7a8; }
  canvas { image-rendering: pixelated; display: block; cursor: crosshair; }
  h1 { font-size: 1rem; margin: 0 0 0.5rem; }
  h2 { font-size: 0.95rem; margin: 1rem 0 0.4rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: 0.2rem 0.75rem; margin: 0.5rem 0; }
  dt { color: #9aa; } dd { margin: 0; overflow-wrap: anywhere; }
  #status.stale { color: #f77; }
  ul { list-style: none; padding: 0; margin: 0.25rem 0; } li { padding: 0.1rem 0; }
  label { display: block; margin: 0.5rem 0; }
  input, select, button { font: inherit; background: #23262b; color: #e6e6e6; border: 1px solid #444; border-radius: 4px; padding: 0.3rem 0.5rem; }
  button { cursor: pointer; margin: 0.15rem 0.15rem 0.15rem 0; }
  button:hover { background: #2f333a; }
  button.danger { border-color: #a44; }
  .row { display: flex; flex-wrap: wrap; gap: 0.3rem; align-items: center; margin: 0.3rem 0; }
  .row input { flex: 1; min-width: 5rem; }
  .row input.short { flex: none; width: 4rem; min-width: 0; }
  #action-result, .result { margin: 0.4rem 0; padding: 0.4rem; border-radius: 4px; background: #1e2a22; min-height: 1.2em; }
  #action-result.refused, .result.refused { background: #3a1f22; }
  #action-result:empty, .result:empty { display: none; }
  #admin-log li, #players li { font-size: 12px; border-bottom: 1px solid #262a30; }
  #players li { cursor: pointer; }
  .muted { color: #e8b04a; }
  #follow { position: fixed; top: 0; right: 0; bottom: 0; left: 20rem; display: flex; flex-direction: column; background: #0b0c0e; z-index: 10; }
  #follow .bar { display: flex; gap: 0.5rem; align-items: center; padding: 0.3rem 0.6rem; border-bottom: 1px solid #333; }
  #follow .bar span { flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  #follow iframe { flex: 1; border: 0; width: 100%; background: #000; }
  @media (max-width: 700px) { body { flex-direction: column; } #side { width: auto; border-right: none; border-bottom: 1px solid #333; max-height: 45vh; } #follow { left: 0; } }
</style>
</head>
<body>
<div id="side">
  <h1>Forgotten Caves</h1>
  <div id="status">connecting…</div>
  <div id="tabs" role="tablist">
    <button role="tab" data-tab="view" aria-selected="true">Map</button>
    <button role="tab" data-tab="health" aria-selected="false">Health</button>
    <button role="tab" data-tab="people" aria-selected="false">People</button>
    <button role="tab" data-tab="recordings" aria-selected="false">Recordings</button>
  </div>
  <dl>
    <dt>map</dt><dd id="map-name">–</dd>
    <dt>tick</dt><dd id="tick">–</dd>
    <dt>players</dt><dd id="player-count">–</dd>
    <dt>creatures</dt><dd id="creature-count">–</dd>
  </dl>
  <label>zoom <select id="zoom"><option>1</option><option selected>2</option><option>4</option><option>8</option></select></label>
  <h2>Selected</h2>
  <dl id="selected"><dt>–</dt><dd>click the map or a player below</dd></dl>
  <div class="row" id="watch-row" hidden><button id="do-follow">Follow with the camera</button></div>
  <div id="actions" hidden>
    <div class="row"><input id="action-text" placeholder="message, or the reason for a mute, kick or ban" maxlength="200"></div>
    <div class="row">minutes <input id="action-minutes" class="short" type="number" min="1" placeholder="ever">
      <button id="do-message">Message</button><button id="do-mute">Mute</button><button id="do-unmute">Unmute</button></div>
    <div class="row"><button id="do-kick" class="danger">Kick</button><button id="do-ban" class="danger">Ban</button>
      <button id="do-teleport">Teleport to safe spot</button></div>
    <div class="row">to <input id="teleport-x" class="short" type="number" min="0" placeholder="x"><input id="teleport-y" class="short" type="number" min="0" placeholder="y">
      <button id="do-teleport-to">Teleport there</button></div>
  </div>
  <div id="action-result" role="status"></div>
  <h2>Players</h2>
  <ul id="players"></ul>
  <h2>Admin log</h2>
  <ul id="admin-log"></ul>
</div>
<div id="view"><canvas id="canvas" width="1" height="1"></canvas></div>
<div id="people" hidden>
  <div class="row"><input id="people-search" type="search" placeholder="search players, accounts, chat and the admin log" maxlength="64"></div>
  <div id="people-result" class="result" role="status"></div>
  <h2>Online</h2>
  <div class="table"><table id="online"><thead><tr><th>nick</th><th>level</th><th>hp</th><th>transport</th><th>address</th><th>chat</th><th></th></tr></thead><tbody></tbody></table></div>
  <h2>Accounts</h2>
  <div class="table"><table id="accounts"><thead><tr><th>name</th><th>nick</th><th>last seen</th><th>ban</th><th>chat</th><th></th></tr></thead><tbody></tbody></table></div>
  <h2>Chat</h2>
  <ul id="chat-log"></ul>
  <h2>Admin log</h2>
  <ul id="admin-log-full"></ul>
</div>
${RECORDINGS_MARKUP}
<div id="follow" hidden role="dialog" aria-label="Following with the spectator camera">
  <div class="bar"><span id="follow-title"></span><button id="follow-close">Close</button></div>
</div>
<div id="health" hidden><select id="health-region" aria-label="Region" hidden></select><div id="health-samples">no samples yet</div><div id="charts"></div></div>
<script>
"use strict";
const canvas = document.getElementById("canvas");
const context = canvas.getContext("2d");
let background = null;
let world = null;
let zoom = 2;
/** The entity id selected on the map, and what the server last said of it. */
let selectedId = null;
let selected = null;

function text(id, value) { document.getElementById(id).textContent = String(value); }

function row(list, term, value) {
  const dt = document.createElement("dt"); dt.textContent = term;
  const dd = document.createElement("dd"); dd.textContent = String(value);
  list.append(dt, dd);
}

function ago(ms) {
  if (ms === null || ms === undefined) return "no datagram yet";
  return ms < 1000 ? ms + " ms ago" : (ms / 1000).toFixed(1) + " s ago";
}

function when(ms) { return ms === null || ms === undefined ? "until lifted" : "until " + new Date(ms).toLocaleString(); }

async function loadMap() {
  const response = await fetch("/api/admin/map");
  if (!response.ok) throw new Error("map: " + response.status);
  const width = Number(response.headers.get("x-map-width"));
  const cells = new Uint8Array(await response.arrayBuffer());
  const height = cells.length / width;
  const image = new ImageData(width, height);
  for (let i = 0; i < cells.length; i++) {
    const shade = cells[i] === 1 ? 58 : 17;
    image.data.set([shade, shade, shade + 6, 255], i * 4);
  }
  background = await createImageBitmap(image);
}

function draw() {
  if (background === null) return;
  canvas.width = background.width * zoom;
  canvas.height = background.height * zoom;
  context.imageSmoothingEnabled = false;
  context.drawImage(background, 0, 0, canvas.width, canvas.height);
  if (world === null) return;
  // A cluster's regions (a gateway's answer): each one's ground outlined, its number in its corner.
  if (world.regions !== undefined) {
    context.save();
    context.strokeStyle = "#5a8dee";
    context.fillStyle = "#5a8dee";
    context.lineWidth = 1;
    context.setLineDash([6, 4]);
    context.font = "12px system-ui, sans-serif";
    for (const ground of world.regions) {
      for (const rect of ground.rects) {
        context.strokeRect(rect.x0 * zoom + 0.5, rect.y0 * zoom + 0.5, (rect.x1 - rect.x0) * zoom - 1, (rect.y1 - rect.y0) * zoom - 1);
        context.fillText("region " + ground.region, rect.x0 * zoom + 4, rect.y0 * zoom + 14);
      }
    }
    context.restore();
  }
  const size = Math.max(2, zoom);
  context.fillStyle = "#e0404a";
  for (const [, x, y] of world.creatures) context.fillRect(x * zoom, y * zoom, size, size);
  context.font = "12px system-ui, sans-serif";
  for (const player of world.players) {
    context.fillStyle = "#4ee06a";
    context.fillRect(player.x * zoom - 1, player.y * zoom - 1, size + 2, size + 2);
    context.fillText(player.nick, player.x * zoom + size + 3, player.y * zoom + size);
  }
  if (selected !== null && selected.x !== undefined) {
    context.strokeStyle = "#ffd84a";
    context.lineWidth = 2;
    context.strokeRect(selected.x * zoom - 4, selected.y * zoom - 4, size + 8, size + 8);
  }
}

function showPlayers() {
  const list = document.getElementById("players");
  list.replaceChildren(...world.players.map((player) => {
    const item = document.createElement("li");
    item.textContent = player.nick + " (" + player.x + ", " + player.y + ") " + player.hp + "/" + player.hpMax + " hp";
    item.addEventListener("click", () => select(player.entityId));
    return item;
  }));
}

/** The selected entity, as /api/admin/entity says it now. */
async function showSelected() {
  if (selectedId === null) return;
  const list = document.getElementById("selected");
  const actions = document.getElementById("actions");
  const response = await fetch("/api/admin/entity?id=" + selectedId);
  const answer = await response.json();
  list.replaceChildren();
  if (!response.ok) {
    selected = null;
    actions.hidden = true;
    document.getElementById("watch-row").hidden = true;
    row(list, "entity " + selectedId, "gone: " + answer.error);
    return;
  }
  selected = answer;
  // At a cluster's gateway too: the region holding the entity serves the view, and hands it on across borders.
  document.getElementById("watch-row").hidden = false;
  if (answer.region !== undefined) row(list, "region", answer.region);
  if (answer.kind === "player") {
    row(list, "player", answer.nick);
    row(list, "entity", answer.entityId);
    row(list, "at", answer.x + ", " + answer.y);
    row(list, "hp", answer.hp + " / " + answer.hpMax);
    row(list, "level", answer.level + " (" + answer.xp + " xp)");
    row(list, "elo", answer.elo);
    row(list, "account", answer.accountId === null ? "guest" : "#" + answer.accountId);
    row(list, "transport", answer.transport ?? "not connected yet");
    row(list, "address", answer.address ?? "–");
    row(list, "last heard", ago(answer.lastHeardMsAgo));
    const loss = answer.inboundLoss;
    row(list, "loss in", loss === null ? "not measured (its packets are not numbered)" : loss.sent === 0 ? "–" : (100 * loss.lost / loss.sent).toFixed(1) + " % (" + loss.lost + " of the last " + loss.sent + " actions)");
    const rtt = answer.rtt;
    row(list, "rtt", rtt === null ? "not measured yet (timed from its entity acknowledgements; a client that sends none has none)" : rtt.ms + " ms (newest " + rtt.lastMs + " ms, " + rtt.samples + " samples)");
    const out = answer.outboundLoss;
    row(list, "loss out", out === null || out === undefined ? "not measured (its client reports no pongs)" : out.sent === 0 ? "–" : (100 * out.lost / out.sent).toFixed(1) + " % (" + out.lost + " of the last " + out.sent + " pongs)");
    row(list, "chat", answer.muted ? "muted" : "may speak");
    actions.hidden = false;
  } else {
    row(list, "creature", answer.name);
    row(list, "entity", answer.entityId);
    row(list, "at", answer.x + ", " + answer.y);
    row(list, "hp", answer.hp + " / " + answer.hpMax);
    row(list, "level", answer.level);
    actions.hidden = true;
  }
}

function select(entityId) {
  selectedId = entityId;
  showSelected().then(draw, (error) => text("action-result", "could not read the entity: " + error.message));
}

/** What an action did, in words, from the admin API's answer. */
function said(action, body) {
  const who = body.nick !== undefined ? body.nick + " (entity " + body.entityId + ")" : "entity " + body.entityId;
  switch (action) {
    case "message": return "told " + who + " your message";
    case "mute": return "muted " + who + " " + when(body.untilMs);
    case "unmute": return body.lifted ? "lifted the mute of " + who : who + " was not muted";
    case "kick": return "kicked " + who;
    case "unban": return body.lifted ? "lifted the ban" : "there was no ban to lift";
    case "ban": return "banned " + (body.account !== null ? "account " + body.account : "address " + body.address) + " " + when(body.untilMs) + (body.kicked.length > 0 ? "; ended the session of " + body.kicked.join(", ") : "");
    case "teleport": return "moved " + who + " from (" + body.from.x + ", " + body.from.y + ") to (" + body.to.x + ", " + body.to.y + ")" + (body.safeSpot ? ", the nearest spawn point" : "");
    default: return action + ": done";
  }
}

/** Posts an admin action through the admin API and says in #resultId what it did (or why it was refused). */
async function postAction(action, body, resultId) {
  const result = document.getElementById(resultId);
  const response = await fetch("/api/admin/" + action, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  result.classList.toggle("refused", !response.ok);
  result.textContent = response.ok ? said(action, answer) : action + " refused (" + response.status + "): " + answer.error;
  await showLog();
  return response.ok;
}

/** Runs an admin action on the selected player. */
async function act(action, extra) {
  if (selected === null || selected.kind !== "player") return;
  await postAction(action, Object.assign({ entityId: selected.entityId }, extra), "action-result");
  await showSelected();
}

function reasonOr(fallback) {
  const value = document.getElementById("action-text").value.trim();
  return value === "" ? fallback : value;
}

function minutes() {
  const value = document.getElementById("action-minutes").value.trim();
  return value === "" ? undefined : Number(value);
}

function refusedHere(message) {
  const result = document.getElementById("action-result");
  result.className = "refused";
  result.textContent = message;
}

document.getElementById("do-message").addEventListener("click", () => {
  const line = document.getElementById("action-text").value.trim();
  if (line === "") return refusedHere("type the message first");
  void act("message", { text: line });
});
document.getElementById("do-mute").addEventListener("click", () => void act("mute", { minutes: minutes(), reason: reasonOr(undefined) }));
document.getElementById("do-unmute").addEventListener("click", () => void act("unmute", {}));
document.getElementById("do-kick").addEventListener("click", () => void act("kick", { reason: reasonOr(undefined) }));
// A ban takes a second click within 4 s (its button says so), and a reason (the banned are told it).
let banArmedUntil = 0;
document.getElementById("do-ban").addEventListener("click", (event) => {
  const reason = reasonOr(undefined);
  if (reason === undefined) return refusedHere("type the reason for the ban first (the player is told it)");
  if (Date.now() > banArmedUntil) {
    banArmedUntil = Date.now() + 4000;
    event.target.textContent = "Ban: click again";
    setTimeout(() => { event.target.textContent = "Ban"; }, 4000);
    return;
  }
  banArmedUntil = 0;
  event.target.textContent = "Ban";
  void act("ban", { minutes: minutes(), reason });
});
document.getElementById("do-teleport").addEventListener("click", () => void act("teleport", {}));
document.getElementById("do-teleport-to").addEventListener("click", () => {
  const x = document.getElementById("teleport-x").value.trim(), y = document.getElementById("teleport-y").value.trim();
  if (x === "" || y === "") return refusedHere("give the tile's x and y");
  void act("teleport", { x: Number(x), y: Number(y) });
});

// Follow: the game's own page, watching as a spectator (POST /api/spectate with the browser's credentials, the
// token it was given at the login prompt; never in the URL), following the selected entity from where the map
// last had it, in a frame over the main area. Closing the frame unloads that page, which closes its link, and
// the server ends the spectator's session at once.
function openFollow() {
  if (selected === null) return;
  closeFollow();
  const frame = document.createElement("iframe");
  frame.id = "follow-frame";
  frame.title = "spectator camera";
  frame.src = "/?spectate&follow=" + selected.entityId + "&x=" + selected.x + "&y=" + selected.y;
  const overlay = document.getElementById("follow");
  overlay.dataset.entityId = String(selected.entityId);
  text("follow-title", "following " + (selected.kind === "player" ? selected.nick : selected.name) + " (entity " + selected.entityId + "): Esc in the view lets go, a click follows another");
  overlay.append(frame);
  overlay.hidden = false;
}
function closeFollow() {
  const overlay = document.getElementById("follow");
  const frame = document.getElementById("follow-frame");
  if (frame !== null) frame.remove();
  overlay.hidden = true;
  delete overlay.dataset.entityId;
  // A replay viewer shown here is stopped with its frame (it would stop unused anyway, later).
  const viewerId = overlay.dataset.viewerId;
  delete overlay.dataset.viewerId;
  if (viewerId !== undefined) {
    void fetch("/api/admin/viewers/stop", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: viewerId }),
    });
  }
}
// A recording's replay (the Recordings tab's Watch): its viewer's page through this server, in the same frame.
function openViewer(viewer) {
  closeFollow();
  const frame = document.createElement("iframe");
  frame.id = "follow-frame";
  frame.title = "replay of " + viewer.name;
  frame.src = viewer.page;
  const overlay = document.getElementById("follow");
  overlay.dataset.viewerId = viewer.id;
  text("follow-title", "replaying " + viewer.name + ": Play, the speed and the slider are under the view; a player in the list is followed");
  overlay.append(frame);
  overlay.hidden = false;
}
document.getElementById("do-follow").addEventListener("click", openFollow);
document.getElementById("follow-close").addEventListener("click", closeFollow);
document.addEventListener("keydown", (event) => { if (event.key === "Escape" && !document.getElementById("follow").hidden) closeFollow(); });

/** The newest admin actions (the admin log), newest first. */
async function showLog() {
  const response = await fetch("/api/admin/log?limit=12");
  if (!response.ok) return;
  const { entries } = await response.json();
  document.getElementById("admin-log").replaceChildren(...entries.map((entry) => {
    const item = document.createElement("li");
    const result = entry.detail.result ?? {};
    const who = result.nick ?? (entry.detail.request && entry.detail.request.target && (entry.detail.request.target.nick ?? entry.detail.request.target.entityId)) ?? "";
    item.textContent = new Date(entry.atMs).toLocaleTimeString() + " " + entry.action + (who !== "" ? " " + who : "") + (entry.detail.why ? ": " + entry.detail.why : "");
    return item;
  }));
}

async function refresh() {
  try {
    const response = await fetch("/api/admin/world");
    if (!response.ok) throw new Error("world: " + response.status);
    world = await response.json();
    text("map-name", world.map.name);
    text("tick", world.tick);
    text("player-count", world.players.length);
    text("creature-count", world.creatureCount + (world.creatureCount > world.creatures.length ? " (" + world.creatures.length + " shown)" : ""));
    showPlayers();
    await showSelected();
    draw();
    text("status", "live");
    document.getElementById("status").className = "";
  } catch (error) {
    text("status", "not updating: " + error.message);
    document.getElementById("status").className = "stale";
  }
}

canvas.addEventListener("click", (event) => {
  if (world === null) return;
  const rect = canvas.getBoundingClientRect();
  const x = (event.clientX - rect.left) / zoom, y = (event.clientY - rect.top) / zoom;
  const near = (ex, ey) => Math.hypot(ex + 0.5 - x, ey + 0.5 - y);
  let best = null, bestDistance = 3;
  for (const player of world.players) {
    const d = near(player.x, player.y);
    if (d < bestDistance) { best = player.entityId; bestDistance = d; }
  }
  for (const creature of world.creatures) {
    const d = near(creature[1], creature[2]);
    if (d < bestDistance) { best = creature[0]; bestDistance = d; }
  }
  if (best === null) {
    selectedId = null; selected = null;
    document.getElementById("actions").hidden = true;
    document.getElementById("watch-row").hidden = true;
    const list = document.getElementById("selected");
    list.replaceChildren();
    row(list, "–", "nothing within 3 tiles");
    draw();
    return;
  }
  select(best);
});

// The tabs: one main area shown at a time, the side panel beside all of them.
for (const tab of document.querySelectorAll("#tabs button")) {
  tab.addEventListener("click", () => {
    for (const other of document.querySelectorAll("#tabs button")) {
      const shown = other === tab;
      other.setAttribute("aria-selected", String(shown));
      document.getElementById(other.dataset.tab).hidden = !shown;
    }
    if (tab.dataset.tab === "health") drawHealth();
    if (tab.dataset.tab === "people") void refreshPeople();
    if (tab.dataset.tab === "recordings") void refreshRecordings();
  });
}

document.getElementById("zoom").addEventListener("change", (event) => { zoom = Number(event.target.value); draw(); });

loadMap().then(refresh, (error) => text("status", error.message));
showLog();
setInterval(refresh, 1000);
setInterval(showLog, 5000);
// The recording being written grows: its line is read again while the tab is open.
setInterval(() => { if (!document.getElementById("recordings").hidden && recordingsServed) void refreshRecordings(); }, 5000);
</script>
<script>${HEALTH_SCRIPT}</script>
<script>${PEOPLE_SCRIPT}</script>
<script>${RECORDINGS_SCRIPT}</script>
</body>
</html>
`;
