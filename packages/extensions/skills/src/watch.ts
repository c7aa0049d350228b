// Live reload: chokidar watches the skill root folders (chokidar 5 takes folders, not globs, so
// events are filtered here to `<root>/<folder>/SKILL.md` and the folders themselves), debounced
// into one change callback per burst of edits. chokidar 5 does not notice a watched folder that
// does not exist yet, so a missing root waits on its nearest existing parent, one name deep.
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { type FSWatcher, watch } from "chokidar";

export const DEFAULT_DEBOUNCE_MS = 150;

export interface SkillWatcher {
  /** Settles once the initial scan is done and changes are being seen. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export interface WatchOptions {
  debounceMs?: number;
  onError?: (message: string) => void;
}

/** Where `path` sits under one of `roots`: [] for a root, [folder], [folder, file], or undefined. */
function partsUnder(roots: string[], path: string): string[] | undefined {
  for (const root of roots) {
    const rel = relative(root, path);
    if (rel === "") return [];
    if (rel.startsWith("..") || isAbsolute(rel)) continue;
    return rel.split(sep);
  }
  return undefined;
}

function nearestExisting(path: string): string {
  let dir = dirname(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export function watchSkillRoots(
  roots: string[],
  onChange: () => void,
  options: WatchOptions = {},
): SkillWatcher {
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  const onError = (e: unknown) =>
    options.onError?.(`watching skills: ${e instanceof Error ? e.message : String(e)}`);
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const fire = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (!closed) onChange();
    }, debounceMs);
  };

  const relevant = (path: string): boolean => {
    const parts = partsUnder(roots, path);
    return parts !== undefined && (parts.length <= 1 || (parts.length === 2 && parts[1] === "SKILL.md"));
  };
  const existing = roots.filter((r) => existsSync(r));
  const main: FSWatcher = watch(existing, {
    ignoreInitial: true,
    // A watch never keeps a process alive: print mode must exit (or find a stuck run) as without it.
    persistent: false,
    depth: 1,
    // Anything deeper than a skill's SKILL.md is never watched, so large skill folders cost nothing.
    ignored: (path) => !relevant(path),
  });
  main.on("all", (event, path) => {
    if (!relevant(path)) return;
    fire();
    if (event === "unlinkDir" && roots.includes(path)) void waitFor(path);
  });
  main.on("error", onError);
  // With no folder to watch yet chokidar never says "ready"; there is nothing to wait for then.
  const mainReady =
    existing.length === 0 ? Promise.resolve() : new Promise<void>((r) => main.once("ready", () => r()));

  const waiting = new Map<string, FSWatcher>();
  // Roots the constructor already watches: not added a second time by the first waitFor.
  const initial = new Set(existing);
  /** Watches `root`, or its nearest existing parent until the root appears. */
  const waitFor = async (root: string): Promise<void> => {
    if (closed || waiting.has(root)) return;
    if (existsSync(root)) {
      if (!initial.has(root)) main.add(root);
      initial.delete(root);
      return;
    }
    const parent = nearestExisting(root);
    const next = join(parent, relative(parent, root).split(sep)[0] ?? "");
    const w = watch(parent, {
      ignoreInitial: true,
      persistent: false,
      depth: 0,
      ignored: (p) => p !== parent && p !== next,
    });
    waiting.set(root, w);
    const appeared = async () => {
      if (waiting.get(root) !== w) return;
      waiting.delete(root);
      await w.close();
      if (closed) return;
      if (existsSync(root)) fire();
      await waitFor(root);
    };
    w.on("addDir", (p) => {
      if (p === next) void appeared();
    });
    w.on("error", onError);
    await new Promise<void>((r) => w.once("ready", () => r()));
    // Created while the watch was being set up.
    if (existsSync(next)) await appeared();
  };

  const ready = Promise.all(roots.map(waitFor)).then(() => mainReady);
  return {
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      const all = [main, ...waiting.values()];
      waiting.clear();
      await Promise.all(all.map((w) => w.close()));
    },
  };
}
