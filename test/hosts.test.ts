// The core module in other hosts: the golden vectors (hosts/vectors.json, made
// from the JS reference kernels) run against build/core.wasm through the plain
// WebAssembly API under Node and Bun, and through wasm2c + gcc as a C program
// (which runs the build without SIMD, build/core-scalar.wasm).
// Each host is skipped, saying why, when its tools are not installed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildVectors, formatVectors, VECTORS_PATH, type VectorFile } from "./support/make-vectors.js";
import { SIMD_TEXT } from "../hosts/scalar-wasm.js";

const ROOT = join(import.meta.dirname, "..");
const BUN = join(ROOT, "node_modules/.bin/bun");
const RUNNER = join(ROOT, "hosts/bun/run-vectors.ts");
const C_RUNNER = join(ROOT, "hosts/c/build/run-vectors");
const WASM_RT = ["/usr/share/wabt/wasm2c/wasm-rt-impl.c", "/usr/src/wasm2c/wasm-rt-impl.c"];

const vectors = JSON.parse(readFileSync(VECTORS_PATH, "utf8")) as VectorFile;

function run(command: string, args: string[], timeoutMs = 60_000) {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: "utf8", timeout: timeoutMs });
  return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "", error: result.error };
}

function works(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 10_000 });
  return result.status === 0;
}

/** A copy of the vectors with one expected return value changed: every runner must report it. */
function corruptedVectors(): string {
  const copy = JSON.parse(JSON.stringify(vectors)) as VectorFile;
  const target = copy.cases.find((c) => c.name.startsWith("astar"))!;
  const call = target.steps.find((step) => "call" in step && step.call === "astar" && (step.expect ?? 0) > 0);
  if (!call || !("call" in call)) throw new Error("no astar call to corrupt");
  call.expect = (call.expect ?? 0) + 1;
  const dir = mkdtempSync(join(tmpdir(), "vectors-"));
  const path = join(dir, "vectors.json");
  writeFileSync(path, JSON.stringify(copy));
  return path;
}

const closing = /^(\d+) passed, (\d+) failed, (\d+) skipped$/m;

describe("golden vectors", () => {
  it("hosts/vectors.json is what the JS reference kernels produce today", () => {
    expect(readFileSync(VECTORS_PATH, "utf8")).toBe(formatVectors(buildVectors()));
  });

  it("covers every kernel family the brief names", () => {
    const calls = new Set(vectors.cases.flatMap((c) => c.exports));
    for (const name of [
      "unpack6",
      "pack6",
      "palette_build",
      "fnv1a",
      "step_allowed",
      "astar",
      "replay",
      "draw_tilemap",
      "fb_to_rgba",
    ]) {
      expect(calls, name).toContain(name);
    }
  });
});

describe("Node (V8) host: plain WebAssembly API", () => {
  it("passes every vector", () => {
    const result = run(process.execPath, ["--import", "tsx", RUNNER]);
    expect(result.stdout).toMatch(closing);
    expect(result.stdout).toContain(`${vectors.cases.length} passed, 0 failed, 0 skipped`);
    expect(result.status).toBe(0);
  });

  it("reports a wrong expected value as a failure", () => {
    const result = run(process.execPath, ["--import", "tsx", RUNNER, "--vectors", corruptedVectors()]);
    expect(result.stdout).toMatch(/^FAIL astar/m);
    expect(result.status).toBe(1);
  });
});

const bunAvailable = existsSync(BUN) && works(BUN, ["--version"]);
if (!bunAvailable) {
  console.log(
    "hosts.test: Bun host skipped (node_modules/.bin/bun missing or not runnable; the default install leaves it out: npm install --no-save bun@1.4.5, as .ci/run does)",
  );
}

describe.skipIf(!bunAvailable)("Bun (JavaScriptCore) host", () => {
  it("passes every vector", () => {
    const result = run(BUN, [RUNNER]);
    expect(result.stdout).toContain("Bun (JavaScriptCore)");
    expect(result.stdout).toContain(`${vectors.cases.length} passed, 0 failed, 0 skipped`);
    expect(result.status).toBe(0);
  });

  it("reports a wrong expected value as a failure", () => {
    const result = run(BUN, [RUNNER, "--vectors", corruptedVectors()]);
    expect(result.stdout).toMatch(/^FAIL astar/m);
    expect(result.status).toBe(1);
  });
});

const cAvailable = works("wasm2c", ["--version"]) && works("gcc", ["--version"]) && WASM_RT.some((p) => existsSync(p));
if (!cAvailable)
  console.log("hosts.test: C host skipped (needs wasm2c and the wasm-rt sources from Debian's wabt, and gcc)");

describe.skipIf(!cAvailable)("C host: wasm2c 1.0.32 + gcc on the scalar build", () => {
  it("builds core-scalar.wasm and runs every vector, none skipped", { timeout: 180_000 }, () => {
    const build = run("sh", ["hosts/c/build.sh"], 170_000);
    expect(build.status, build.stderr).toBe(0);
    // wasm2c 1.0.32 cannot translate SIMD: the module it runs must have none, so every kernel is its scalar path.
    expect(WebAssembly.validate(readFileSync(join(ROOT, "build/core-scalar.wasm")))).toBe(true);
    expect(readFileSync(join(ROOT, "build/core-scalar.wat"), "utf8")).not.toMatch(SIMD_TEXT);
    const result = run(C_RUNNER, ["hosts/vectors.json"]);
    expect(result.stdout).toContain("core-scalar.wasm vectors on C");
    expect(result.stdout, result.stdout).toMatch(new RegExp(`^${vectors.cases.length} passed, 0 failed$`, "m"));
    for (const one of vectors.cases) expect(result.stdout).toContain(`ok   ${one.name}\n`);
    expect(result.stdout).not.toMatch(/^(skip|FAIL) /m);
    expect(result.status).toBe(0);

    const broken = run(C_RUNNER, [corruptedVectors()]);
    expect(broken.stdout).toMatch(/^FAIL astar/m);
    expect(broken.stdout).toContain(`${vectors.cases.length - 1} passed, 1 failed`);
    expect(broken.status).toBe(1);
  });
});
