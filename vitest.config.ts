import { defineConfig } from "vitest/config";
import { SlowestFirstSequencer } from "./test/support/slowest-first.js";

// Test files that measure time against the machine (a walk bounded by a clean run's time, Chromium key
// taps and animations, SIGKILL at chosen moments, a flood that must reach its rate) run one at a time, after the rest
// (the Chromium suites last, in a project of their own: see below). Everything else runs
// in three workers: Vitest's default is one worker per core minus one — a single worker on a 2-core CI
// machine, where most files wait on sockets, timers and child processes rather than on a core (the
// parallel files' own time summed 904 s in a run where two workers took 580 s of wall time). Every test
// is bounded in time and uses its own ports (port 0) and folders, so several may run side by side.
/** The Chromium suites. */
const BROWSER = ["test/e2e/**/*.test.ts"];
const TIMING_SENSITIVE = [
  "test/convergence.test.ts",
  "test/faults.test.ts",
  "test/items-crash.test.ts",
  "test/content-shop-crash.test.ts",
  "test/combat-persistence.test.ts",
  "test/persistence.test.ts",
  "test/soak-cli.test.ts",
  // Starts the single file and Chromium against it.
  "test/package.test.ts",
];

export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
    // With CAVES_TEST_CPU=<file>, each file's CPU (its worker's and its reaped processes') to <file>; else nothing.
    setupFiles: ["test/support/cpu-account.ts"],
    // The slowest files first, on a clean clone too (test/support/slowest-first.ts; test/durations.json).
    sequence: { sequencer: SlowestFirstSequencer },
    // Every Game in the tests, and every server they start, checks that each write to an entity's
    // wire fields says so (GameOptions.verifyEntityChanges).
    env: { CAVES_VERIFY_ENTITY_CHANGES: "1" },
    testTimeout: 20_000,
    hookTimeout: 20_000,
    teardownTimeout: 10_000,
    projects: [
      {
        extends: true,
        test: {
          name: "parallel",
          include: ["test/**/*.test.ts", "ts/**/*.test.ts"],
          exclude: [...TIMING_SENSITIVE, ...BROWSER],
          maxWorkers: 3,
          // Each worker keeps the modules it loaded (the server, the wasm, typescript, playwright-core) for
          // the next file instead of loading them again (~1 s a file, over 200 files). Safe because no test
          // mocks or stubs a module, a global or the environment, nor listens on `process`, and what module
          // state ts/ keeps is caches (the compiled wasm, scratch arrays); a file must still close what it
          // starts (servers, sockets, timers), now also because the next file runs in the same process.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "one at a time",
          include: TIMING_SENSITIVE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          // The Chromium suites, one at a time as well, after the rest, in one worker that keeps the modules
          // they all load (playwright-core, the whole server, the wasm) between files instead of loading
          // them again for each (~2 s a file). They share no state through those modules: each starts its
          // own server, Chromium and profile, and the server keeps its state in the objects it returns.
          name: "browser, one at a time",
          include: BROWSER,
          maxWorkers: 1,
          isolate: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
