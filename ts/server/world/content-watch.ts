// `--watch` for content scripts (docs/content.md § Checking and reloading): a script of the map's content
// folder saved (or added, or deleted) is reloaded in the running world within a second. A version that
// fails to compile or throws while loading is refused — the log says why, with its file and line — and
// the previous version keeps running (scripting/script-room.ts reload).
import { existsSync, type FSWatcher, watch } from "node:fs";
import { CONTENT_FILE_PATTERN, readContentFile } from "../content/content-files.js";
import type { Logger } from "../ops/log.js";

/** Saves within this long of each other are one reload (editors write a file in several steps). */
export const CONTENT_WATCH_DEBOUNCE_MS = 250;

export class ContentWatcher {
  private watcher: FSWatcher | null = null;
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly dir: string,
    /** Reloads one file (null: it is gone); returns the failure, or null. */
    private readonly reload: (name: string, source: string | null) => string | null,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.watcher = watch(this.dir, (_event, name) => {
      if (typeof name !== "string" || !CONTENT_FILE_PATTERN.test(name)) return;
      const pending = this.timers.get(name);
      if (pending !== undefined) clearTimeout(pending);
      this.timers.set(
        name,
        setTimeout(() => {
          this.timers.delete(name);
          this.reloadFile(name);
        }, CONTENT_WATCH_DEBOUNCE_MS),
      );
    });
  }

  private reloadFile(name: string): void {
    let source: string | null = null;
    try {
      source = existsSync(`${this.dir}/${name}`) ? readContentFile(this.dir, name).source : null;
    } catch (error) {
      this.log.error("content script not reloaded", { file: name, error: (error as Error).message });
      return;
    }
    const failure = this.reload(name, source);
    if (failure === null)
      this.log.info(source === null ? "content script removed" : "content script reloaded", { file: name });
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
