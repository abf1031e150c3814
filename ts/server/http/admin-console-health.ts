// The console's Health tab (admin-console-page.ts embeds this script): graphs of the server's last hour,
// drawn with uPlot (admin-console-assets.ts) from GET /api/admin/history. The page asks only for the samples
// newer than those it holds (`?since=`), every sample interval, and keeps at most the server's capacity of
// them, so a console left open for hours holds an hour, as the server does. On a cluster's gateway (the
// world lists its regions) a picker chooses the region whose graphs are shown (`?region=N`): each region
// samples its own process on its own times. The script avoids `${` and backquotes: it lives in a template
// string.
export const HEALTH_SCRIPT = `
"use strict";
/** The charts: each a title, a unit for its axis, and the series (names in the history's answer) it draws. */
const HEALTH_CHARTS = [
  { id: "tick", title: "Tick duration (ms)", series: [["tickP50Ms", "p50", "#4ea8e0"], ["tickP99Ms", "p99", "#e0a040"]] },
  { id: "lost", title: "Ticks lost (per sample)", series: [["ticksLost", "lost", "#e0404a"]] },
  { id: "think", title: "Think budget (units/s)", series: [["thinkSpentPerSecond", "spent", "#4ee06a"], ["thinkShedPerSecond", "shed", "#e0404a"]] },
  { id: "population", title: "Players and creatures", series: [["players", "players", "#4ee06a"], ["creatures", "creatures", "#e0404a"]] },
  { id: "bandwidth", title: "Bandwidth (kB/s)", scale: 1 / 1000, series: [["bytesInPerSecond", "up (in)", "#4ea8e0"], ["bytesOutPerSecond", "down (out)", "#e0a040"]] },
  { id: "delay", title: "Event-loop delay p99 (ms)", series: [["eventLoopDelayP99Ms", "p99", "#c080ff"]] },
  { id: "memory", title: "Memory (MB)", scale: 1 / 1048576, series: [["residentMemoryBytes", "RSS", "#4ea8e0"], ["heapUsedBytes", "heap", "#e0a040"]] },
];
const healthData = { atMs: [], series: {}, capacity: 720, intervalMs: 5000 };
const healthCharts = new Map();
/** The region shown, on a cluster's gateway (null in one process). */
let healthRegion = null;

/** The picker of a cluster's regions, from the world the map polls (the page script's own world). */
function healthRegionPicker() {
  const picker = document.getElementById("health-region");
  const regions = world !== null && Array.isArray(world.regions) ? world.regions.map((ground) => ground.region) : [];
  picker.hidden = regions.length < 2;
  if (regions.length < 2 || picker.options.length === regions.length) return;
  picker.replaceChildren(...regions.map((region) => {
    const option = document.createElement("option");
    option.value = String(region);
    option.textContent = "region " + region;
    return option;
  }));
  if (healthRegion === null) healthRegion = regions[0];
  picker.value = String(healthRegion);
}

document.getElementById("health-region").addEventListener("change", (event) => {
  healthRegion = Number(event.target.value);
  healthData.atMs = [];
  healthData.series = {};
  refreshHealth();
});

function chartData(chart) {
  const scale = chart.scale ?? 1;
  return [healthData.atMs.map((ms) => ms / 1000)].concat(chart.series.map(([name]) =>
    (healthData.series[name] ?? []).map((value) => value === null ? null : value * scale)));
}

function chartWidth() {
  const area = document.getElementById("health");
  return Math.max(260, Math.min(760, area.clientWidth - 24));
}

/** Builds the charts once the tab is shown (uPlot measures its box), then only feeds them data. */
function drawHealth() {
  const area = document.getElementById("health");
  if (area.hidden) return;
  for (const chart of HEALTH_CHARTS) {
    let plot = healthCharts.get(chart.id);
    if (plot === undefined) {
      const box = document.createElement("div");
      box.id = "chart-" + chart.id;
      box.className = "chart";
      document.getElementById("charts").append(box);
      plot = new uPlot({
        title: chart.title,
        width: chartWidth(),
        height: 180,
        scales: { x: { time: true } },
        series: [{}].concat(chart.series.map(([, label, stroke]) => ({ label, stroke, width: 2, spanGaps: false }))),
        axes: [{ stroke: "#aab", grid: { stroke: "#2a2d33" } }, { stroke: "#aab", grid: { stroke: "#2a2d33" } }],
      }, chartData(chart), box);
      healthCharts.set(chart.id, plot);
    } else {
      plot.setData(chartData(chart));
    }
  }
  text("health-samples", healthData.atMs.length + " samples, one every " + healthData.intervalMs / 1000 + " s (the last hour is kept)");
}

async function refreshHealth() {
  healthRegionPicker();
  const region = healthRegion;
  const last = healthData.atMs.length === 0 ? null : healthData.atMs[healthData.atMs.length - 1];
  const query = [];
  if (region !== null) query.push("region=" + region);
  if (last !== null) query.push("since=" + last);
  const response = await fetch("/api/admin/history" + (query.length === 0 ? "" : "?" + query.join("&")));
  if (!response.ok) return;
  const answer = await response.json();
  // Another region was picked while this one was asked for: its samples are not the graphs' any more.
  if (region !== healthRegion) return;
  healthData.capacity = answer.capacity;
  healthData.intervalMs = answer.intervalMs;
  healthData.atMs.push(...answer.atMs);
  for (const [name, values] of Object.entries(answer.series)) (healthData.series[name] ??= []).push(...values);
  // Bounded as the server's ring is: the oldest samples go first.
  const over = healthData.atMs.length - healthData.capacity;
  if (over > 0) {
    healthData.atMs.splice(0, over);
    for (const values of Object.values(healthData.series)) values.splice(0, over);
  }
  drawHealth();
}

window.addEventListener("resize", () => {
  for (const plot of healthCharts.values()) plot.setSize({ width: chartWidth(), height: 180 });
});
refreshHealth().finally(() => setInterval(refreshHealth, healthData.intervalMs));
`;
