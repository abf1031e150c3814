// ESLint finds the bugs the compiler does not: promises nobody awaits, async callbacks handed to APIs
// that ignore the returned promise, conditions that are always true, values compared with themselves.
// Formatting is prettier's job (npm run lint runs both); style rules are deliberately absent, and each
// rule below is here because it catches a class of bug, not a taste. tsc already rejects unused locals
// and parameters and switch fallthrough (tsconfig.json), so no-fallthrough is not here and
// no-unused-vars is here for what tsc lets through: unused catch bindings and variables that are only
// ever updated (n++ with n never read).
//
// Tried and left out, because on this code base they found no bug, only idioms: no-promise-executor-return
// (`new Promise((r) => setTimeout(r, ms))`), no-unmodified-loop-condition (flags flags set by closures),
// eqeqeq (no finding), switch-exhaustiveness-check (switches that handle a subset on purpose),
// no-unnecessary-type-assertion (cleanup, not bugs).
//
// Type-aware rules read each file's program through the TypeScript project service (tsconfig.json,
// which includes every linted .ts file); a full run takes about half a minute of CPU.
//
// assembly/ is not linted: it is AssemblyScript (decorators on functions, i32/u8 types, load/store
// builtins), which neither the TypeScript parser nor type-aware rules understand; asc and prettier
// (through assemblyscript-prettier) check it instead.
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

/** Rules that need no type information: they apply to .ts and .mjs alike. */
const syntaxRules = {
  // `x === x`, `a = a`: a typo for another name, never intended.
  "no-self-compare": "error",
  "no-self-assign": "error",
  // `if (x = 0)` where a comparison was meant; a condition that cannot change (`while (true)` aside).
  "no-cond-assign": "error",
  "no-constant-condition": "error",
  // `a ?? b` where a is never nullish, `x + y || z` where the left side is always truthy, `{} === x`.
  "no-constant-binary-expression": "error",
  "no-dupe-else-if": "error",
  "no-duplicate-case": "error",
  "no-unreachable": "error",
  "no-unsafe-finally": "error",
  "no-unsafe-negation": "error",
  "no-compare-neg-zero": "error",
  "use-isnan": "error",
  "no-sparse-arrays": "error",
  "no-loss-of-precision": "error",
  // An async executor swallows its own throws: the promise never rejects.
  "no-async-promise-executor": "error",
};

export default defineConfig(
  {
    ignores: [
      "assembly/**",
      "build/**",
      "dist/**",
      "node_modules/**",
      "native/**",
      "test-artifacts/**",
      ".vite/**",
      // Its own package (Colyseus, installed by the bench on first use) and tsconfig: `npx tsc -p bench/colyseus`.
      "bench/colyseus/**",
      // The same for the NATS client (bench/link-transport.ts's nats row): `npx tsc -p bench/nats`.
      "bench/nats/**",
    ],
  },
  {
    files: ["**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      ...syntaxRules,
      // A promise nobody awaits or catches: its rejection is unhandled (Node exits) and its ordering
      // is unspecified. Deliberate fire-and-forget is written `void promise` with a reason.
      "@typescript-eslint/no-floating-promises": "error",
      // An async function passed where a void callback is expected (socket.on, setTimeout, forEach):
      // the caller drops the promise, so a throw inside becomes an unhandled rejection.
      "@typescript-eslint/no-misused-promises": "error",
      // `await` on a value that is not a promise: usually a missing call or a wrong type.
      "@typescript-eslint/await-thenable": "error",
      // `return promise` inside try: the catch/finally does not see its rejection.
      "@typescript-eslint/return-await": ["error", "in-try-catch"],
      // for-in over an array iterates string keys (and inherited ones), not elements.
      "@typescript-eslint/no-for-in-array": "error",
      // `${obj}` or String(obj) on an object without toString: prints "[object Object]".
      "@typescript-eslint/no-base-to-string": "error",
      // `throw "text"`: no stack, and `catch (e) { e.message }` reads undefined.
      "@typescript-eslint/only-throw-error": "error",
      // numbers.sort() sorts by their strings: [10, 9].sort() is [10, 9].
      "@typescript-eslint/require-array-sort-compare": ["error", { ignoreStringArrays: true }],
      "no-unused-vars": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          args: "after-used",
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          caughtErrorsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // Plain JavaScript build scripts: no type information, so only the syntax rules.
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: {
      sourceType: "module",
      globals: { console: "readonly", process: "readonly", URL: "readonly" },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      ...syntaxRules,
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" }],
      "no-undef": "error",
    },
  },
  {
    // The single file's launcher (scripts/package/sea-main.cjs): Node's single executable applications
    // run their main script as CommonJS.
    files: ["**/*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { console: "readonly", process: "readonly", require: "readonly" },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      ...syntaxRules,
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" }],
      "no-undef": "error",
    },
  },
);
