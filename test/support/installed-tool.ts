// What the tests that drive a system tool share (promtool, prometheus, systemd-analyze, nginx, caddy): whether
// it is installed, said as the reason a skipped suite gives, and a loopback port for a tool that must be told one.
import { execFileSync } from "node:child_process";
import { createServer } from "node:net";

/** Why `tool` cannot run here (with the Debian package that has it), or null when `tool ...versionArgs` runs. */
export function toolSkipReason(tool: string, versionArgs: readonly string[], debianPackage: string): string | null {
  try {
    execFileSync(tool, [...versionArgs], { stdio: "ignore", timeout: 10_000 });
    return null;
  } catch (error) {
    return `${tool} is not installed (apt-get install ${debianPackage}): ${(error as Error).message}`;
  }
}

/** A TCP port free on loopback now (bound, read back, released): for a tool that cannot be given port 0. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
