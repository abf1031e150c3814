// Where the suite's CPU goes, file by file: with CAVES_TEST_CPU=<file> set, each test file appends one JSON line
// to <file> with its wall time and the CPU its worker spent on it — in the worker itself and in the processes it
// started and reaped (servers, bots, tsx tools, Chromium) — read from /proc/self/stat (Linux only; elsewhere it
// records nothing). The suite is CPU-bound on a 2-core machine, so its length follows the CPU the files spend,
// not their wall time: this tells which files to make cheaper. Wall time alone is in test/durations.json.
//
//   CAVES_TEST_CPU=/tmp/cpu.jsonl npm test
//   node scripts/test-cpu.mjs /tmp/cpu.jsonl
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { afterAll, beforeAll } from "vitest";

const out = process.env.CAVES_TEST_CPU;
const STAT = "/proc/self/stat";
/** Linux's USER_HZ: the unit of /proc's CPU times, 100 on every Linux architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/** This process's CPU in ms, its own and its reaped children's. */
function cpuMs(): { self: number; children: number } {
  const stat = readFileSync(STAT, "utf8");
  // Fields after the command's closing parenthesis (the command may hold spaces): state is the first.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
  const ms = 1000 / TICKS_PER_SECOND;
  return { self: (utime + stime) * ms, children: (cutime + cstime) * ms };
}

if (out !== undefined && out !== "" && existsSync(STAT)) {
  let start = { self: 0, children: 0 };
  let startWall = 0;
  beforeAll(() => {
    start = cpuMs();
    startWall = performance.now();
  });
  afterAll(({}, suite) => {
    const end = cpuMs();
    const file = "filepath" in suite ? relative(process.cwd(), suite.filepath) : suite.name;
    const line = {
      file,
      wallMs: Math.round(performance.now() - startWall),
      selfCpuMs: Math.round(end.self - start.self),
      childCpuMs: Math.round(end.children - start.children),
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
