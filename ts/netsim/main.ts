// netsim CLI: runs the UDP proxy with a live status line until SIGINT/SIGTERM.
// Exit status: 0 after a clean shutdown or --help, 1 when the proxy cannot start, 2 for a bad command line.

import { runProgram } from "../cli/command-line.js";
import { parseProxyArgs, type ProxyCliOptions, USAGE } from "./cli-args.js";
import { formatProfile } from "./profile.js";
import { formatStatusLine } from "./status-line.js";
import { startUdpProxy } from "./udp-proxy.js";

function formatAddress(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

async function run(options: ProxyCliOptions): Promise<number> {
  let proxy;
  try {
    proxy = await startUdpProxy({
      listen: options.listen,
      server: options.server,
      profile: options.profile,
      seed: options.seed,
      idleTimeoutMs: options.idleTimeoutMs,
      maxClients: options.maxClients,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `netsim: cannot start (listen ${formatAddress(options.listen.host, options.listen.port)}, ` +
        `server ${formatAddress(options.server.host, options.server.port)}): ${message}\n`,
    );
    return 1;
  }

  process.stdout.write(
    `netsim: listening on ${formatAddress(proxy.address, proxy.port)} -> server ` +
      `${formatAddress(proxy.server.host, proxy.server.port)}\n` +
      `netsim: profile ${formatProfile(proxy.profile)}, seed ${proxy.seed} (--seed ${proxy.seed} repeats it)\n`,
  );

  // On a terminal the status line rewrites itself in place; piped into a file or a test it is one line per second.
  const interactive = process.stdout.isTTY === true;
  const printStatus = (final: boolean) => {
    const line = formatStatusLine(proxy.counts());
    if (interactive) process.stdout.write(`\r${line}\x1b[K${final ? "\n" : ""}`);
    else process.stdout.write(`${line}\n`);
  };
  const statusTimer = options.showStatus ? setInterval(() => printStatus(false), 1000) : undefined;

  await new Promise<void>((resolve) => {
    const stop = () => {
      // A second signal while shutting down means "now".
      process.once("SIGINT", () => process.exit(1));
      process.once("SIGTERM", () => process.exit(1));
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  clearInterval(statusTimer);
  await proxy.close();
  printStatus(true);
  process.stdout.write("netsim: stopped\n");
  return 0;
}

runProgram({ name: "netsim", usage: USAGE, parse: parseProxyArgs, run });
