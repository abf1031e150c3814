// The console's Recordings tab (admin-console-page.ts embeds this script and its markup): the flight recorder's
// files as GET /api/admin/recordings lists them (name, size, the span from its start to its last write, whether
// it is being written, a cut's window), a form that cuts one around a moment (POST /api/admin/recordings/cut,
// the command line's cut: recording-routes.ts) and says what the answer says, and a download of each
// (GET /api/admin/recordings/file?name=) fetched with the browser's own credentials into a blob, so neither the
// token nor a refusal ends up in an address or a log; a refusal is shown in words. A server started without
// --record has none of these routes (404), and the tab says so. At a cluster's gateway every region's files are
// listed, each with its region (a column of its own), and its download, cut and Watch name it (`?region=N`). The script avoids `${` and backquotes: it lives
// in a template string.

/** The tab's markup: the list, the cut form and the answer line. */
export const RECORDINGS_MARKUP = `
<div id="recordings" hidden>
  <div id="recordings-result" class="result" role="status"></div>
  <div id="recordings-served">
  <h2>Cut around a moment</h2>
  <form id="cut-form" class="row">
    <select id="cut-name" aria-label="recording"></select>
    <input id="cut-at" placeholder="HH:MM:SS (UTC), an ISO time or a tick" maxlength="40" aria-label="moment">
    before <input id="cut-before" class="short" type="number" min="0" max="86400" placeholder="120" aria-label="seconds before">
    after <input id="cut-after" class="short" type="number" min="0" max="86400" placeholder="60" aria-label="seconds after">
    <button id="cut-go" type="submit">Cut</button>
  </form>
  <h2>Recordings</h2>
  <div class="table"><table id="recording-list"><thead><tr><th></th><th>name</th><th>size</th><th>span</th><th>state</th><th>cut window</th><th class="recording-region" hidden>region</th></tr></thead><tbody></tbody></table></div>
  </div>
</div>`;

export const RECORDINGS_SCRIPT = `
"use strict";
/** Whether this server records at all (its routes answered), once known. */
let recordingsServed = null;

/** The query naming a recording's region at a cluster's gateway ("?region=N" or "&region=N"), "" in one process. */
function regionQuery(recording, first) {
  return recording.region === undefined ? "" : (first ? "?" : "&") + "region=" + recording.region;
}

/** A recording as the list and the cut form name it: its region's number first at a gateway. */
function recordingLabel(recording) {
  return (recording.region === undefined ? "" : "region " + recording.region + ": ") +
    (recording.folder === "" ? "" : recording.folder + "/") + recording.name;
}

function sizeText(bytes) {
  if (bytes < 1024) return bytes + " B";
  if (bytes < 1048576) return (bytes / 1024).toFixed(1) + " kB";
  return (bytes / 1048576).toFixed(1) + " MB";
}

function spanText(recording) {
  if (recording.startedAt === undefined) return "–";
  const start = new Date(recording.startedAt), end = new Date(recording.modified);
  const seconds = Math.max(0, Math.round((end.getTime() - start.getTime()) / 1000));
  const length = seconds < 120 ? seconds + " s" : seconds < 7200 ? Math.round(seconds / 60) + " min" : (seconds / 3600).toFixed(1) + " h";
  return start.toISOString().slice(0, 19).replace("T", " ") + " UTC, " + length;
}

function recordingsSay(message, refused) {
  const result = document.getElementById("recordings-result");
  result.classList.toggle("refused", refused);
  result.textContent = message;
}

/** A refusal's words from an answer that is not ok (the API's JSON error, else its status). */
async function refusalOf(response) {
  try { return "(" + response.status + "): " + (await response.json()).error; } catch { return "(" + response.status + ")"; }
}

// Watch: the server starts a replay viewer of the recording (POST /api/admin/recordings/watch, a process of its
// own reached through the server under /api/admin/viewers/ID/, behind the same login), and the replay's page
// opens in the frame over the main area, as Follow's does; closing the frame stops the viewer.
function watchRecordingCell(recording) {
  if (recording.error !== undefined) return document.createTextNode("");
  const watch = button("Watch", () => void watchRecording(recording, watch));
  watch.dataset.watch = recording.name;
  return watch;
}

async function watchRecording(recording, watch) {
  const name = recording.name;
  watch.disabled = true;
  recordingsSay("starting a replay of " + name + "…", false);
  try {
    const response = await fetch("/api/admin/recordings/watch" + regionQuery(recording, true), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: name }),
    });
    if (!response.ok) return recordingsSay("watch refused " + (await refusalOf(response)), true);
    const viewer = await response.json();
    recordingsSay("replaying " + name + " (ticks " + viewer.firstTick + "–" + viewer.lastTick + "): press Play in the view", false);
    openViewer(viewer);
    await showLog();
  } catch (error) {
    recordingsSay("watch failed: " + error.message, true);
  } finally {
    watch.disabled = false;
  }
}

/** Downloads one recording: fetched with the page's credentials, handed to the browser as a file from a blob. */
async function downloadRecording(recording) {
  const name = recording.name;
  const response = await fetch("/api/admin/recordings/file?name=" + encodeURIComponent(name) + regionQuery(recording, false));
  if (!response.ok) return recordingsSay("download refused " + (await refusalOf(response)), true);
  const blob = await response.blob();
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60000);
  recordingsSay("downloaded " + name + " (" + sizeText(blob.size) + ")", false);
}

function showRecordings(recordings) {
  const select = document.getElementById("cut-name");
  const chosen = select.value;
  // An option's value is its region and name (two regions' files may be chosen from at a gateway).
  const valueOf = (recording) => (recording.region === undefined ? "" : recording.region + " ") + recording.name;
  select.replaceChildren(...recordings.map((recording) => {
    const option = document.createElement("option");
    option.value = valueOf(recording);
    if (recording.region !== undefined) option.dataset.region = String(recording.region);
    option.dataset.name = recording.name;
    option.textContent = recordingLabel(recording) + (recording.live ? " (live)" : "");
    return option;
  }));
  // The recording being written is the one cut by default; a choice made stays chosen.
  const live = recordings.find((recording) => recording.live);
  if (recordings.some((recording) => valueOf(recording) === chosen)) select.value = chosen;
  else if (live !== undefined) select.value = valueOf(live);
  const inCluster = recordings.some((recording) => recording.region !== undefined);
  for (const header of document.querySelectorAll(".recording-region")) header.hidden = !inCluster;
  document.querySelector("#recording-list tbody").replaceChildren(...recordings.map((recording) => {
    const tr = document.createElement("tr");
    tr.dataset.name = recording.name;
    if (recording.region !== undefined) tr.dataset.region = String(recording.region);
    const actions = cell(tr, "");
    actions.textContent = "";
    actions.append(button("Download", () => void downloadRecording(recording)), watchRecordingCell(recording));
    cell(tr, (recording.folder === "" ? "" : recording.folder + "/") + recording.name);
    cell(tr, sizeText(recording.bytes));
    cell(tr, spanText(recording));
    cell(tr, recording.error !== undefined ? "unreadable: " + recording.error : recording.live ? "live" : "done");
    cell(tr, recording.window === undefined ? "" : "ticks " + recording.window.fromTick + "–" + recording.window.toTick + " of " + recording.window.cutFrom);
    // At a cluster's gateway: the region whose file it is (hidden in one process), last so the columns before stay put.
    const region = cell(tr, recording.region === undefined ? "" : String(recording.region));
    region.className = "recording-region";
    region.hidden = !inCluster;
    return tr;
  }));
}

async function refreshRecordings() {
  const response = await fetch("/api/admin/recordings");
  if (response.status === 404) {
    recordingsServed = false;
    document.getElementById("recordings-served").hidden = true;
    return recordingsSay("this server keeps no recordings: start it with --record DIR (docs/recording.md)", true);
  }
  if (!response.ok) return recordingsSay("could not list the recordings " + (await refusalOf(response)), true);
  recordingsServed = true;
  const answer = await response.json();
  showRecordings(answer.recordings);
  if (answer.recordings.length === 0) recordingsSay("no recordings in " + answer.dir + " yet", false);
}

document.getElementById("cut-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const at = document.getElementById("cut-at").value.trim();
  if (at === "") return recordingsSay("give the moment to cut around: a time (HH:MM:SS, UTC) or a tick", true);
  const chosen = document.getElementById("cut-name").selectedOptions[0];
  if (chosen === undefined) return recordingsSay("no recording to cut", true);
  const body = { name: chosen.dataset.name };
  const region = chosen.dataset.region === undefined ? "" : "?region=" + chosen.dataset.region;
  if (/^[0-9]+$/.test(at)) body.atTick = Number(at); else body.at = at;
  for (const [field, id] of [["before", "cut-before"], ["after", "cut-after"]]) {
    const value = document.getElementById(id).value.trim();
    if (value !== "") body[field] = Number(value);
  }
  const go = document.getElementById("cut-go");
  go.disabled = true;
  recordingsSay("cutting " + body.name + "…", false);
  try {
    const response = await fetch("/api/admin/recordings/cut" + region, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) return recordingsSay("cut refused " + (await refusalOf(response)), true);
    const cut = await response.json();
    recordingsSay("cut ticks " + cut.fromTick + "–" + cut.toTick + " of " + cut.from + (cut.region === undefined ? "" : " (region " + cut.region + ")") + " (around tick " + cut.atTick + ") into " + cut.folder + "/" + cut.name + ", " + sizeText(cut.bytes), false);
    await refreshRecordings();
    await showLog();
  } catch (error) {
    recordingsSay("cut failed: " + error.message, true);
  } finally {
    go.disabled = false;
  }
});
`;
