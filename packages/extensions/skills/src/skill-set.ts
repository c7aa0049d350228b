// The session's live set of skills: the last discovery, rediscovered only after the watcher (or
// a caller) invalidated it, with change listeners for the catalog and the commands, and each
// diagnostic reported once for as long as it stays true.
import { type Discovery, discoverSkills } from "./discover.js";
import { type RootsInput, skillRoots } from "./roots.js";
import { diagnosticLine, type Skill, type SkillDiagnostic, type SkillRoot } from "./types.js";
import type { SkillWatcher } from "./watch.js";

export interface SkillSetOptions {
  report?: (diagnostic: SkillDiagnostic) => void;
  debounceMs?: number;
}

export class SkillSet {
  private rootList: SkillRoot[];
  private current: Discovery | undefined;
  private dirty = true;
  private running: Promise<Discovery> | undefined;
  private readonly listeners = new Set<() => void>();
  private reported = new Set<string>();
  private watcher: SkillWatcher | undefined;
  private armTimer: NodeJS.Timeout | undefined;
  private watchError: ((message: string) => void) | undefined;

  constructor(
    private input: RootsInput,
    private readonly options: SkillSetOptions = {},
  ) {
    this.rootList = skillRoots(input);
  }

  get roots(): readonly SkillRoot[] {
    return this.rootList;
  }

  /**
   * Sets the skill folders installed extensions ship. They are only known once every extension
   * has activated, after this one; a change rescans and moves the watch to the new roots.
   */
  setExtensionSkills(extensionSkills: { extensionId: string; path: string }[]): void {
    const next = skillRoots({ ...this.input, extensionSkills });
    if (JSON.stringify(next) === JSON.stringify(this.rootList)) return;
    this.input = { ...this.input, extensionSkills };
    this.rootList = next;
    if (this.watcher) {
      const onError = this.watchError;
      void this.stopWatching().then(() => this.watch(onError));
    }
    this.invalidate();
  }

  /** The current discovery, rediscovering first when something changed since the last one. */
  async get(): Promise<Discovery> {
    if (!this.dirty && this.current) return this.current;
    // Invalidated while a scan runs: that scan may have read the old contents; the next one follows it.
    if (this.running) return this.dirty ? this.running.then(() => this.get()) : this.running;
    // Cleared before the scan: an invalidation while it runs sets it again for the next get().
    this.dirty = false;
    this.running = discoverSkills(this.rootList).then((found) => {
      this.running = undefined;
      this.current = found;
      this.announce(found.diagnostics);
      return found;
    });
    return this.running;
  }

  /** The last discovery without rescanning (undefined before the first). */
  peek(): Discovery | undefined {
    return this.current;
  }

  find(name: string): Skill | undefined {
    return this.current?.skills.find((s) => s.name === name);
  }

  invalidate(): void {
    this.dirty = true;
    for (const listener of [...this.listeners]) listener();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Starts the chokidar watch on the roots; a change invalidates the set. Once the watch is
   * ready the set is rescanned, so a change made before it was armed is not missed either.
   */
  watch(onError?: (message: string) => void): SkillWatcher {
    this.watchError = onError;
    if (this.armTimer) clearTimeout(this.armTimer);
    this.armTimer = undefined;
    if (this.watcher) return this.watcher;
    const roots = this.roots.map((r) => r.path);
    const options = {
      ...(this.options.debounceMs !== undefined ? { debounceMs: this.options.debounceMs } : {}),
      ...(onError ? { onError } : {}),
    };
    // chokidar (and readdirp) load with the first watch, not with the extension: the watch is
    // armed after the first request has gone out, so nothing on the way to it pays for them.
    const started = import("./watch.js").then(({ watchSkillRoots }) =>
      watchSkillRoots(roots, () => this.invalidate(), options),
    );
    const watcher: SkillWatcher = {
      // A watcher that could not even load is reported like one that failed to watch.
      ready: started.then(
        (w) => w.ready,
        (e: unknown) => onError?.(`watching skills: ${e instanceof Error ? e.message : String(e)}`),
      ),
      close: () =>
        started.then(
          (w) => w.close(),
          () => undefined,
        ),
    };
    this.watcher = watcher;
    void watcher.ready.then(() => {
      if (this.watcher === watcher) this.invalidate();
    });
    return watcher;
  }

  /**
   * Starts the watch after `delayMs` unless something starts it sooner. Setting up watches on
   * hundreds of skill folders takes a few hundred ms of the event loop; the first request
   * should not wait behind it.
   */
  scheduleWatch(delayMs: number, onError?: (message: string) => void): void {
    if (this.watcher || this.armTimer) return;
    this.armTimer = setTimeout(() => this.watch(onError), delayMs);
    this.armTimer.unref();
  }

  /** Releases the watch (session shutdown); `watch()` arms it again. */
  async stopWatching(): Promise<void> {
    if (this.armTimer) clearTimeout(this.armTimer);
    this.armTimer = undefined;
    const watcher = this.watcher;
    this.watcher = undefined;
    await watcher?.close();
  }

  /** Releases everything (deactivation). */
  async close(): Promise<void> {
    this.listeners.clear();
    await this.stopWatching();
  }

  /** Reports the diagnostics that are new since the last discovery. */
  private announce(diagnostics: SkillDiagnostic[]): void {
    const now = new Set<string>();
    for (const d of diagnostics) {
      const line = `${d.level} ${diagnosticLine(d)}`;
      now.add(line);
      if (!this.reported.has(line)) this.options.report?.(d);
    }
    this.reported = now;
  }
}
