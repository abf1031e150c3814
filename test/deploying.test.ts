// docs/deploying.md's files, checked by the tools that will read them: the systemd units by
// `systemd-analyze verify`, the single-host unit's own flags by starting a real server with them (and
// stopping it as systemd would), the cluster unit's and the docs' launcher flags by the launcher's own
// parser, and the reverse-proxy examples by `nginx -t` and `caddy validate`. A tool that is not installed
// here has its checks reported skipped, with the reason.
import { execFile, execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { toolSkipReason } from "./support/installed-tool.js";
import { pollUntil, spawnTsx, type TsxProcess } from "./support/tsx-process.js";

/** Runs a tool to its end: its exit code and everything it wrote. */
function run(tool: string, args: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    execFile(tool, args, { timeout: 30_000, env: env ?? process.env }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
      if (code === null) reject(error ?? new Error(`${tool} did not exit`));
      else resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

const repositoryFile = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");

/** A unit's ExecStart= command line (continuation lines joined), split into words. */
function execStart(unit: string): string[] {
  const joined = unit.replace(/\\\n\s*/g, "");
  const line = /^ExecStart=(.*)$/m.exec(joined)?.[1];
  expect(line, "ExecStart=").toBeDefined();
  return line!.trim().split(/\s+/);
}

/** The value after `flag` in `args` replaced by `value`. */
function setFlag(args: string[], flag: string, value: string): string[] {
  const at = args.indexOf(flag);
  expect(at, flag).toBeGreaterThanOrEqual(0);
  return args.map((arg, index) => (index === at + 1 ? value : arg));
}

const UNITS = ["ops/systemd/forgotten-caves.service", "ops/systemd/forgotten-caves-cluster.service"];
const directories: string[] = [];
const processes: TsxProcess[] = [];
function scratch(): string {
  const directory = mkdtempSync(join(tmpdir(), "caves-deploying-"));
  directories.push(directory);
  return directory;
}

afterAll(() => {
  for (const child of processes) child.kill("SIGKILL");
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

const noSystemd = toolSkipReason("systemd-analyze", ["--version"], "systemd");
if (noSystemd !== null) process.stderr.write(`test/deploying.test.ts: the units' verify skipped: ${noSystemd}\n`);

describe("the systemd units", () => {
  it.skipIf(noSystemd !== null)("pass systemd-analyze verify with nothing to say", async () => {
    // verify also checks that ExecStart='s program exists: here it is a stand-in at the same place in the line.
    const directory = scratch();
    const program = join(directory, "program");
    writeFileSync(program, "#!/bin/sh\n");
    chmodSync(program, 0o755);
    for (const path of UNITS) {
      const unit = repositoryFile(path).replace(/^ExecStart=\S+/m, `ExecStart=${program}`);
      const copy = join(directory, path.split("/").pop()!);
      writeFileSync(copy, unit);
      const verified = await run("systemd-analyze", ["verify", copy]);
      expect(verified.output, path).toBe("");
      expect(verified.code, path).toBe(0);
    }
    // The check can fail: a misspelt key is reported.
    const misspelt = join(directory, "misspelt.service");
    writeFileSync(misspelt, `[Service]\nExecStart=${program}\nRestartSecs=5\n`);
    expect((await run("systemd-analyze", ["verify", misspelt])).output).toContain("Unknown key 'RestartSecs'");
  });

  it("start a real server with the single-host unit's flags, which backs up and stops cleanly on SIGTERM", async () => {
    const [program, ...flags] = execStart(repositoryFile(UNITS[0]));
    expect(program).toBe("/opt/forgotten-caves/forgotten-caves");
    // systemd's %S (state) and %d (credentials) directories, here; free ports on loopback instead of 0.0.0.0.
    const state = scratch();
    const credentials = scratch();
    writeFileSync(join(credentials, "admin-token"), "a".repeat(40));
    let args = flags.map((arg) => arg.replaceAll("%S", state).replaceAll("%d", credentials));
    args = setFlag(setFlag(setFlag(args, "--host", "127.0.0.1"), "--http-port", "0"), "--udp-port", "0");
    const server = spawnTsx("ts/server/main.ts", args);
    processes.push(server);
    const exited = server.exited.then((code) => ({ code }));
    await Promise.race([
      pollUntil(() => server.stdout().includes("Forgotten Caves is running"), 50),
      exited.then(({ code }) => {
        throw new Error(`the server exited (${code}): ${server.stderr()}`);
      }),
    ]);
    const url = /running: (http:\/\/\S+)/.exec(server.stdout())![1];
    expect(((await (await fetch(`${url}api/status`)).json()) as { tick: number }).tick).toBeGreaterThanOrEqual(0);
    // The admin token from the credential file is in force.
    const admin = await fetch(`${url}api/admin/players`, { headers: { authorization: `Bearer ${"a".repeat(40)}` } });
    expect(admin.status).toBe(200);
    const backups = join(state, "forgotten-caves", "backups");
    await pollUntil(
      () => readdirSync(backups, { withFileTypes: true }).some((f) => f.name.endsWith("-scheduled.sqlite")),
      50,
    );
    server.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });

  it("give the launcher flags it has, and so do the docs' cluster commands", async () => {
    const [program, ...unitArgs] = execStart(repositoryFile(UNITS[1]));
    expect(program).toBe("/usr/bin/node");
    expect(unitArgs.slice(0, 3)).toEqual(["--import", "tsx", "ts/cluster/main.ts"]);
    const docs = repositoryFile("docs/deploying.md").replace(/\\\n\s*/g, "");
    const fromDocs = [...docs.matchAll(/^node --import tsx ts\/cluster\/main\.ts (.*)$/gm)].map(([, rest]) =>
      rest.trim().split(/\s+/),
    );
    expect(fromDocs.length).toBeGreaterThan(0);
    // The launcher's parser is strict: an unknown flag fails before --help is answered.
    for (const args of [unitArgs.slice(3), ...fromDocs]) {
      const launcher = spawnTsx("ts/cluster/main.ts", [...args, "--help"]);
      processes.push(launcher);
      expect(await launcher.exited, `${args.join(" ")}\n${launcher.stderr()}`).toBe(0);
    }
    const misspelt = spawnTsx("ts/cluster/main.ts", ["--gateway", "2", "--help"]);
    processes.push(misspelt);
    expect(await misspelt.exited).not.toBe(0);
  });
});

const noNginx = toolSkipReason("nginx", ["-v"], "nginx");
const noCaddy = toolSkipReason("caddy", ["version"], "caddy");
if (noNginx !== null) process.stderr.write(`test/deploying.test.ts: the nginx example's check skipped: ${noNginx}\n`);
if (noCaddy !== null) process.stderr.write(`test/deploying.test.ts: the Caddy example's check skipped: ${noCaddy}\n`);

/** The first code block of `language` in docs/deploying.md. */
function docBlock(language: string): string {
  const block = new RegExp("```" + language + "\\n([\\s\\S]*?)```").exec(repositoryFile("docs/deploying.md"))?.[1];
  expect(block, language).toBeDefined();
  return block!;
}

describe("the reverse-proxy examples", () => {
  it("are in ops/ as docs/deploying.md shows them", () => {
    expect(repositoryFile("ops/nginx/forgotten-caves.conf")).toContain(docBlock("nginx"));
    expect(repositoryFile("ops/caddy/Caddyfile")).toContain(docBlock("caddyfile"));
  });

  it.skipIf(noNginx !== null)(
    "nginx: nginx -t accepts the site, with a certificate where certbot puts one",
    async () => {
      const directory = scratch();
      const key = join(directory, "key.pem");
      const certificate = join(directory, "cert.pem");
      execFileSync(
        "openssl",
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=play.example.org"].concat([
          "-days",
          "1",
          "-keyout",
          key,
          "-out",
          certificate,
        ]),
        { stdio: "ignore", timeout: 30_000 },
      );
      const site = repositoryFile("ops/nginx/forgotten-caves.conf")
        .replace("/etc/letsencrypt/live/play.example.org/fullchain.pem", certificate)
        .replace("/etc/letsencrypt/live/play.example.org/privkey.pem", key);
      writeFileSync(join(directory, "site.conf"), site);
      const config = join(directory, "nginx.conf");
      writeFileSync(
        config,
        `pid ${directory}/nginx.pid;\nerror_log stderr;\nevents {}\nhttp {\n  access_log off;\n  include ${directory}/site.conf;\n}\n`,
      );
      const checked = await run("nginx", ["-t", "-e", "stderr", "-p", directory, "-c", config]);
      expect(checked.output).toContain("test is successful");
      expect(checked.code).toBe(0);
    },
  );

  it.skipIf(noCaddy !== null)("Caddy: caddy validate accepts the Caddyfile", async () => {
    const home = scratch();
    const env = { ...process.env, HOME: home, XDG_DATA_HOME: home, XDG_CONFIG_HOME: home };
    const checked = await run("caddy", ["validate", "--adapter", "caddyfile", "--config", "ops/caddy/Caddyfile"], env);
    expect(checked.output).toContain("Valid configuration");
    expect(checked.code).toBe(0);
  });
});
