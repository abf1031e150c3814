// `npm test`'s static checks — the type checks and the lint — run side by side (each leaves part of the
// machine's two cores idle: tsc is mostly one thread, eslint's typed rules wait on the type checker),
// each's output printed whole once it ends, in the order they were started. Exit 1 when either fails.
import { spawn } from "node:child_process";

const checks = [
  ["typecheck", ["run", "-s", "typecheck"]],
  ["lint", ["run", "-s", "lint"]],
];

const runs = checks.map(
  ([name, args]) =>
    new Promise((resolve) => {
      const child = spawn("npm", args, { stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      child.on("close", (code) => resolve({ name, code, output }));
    }),
);

let failed = false;
for (const run of runs) {
  const { name, code, output } = await run;
  process.stdout.write(output);
  if (code !== 0) {
    process.stderr.write(`npm test: ${name} failed (exit ${code})\n`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
