// The console's People tab (admin-console-page.ts embeds this script): who is online (GET /api/admin/players),
// the accounts (GET /api/admin/accounts: bans, mutes, last login), the recent chat (GET /api/admin/chat) with
// a mute and a kick beside each line, and the admin log — all narrowed by one search box. Its buttons post
// to the admin API's own routes through the page's postAction, as the map's panel does. Text from players
// is only ever set as textContent. The script avoids `${` and backquotes: it lives in a template string.
export const PEOPLE_SCRIPT = `
"use strict";
function cell(row, value) {
  const td = document.createElement("td");
  td.textContent = value === null || value === undefined ? "–" : String(value);
  row.append(td);
  return td;
}

function button(label, onClick, enabled) {
  const b = document.createElement("button");
  b.textContent = label;
  b.disabled = enabled === false;
  b.addEventListener("click", onClick);
  return b;
}

function peopleQuery() { return document.getElementById("people-search").value.trim(); }

/** People's actions: said in the tab's own answer line, then the tab read again. */
async function peopleAct(action, body) {
  await postAction(action, body, "people-result");
  await refreshPeople();
}

function showOnline(players, query) {
  const needle = query.toLowerCase();
  const rows = players.filter((p) => needle === "" || p.nick.toLowerCase().includes(needle) || String(p.address ?? "").includes(needle));
  document.querySelector("#online tbody").replaceChildren(...rows.map((p) => {
    const tr = document.createElement("tr");
    cell(tr, p.nick); cell(tr, p.level); cell(tr, p.hp + "/" + p.hpMax); cell(tr, p.transport); cell(tr, p.address);
    cell(tr, p.muted ? "muted" : "");
    const actions = cell(tr, "");
    actions.textContent = "";
    actions.append(
      button("Map", () => { document.querySelector("#tabs [data-tab=view]").click(); select(p.entityId); }),
      button(p.muted ? "Unmute" : "Mute", () => peopleAct(p.muted ? "unmute" : "mute", { entityId: p.entityId })),
      button("Kick", () => peopleAct("kick", { entityId: p.entityId })),
    );
    return tr;
  }));
}

function showAccounts(accounts) {
  if (accounts.length === 0) return document.querySelector("#accounts tbody").replaceChildren(note("no account matches"));
  document.querySelector("#accounts tbody").replaceChildren(...accounts.map((a) => {
    const tr = document.createElement("tr");
    cell(tr, a.name); cell(tr, a.nick + (a.entityId !== null ? " (online)" : ""));
    cell(tr, a.entityId !== null ? "online now" : a.lastLoginAtMs !== null ? new Date(a.lastLoginAtMs).toLocaleString() : "registered " + new Date(a.createdAtMs).toLocaleString());
    cell(tr, a.ban ?? ""); cell(tr, a.muted ? "muted" : "");
    const actions = cell(tr, "");
    actions.textContent = "";
    if (a.ban !== null) actions.append(button("Unban", () => peopleAct("unban", { account: a.name })));
    return tr;
  }));
}

function showChat(lines) {
  document.getElementById("chat-log").replaceChildren(...lines.map((line) => {
    const item = document.createElement("li");
    const time = document.createElement("span"); time.textContent = new Date(line.atMs).toLocaleTimeString();
    const nick = document.createElement("span"); nick.className = "nick"; nick.textContent = line.nick + (line.muted ? " (muted)" : "");
    const said = document.createElement("span"); said.className = "text"; said.textContent = line.text;
    const gone = line.inPlay ? undefined : false;
    item.append(time, nick, said,
      button("Mute", () => peopleAct("mute", { entityId: line.entityId, reason: "for saying: " + line.text.slice(0, 80) }), gone),
      button("Kick", () => peopleAct("kick", { entityId: line.entityId }), gone));
    return item;
  }));
}

function showFullLog(entries, query) {
  const needle = query.toLowerCase();
  const shown = entries.filter((entry) => needle === "" || (entry.action + " " + JSON.stringify(entry.detail)).toLowerCase().includes(needle));
  document.getElementById("admin-log-full").replaceChildren(...shown.map((entry) => {
    const item = document.createElement("li");
    item.textContent = new Date(entry.atMs).toLocaleString() + " " + entry.action + " " + JSON.stringify(entry.detail);
    return item;
  }));
}

async function readJson(path) {
  const response = await fetch(path);
  const answer = await response.json();
  if (!response.ok) throw new Error(path + ": " + answer.error);
  return answer;
}

async function refreshPeople() {
  if (document.getElementById("people").hidden) return;
  const query = peopleQuery();
  const q = encodeURIComponent(query);
  const [players, accounts, chat, log] = await Promise.allSettled([
    readJson("/api/admin/players"),
    readJson("/api/admin/accounts?limit=50&q=" + q),
    readJson("/api/admin/chat?limit=100&q=" + q),
    readJson("/api/admin/log?limit=200"),
  ]);
  if (players.status === "fulfilled") showOnline(players.value.players, query);
  if (accounts.status === "fulfilled") showAccounts(accounts.value.accounts);
  else document.querySelector("#accounts tbody").replaceChildren(note(accounts.reason.message));
  if (chat.status === "fulfilled") showChat(chat.value.lines);
  if (log.status === "fulfilled") showFullLog(log.value.entries, query);
}

function note(message) {
  const tr = document.createElement("tr");
  cell(tr, message).colSpan = 6;
  return tr;
}

let searchTimer = null;
document.getElementById("people-search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => void refreshPeople(), 250);
});
setInterval(() => void refreshPeople(), 3000);
`;
