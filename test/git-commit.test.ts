// The commit a recording names as its build (ts/server/recording/git-commit.ts), read from the checkout's git
// files: in a plain clone, in a worktree (whose `.git` is a file naming its folder — before, such a checkout's
// recordings said "unknown"), after `git gc` packed the branch's ref, at a detached HEAD, and none outside a
// checkout. Against real repositories made by git in a temporary folder.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitCommit } from "../ts/server/recording/git-commit.js";

let dir: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" }).trim();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "caves-git-commit-"));
  const repo = join(dir, "repo");
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  writeFileSync(join(repo, "a.txt"), "a\n");
  git(repo, "add", "a.txt");
  git(repo, "commit", "-q", "-m", "first");
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("gitCommit", () => {
  it("reads a clone's branch, a worktree's, a packed ref and a detached HEAD; null outside a checkout", () => {
    const repo = join(dir, "repo");
    const first = git(repo, "rev-parse", "HEAD");
    expect(gitCommit(repo)).toBe(first);

    // A worktree on a branch of its own, one commit ahead.
    const tree = join(dir, "tree");
    git(repo, "worktree", "add", "-q", "-b", "side", tree);
    writeFileSync(join(tree, "b.txt"), "b\n");
    git(tree, "add", "b.txt");
    git(tree, "commit", "-q", "-m", "second");
    const second = git(tree, "rev-parse", "HEAD");
    expect(second).not.toBe(first);
    expect(gitCommit(tree)).toBe(second);

    // Every ref packed (git gc / pack-refs): read from packed-refs, in the worktree too.
    git(repo, "pack-refs", "--all");
    expect(gitCommit(repo)).toBe(first);
    expect(gitCommit(tree)).toBe(second);

    // A detached HEAD names its commit itself.
    git(repo, "checkout", "-q", "--detach", first);
    expect(gitCommit(repo)).toBe(first);

    expect(gitCommit(join(dir, "nowhere"))).toBeNull();
  });
});
