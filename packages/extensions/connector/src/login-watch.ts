// Notices `keel connector login|logout` made while a session runs: the credentials file's
// identity (inode, size, mtime) is compared when the folder changes (fs.watch) and at every
// run start, so a login before the next prompt is seen for certain, not only when the watcher
// fires first. Listeners are the catalogs' invalidate functions.
import { type FSWatcher, statSync, watch } from "node:fs";
import { credentialsPath } from "./credentials.js";

export class LoginWatch {
  private stamp: string;
  private readonly listeners = new Set<() => void>();
  private watcher: FSWatcher | undefined;

  constructor(
    private readonly dataDir: () => string,
    private readonly debug: (message: string) => void,
  ) {
    this.stamp = this.read();
  }

  private read(): string {
    try {
      const s = statSync(credentialsPath(this.dataDir()));
      return `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      return "none";
    }
  }

  /** Tells the listeners when the credentials file changed since the last look. */
  check(): void {
    const now = this.read();
    if (now === this.stamp) return;
    this.stamp = now;
    for (const listener of [...this.listeners]) listener();
  }

  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    if (!this.watcher) {
      try {
        this.watcher = watch(this.dataDir(), () => this.check());
        this.watcher.on("error", () => this.stop());
        this.watcher.unref();
      } catch (e) {
        // Run starts still check; only a login in the middle of a run waits for the next one.
        this.debug(`cannot watch for logins (${(e as Error).message})`);
      }
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  private stop(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }
}
