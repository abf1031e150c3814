// Where a server's CPU time went, from a V8 .cpuprofile (node --cpu-prof; the server5000 suite's
// --cpu-prof DIR writes one per row): self time summed per function and per source file, as shares of
// the profile's samples, largest first. "(garbage collector)", "(program)" (V8 and native code outside
// JS, system calls included) and "(idle)" are V8's own nodes.
//
// usage: npx tsx bench/server/profile-summary.ts FILE.cpuprofile [--top N]
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "25" } },
});
if (positionals.length !== 1) {
  process.stderr.write("usage: bench/server/profile-summary.ts FILE.cpuprofile [--top N]\n");
  process.exit(2);
}
const profile = JSON.parse(readFileSync(positionals[0], "utf8")) as Profile;
const top = Number(values.top);
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
/** Microseconds of self time per key; each sample is charged the time until the next one. */
const perFunction = new Map<string, number>();
const perFile = new Map<string, number>();
let total = 0;
let idle = 0;
const where = (url: string) => {
  if (url === "") return "(native / V8)";
  const path = url.replace(/^file:\/\//, "");
  return path.startsWith("/") ? relative(process.cwd(), path) : path;
};
for (let i = 0; i < profile.samples.length; i++) {
  const node = byId.get(profile.samples[i]);
  const us = profile.timeDeltas[i + 1] ?? 0;
  if (!node) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  if (functionName === "(idle)") {
    idle += us;
    continue;
  }
  total += us;
  const file = where(url);
  const name = `${functionName || "(anonymous)"} ${file}${url ? `:${lineNumber + 1}` : ""}`;
  perFunction.set(name, (perFunction.get(name) ?? 0) + us);
  perFile.set(file, (perFile.get(file) ?? 0) + us);
}
const print = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(
      `${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}\n`,
    );
};
process.stdout.write(
  `${positionals[0]}: ${(total / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle (${((total / (total + idle)) * 100).toFixed(1)} % busy)\n`,
);
print("self time by file", perFile);
print("self time by function", perFunction);
