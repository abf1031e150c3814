// Sums what test/support/cpu-account.ts recorded (CAVES_TEST_CPU=<file> npm test): the test files by the CPU
// they spent, most first, with their wall time, so the suite is made shorter where it spends its cores.
//
//   node scripts/test-cpu.mjs /tmp/cpu.jsonl [--top N]
import { existsSync, readFileSync } from "node:fs";

const args = process.argv.slice(2);
if (args.length === 0 || args.includes("--help") || args.includes("-h")) {
  console.log("usage: node scripts/test-cpu.mjs FILE [--top N]   (FILE written by CAVES_TEST_CPU=FILE npm test)");
  process.exit(args.length === 0 ? 1 : 0);
}
const file = args[0];
const topAt = args.indexOf("--top");
const top = topAt >= 0 ? Number(args[topAt + 1]) : 40;
if (!existsSync(file)) {
  console.error(`error: ${file} does not exist: run the tests with CAVES_TEST_CPU=${file} first`);
  process.exit(1);
}
/** @type {Map<string, { wallMs: number, selfCpuMs: number, childCpuMs: number }>} */
const files = new Map();
for (const [index, text] of readFileSync(file, "utf8").split("\n").entries()) {
  if (text.trim() === "") continue;
  let line;
  try {
    line = JSON.parse(text);
  } catch {
    console.error(`error: ${file}:${index + 1} is not a JSON line`);
    process.exit(1);
  }
  const sum = files.get(line.file) ?? { wallMs: 0, selfCpuMs: 0, childCpuMs: 0 };
  sum.wallMs += line.wallMs;
  sum.selfCpuMs += line.selfCpuMs;
  sum.childCpuMs += line.childCpuMs;
  files.set(line.file, sum);
}
const rows = [...files.entries()].sort(([, a], [, b]) => b.selfCpuMs + b.childCpuMs - (a.selfCpuMs + a.childCpuMs));
const total = rows.reduce((sum, [, row]) => sum + row.selfCpuMs + row.childCpuMs, 0);
const s = (ms) => (ms / 1000).toFixed(1).padStart(7);
console.log(`${files.size} files, ${s(total)} s of CPU in all`);
console.log(`${"cpu s".padStart(7)} ${"self".padStart(7)} ${"child".padStart(7)} ${"wall s".padStart(7)}  file`);
for (const [name, row] of rows.slice(0, top))
  console.log(
    `${s(row.selfCpuMs + row.childCpuMs)} ${s(row.selfCpuMs)} ${s(row.childCpuMs)} ${s(row.wallMs)}  ${name}`,
  );
