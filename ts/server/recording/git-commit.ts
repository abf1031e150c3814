// The commit a checkout is at, read from its git files without running git (a recording names the build that
// made it: docs/recording.md). A checkout's `.git` is a folder, or — in a worktree (`git worktree add`) and a
// submodule — a file naming the folder (`gitdir: …`); the branch HEAD names is a loose ref in that folder, or
// in the repository's common folder (a worktree's `commondir`), or a line of `packed-refs` there (after
// `git gc`, and for what a clone fetched). Null where none of that is found.
import { existsSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

/** The commit of the checkout at `root` (a folder path), or null. */
export function gitCommit(root: string): string | null {
  try {
    const gitDir = gitDirOf(root);
    if (gitDir === null) return null;
    const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
    if (!head.startsWith("ref: ")) return isCommit(head) ? head : null;
    const ref = head.slice(5).trim();
    const common = commonDirOf(gitDir);
    for (const dir of common === gitDir ? [gitDir] : [gitDir, common]) {
      const loose = join(dir, ref);
      if (existsSync(loose)) {
        const commit = readFileSync(loose, "utf8").trim();
        return isCommit(commit) ? commit : null;
      }
    }
    return packedRef(common, ref);
  } catch {
    return null;
  }
}

function gitDirOf(root: string): string | null {
  const dotGit = join(root, ".git");
  if (!existsSync(dotGit)) return null;
  if (statSync(dotGit).isDirectory()) return dotGit;
  const line = readFileSync(dotGit, "utf8").trim();
  if (!line.startsWith("gitdir: ")) return null;
  const dir = line.slice(8).trim();
  return isAbsolute(dir) ? dir : resolve(root, dir);
}

function commonDirOf(gitDir: string): string {
  const file = join(gitDir, "commondir");
  if (!existsSync(file)) return gitDir;
  const dir = readFileSync(file, "utf8").trim();
  return isAbsolute(dir) ? dir : resolve(gitDir, dir);
}

function packedRef(dir: string, ref: string): string | null {
  const file = join(dir, "packed-refs");
  if (!existsSync(file)) return null;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const [commit, name] = line.trim().split(" ");
    if (name === ref && isCommit(commit)) return commit;
  }
  return null;
}

function isCommit(text: string): boolean {
  return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(text);
}
