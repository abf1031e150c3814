// Minimal SVG charts for bench/REPORT.md: grouped bars (optionally on a log
// axis) and lines with reference lines. Plain strings, no dependencies, so
// the report can be regenerated anywhere the suite runs.
import type { Chart } from "./results.js";

const WIDTH = 760;
const HEIGHT = 340;
const MARGIN = { left: 70, right: 20, top: 40, bottom: 70 };
const COLOURS = ["#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5"];

function escape(text: string | number): string {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function niceNumber(value: number): string {
  if (value === 0) return "0";
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${+(value / 1e6).toPrecision(3)}M`;
  if (abs >= 1e3) return `${+(value / 1e3).toPrecision(3)}k`;
  return `${+value.toPrecision(3)}`;
}

/** Linear ticks: about `count` round steps from 0 to at least max. */
function linearTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? rough;
  const ticks: number[] = [];
  for (let v = 0; v <= max + step * 0.999; v += step) ticks.push(v);
  return ticks;
}

interface Axis {
  toY: (value: number) => number;
  ticks: number[];
}

function valueAxis(values: number[], log: boolean): Axis {
  const plotTop = MARGIN.top;
  const plotBottom = HEIGHT - MARGIN.bottom;
  const finite = values.filter((v) => Number.isFinite(v) && (!log || v > 0));
  const max = finite.length ? Math.max(...finite) : 1;
  if (log) {
    const min = finite.length ? Math.min(...finite) : 1;
    const low = Math.floor(Math.log10(min));
    const high = Math.ceil(Math.log10(max));
    const span = Math.max(1, high - low);
    const ticks: number[] = [];
    for (let e = low; e <= low + span; e++) ticks.push(10 ** e);
    return {
      ticks,
      toY: (v) => plotBottom - ((Math.log10(Math.max(v, 10 ** low)) - low) / span) * (plotBottom - plotTop),
    };
  }
  const ticks = linearTicks(max);
  const top = ticks[ticks.length - 1];
  return { ticks, toY: (v) => plotBottom - (v / top) * (plotBottom - plotTop) };
}

function frame(chart: Chart, axis: Axis, body: string[]): string {
  const plotRight = WIDTH - MARGIN.right;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="11">`,
  );
  out.push(`<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`);
  out.push(
    `<text x="${WIDTH / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${escape(chart.title)}</text>`,
  );
  for (const tick of axis.ticks) {
    const y = axis.toY(tick).toFixed(1);
    out.push(`<line x1="${MARGIN.left}" x2="${plotRight}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    out.push(
      `<text x="${MARGIN.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${niceNumber(tick)}</text>`,
    );
  }
  out.push(
    `<text transform="translate(16 ${(MARGIN.top + HEIGHT - MARGIN.bottom) / 2}) rotate(-90)" text-anchor="middle">${escape(chart.yLabel)}${chart.logScale ? " (log)" : ""}</text>`,
  );
  if (chart.xLabel) {
    out.push(
      `<text x="${(MARGIN.left + plotRight) / 2}" y="${HEIGHT - 8}" text-anchor="middle">${escape(chart.xLabel)}</text>`,
    );
  }
  out.push(...body);
  for (const reference of chart.references ?? []) {
    const y = axis.toY(reference.value).toFixed(1);
    out.push(`<line x1="${MARGIN.left}" x2="${plotRight}" y1="${y}" y2="${y}" stroke="#c00" stroke-dasharray="6 4"/>`);
    out.push(
      `<text x="${plotRight - 4}" y="${Number(y) - 4}" text-anchor="end" fill="#c00">${escape(reference.label)}</text>`,
    );
  }
  // Legend.
  let legendX = MARGIN.left;
  chart.series.forEach((series, index) => {
    out.push(`<rect x="${legendX}" y="28" width="10" height="10" fill="${COLOURS[index % COLOURS.length]}"/>`);
    out.push(`<text x="${legendX + 14}" y="37">${escape(series.name)}</text>`);
    legendX += 24 + series.name.length * 6.2;
  });
  out.push(
    `<line x1="${MARGIN.left}" x2="${plotRight}" y1="${HEIGHT - MARGIN.bottom}" y2="${HEIGHT - MARGIN.bottom}" stroke="#333"/>`,
  );
  out.push(`</svg>`);
  return out.join("\n") + "\n";
}

function barChart(chart: Chart): string {
  const values = chart.series.flatMap((series) => series.values);
  const axis = valueAxis(values, chart.logScale ?? false);
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const groupWidth = plotWidth / Math.max(1, chart.categories.length);
  const barWidth = (groupWidth * 0.8) / Math.max(1, chart.series.length);
  const bottom = HEIGHT - MARGIN.bottom;
  const body: string[] = [];
  chart.categories.forEach((category, c) => {
    const groupX = MARGIN.left + c * groupWidth + groupWidth * 0.1;
    chart.series.forEach((series, s) => {
      const value = series.values[c];
      if (!Number.isFinite(value) || (chart.logScale && value <= 0)) return;
      const y = axis.toY(value);
      body.push(
        `<rect x="${(groupX + s * barWidth).toFixed(1)}" y="${y.toFixed(1)}" width="${(barWidth - 1).toFixed(1)}" height="${(bottom - y).toFixed(1)}" fill="${COLOURS[s % COLOURS.length]}"><title>${escape(series.name)} ${escape(category)}: ${niceNumber(value)}</title></rect>`,
      );
    });
    const labelX = MARGIN.left + (c + 0.5) * groupWidth;
    body.push(
      `<text transform="translate(${labelX.toFixed(1)} ${bottom + 12}) rotate(20)" text-anchor="start">${escape(category)}</text>`,
    );
  });
  return frame(chart, axis, body);
}

function lineChart(chart: Chart): string {
  const xs = chart.categories.map(Number);
  const values = [...chart.series.flatMap((series) => series.values), ...(chart.references ?? []).map((r) => r.value)];
  const axis = valueAxis(values, chart.logScale ?? false);
  const plotLeft = MARGIN.left;
  const plotRight = WIDTH - MARGIN.right;
  const xMax = Math.max(...xs, 1);
  const xTicks = linearTicks(xMax);
  const xTop = xTicks[xTicks.length - 1];
  const toX = (x: number) => plotLeft + (x / xTop) * (plotRight - plotLeft);
  const bottom = HEIGHT - MARGIN.bottom;
  const body: string[] = [];
  for (const tick of xTicks) {
    body.push(`<text x="${toX(tick).toFixed(1)}" y="${bottom + 14}" text-anchor="middle">${niceNumber(tick)}</text>`);
  }
  chart.series.forEach((series, s) => {
    const colour = COLOURS[s % COLOURS.length];
    const points = series.values
      .map((value, i) => [toX(xs[i]), value] as const)
      .filter(([, value]) => Number.isFinite(value))
      .map(([x, value]) => `${x.toFixed(1)},${axis.toY(value).toFixed(1)}`);
    if (points.length > 1)
      body.push(`<polyline points="${points.join(" ")}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    series.values.forEach((value, i) => {
      if (!Number.isFinite(value)) return;
      body.push(
        `<circle cx="${toX(xs[i]).toFixed(1)}" cy="${axis.toY(value).toFixed(1)}" r="3.5" fill="${colour}"><title>${escape(series.name)} @ ${xs[i]}: ${niceNumber(value)}</title></circle>`,
      );
    });
  });
  return frame(chart, axis, body);
}

export function renderChart(chart: Chart): string {
  return chart.kind === "line" ? lineChart(chart) : barChart(chart);
}
