// The page of the operators' console at /admin (admin-console.ts): one self-contained document, no build
// step, no libraries. It draws the map's cells once (GET /api/admin/map), then every second where everyone
// is (GET /api/admin/world): players as green squares with their nicks, creatures as red ones. A click
// shows who or what is there. The browser sends the token it was given at its login prompt with each
// request (Basic credentials, same origin). Text from players is only ever set as textContent.
export const ADMIN_CONSOLE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Forgotten Caves: console</title>
<style>
  body { margin: 0; font: 14px system-ui, sans-serif; background: #15171a; color: #e6e6e6; display: flex; height: 100vh; }
  #side { width: 18rem; padding: 0.75rem; overflow: auto; border-right: 1px solid #333; flex: none; }
  #view { flex: 1; overflow: auto; position: relative; }
  canvas { image-rendering: pixelated; display: block; cursor: crosshair; }
  h1 { font-size: 1rem; margin: 0 0 0.5rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: 0.2rem 0.75rem; margin: 0.5rem 0; }
  dt { color: #9aa; } dd { margin: 0; }
  #status.stale { color: #f77; }
  ul { list-style: none; padding: 0; margin: 0.25rem 0; } li { padding: 0.1rem 0; }
  label { display: block; margin: 0.5rem 0; }
  @media (max-width: 700px) { body { flex-direction: column; } #side { width: auto; border-right: none; border-bottom: 1px solid #333; max-height: 40vh; } }
</style>
</head>
<body>
<div id="side">
  <h1>Forgotten Caves</h1>
  <div id="status">connecting…</div>
  <dl>
    <dt>map</dt><dd id="map-name">–</dd>
    <dt>tick</dt><dd id="tick">–</dd>
    <dt>players</dt><dd id="player-count">–</dd>
    <dt>creatures</dt><dd id="creature-count">–</dd>
  </dl>
  <label>zoom <select id="zoom"><option>1</option><option selected>2</option><option>4</option><option>8</option></select></label>
  <h1>Selected</h1>
  <dl id="selected"><dt>–</dt><dd>click the map</dd></dl>
  <h1>Players</h1>
  <ul id="players"></ul>
</div>
<div id="view"><canvas id="canvas" width="1" height="1"></canvas></div>
<script>
"use strict";
const canvas = document.getElementById("canvas");
const context = canvas.getContext("2d");
let background = null;
let world = null;
let zoom = 2;

function text(id, value) { document.getElementById(id).textContent = String(value); }

function row(list, term, value) {
  const dt = document.createElement("dt"); dt.textContent = term;
  const dd = document.createElement("dd"); dd.textContent = String(value);
  list.append(dt, dd);
}

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
  const size = Math.max(2, zoom);
  context.fillStyle = "#e0404a";
  for (const [, x, y] of world.creatures) context.fillRect(x * zoom, y * zoom, size, size);
  context.font = "12px system-ui, sans-serif";
  for (const player of world.players) {
    context.fillStyle = "#4ee06a";
    context.fillRect(player.x * zoom - 1, player.y * zoom - 1, size + 2, size + 2);
    context.fillText(player.nick, player.x * zoom + size + 3, player.y * zoom + size);
  }
}

function showPlayers() {
  const list = document.getElementById("players");
  list.replaceChildren(...world.players.map((player) => {
    const item = document.createElement("li");
    item.textContent = player.nick + " (" + player.x + ", " + player.y + ") " + player.hp + "/" + player.hpMax + " hp";
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
    if (d < bestDistance) { best = { kind: "player", player }; bestDistance = d; }
  }
  for (const creature of world.creatures) {
    const d = near(creature[1], creature[2]);
    if (d < bestDistance) { best = { kind: "creature", creature }; bestDistance = d; }
  }
  const list = document.getElementById("selected");
  list.replaceChildren();
  if (best === null) { row(list, "–", "nothing within 3 tiles"); return; }
  if (best.kind === "player") {
    const p = best.player;
    row(list, "player", p.nick); row(list, "entity", p.entityId); row(list, "at", p.x + ", " + p.y); row(list, "hp", p.hp + " / " + p.hpMax);
  } else {
    const [id, cx, cy, hp, hpMax, typeId] = best.creature;
    row(list, "creature", world.kinds[typeId] ?? "kind " + typeId); row(list, "entity", id); row(list, "at", cx + ", " + cy); row(list, "hp", hp + " / " + hpMax);
  }
});

document.getElementById("zoom").addEventListener("change", (event) => { zoom = Number(event.target.value); draw(); });

loadMap().then(refresh, (error) => text("status", error.message));
setInterval(refresh, 1000);
</script>
</body>
</html>
`;
