// Live reload: chokidar watches the skill root folders (chokidar takes folders, not globs, so
// events are filtered here to `<root>/<folder>/SKILL.md` and the folders themselves), debounced
// into one change callback per burst of edits; a root that does not exist yet is watched all the
// same (chokidar notices it when it appears).
import { isAbsolute, relative, sep } from "node:path";
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

function isAncestor(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
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
  const watcher: FSWatcher = watch(roots, {
    ignoreInitial: true,
    // A watch never keeps a process alive: print mode must exit (or find a stuck run) as without it.
    persistent: false,
    depth: 1,
    // Anything deeper than a skill's SKILL.md is never watched, so large skill folders cost nothing.
    // A root that does not exist yet (or is removed and made again) is noticed when it appears.
    ignored: (path) => !relevant(path) && !roots.some((root) => isAncestor(path, root)),
  });
  watcher.on("all", (event, path) => {
    // A root made again (a branch switch removes and restores .claude/skills) is found through
    // its parent's watch, and chokidar may then list its skill folders without watching them (or
    // miss one made while it lists): their edits would never be seen. Once the burst settles, the
    // root is watched afresh as at the start (nothing is reported for what is already there).
    if (event === "addDir" && partsUnder(roots, path)?.length === 0)
      setTimeout(() => {
        if (closed) return;
        watcher.unwatch(path);
        watcher.add(path);
      }, debounceMs).unref();
    if (relevant(path)) fire();
  });
  watcher.on("error", onError);
  const ready = new Promise<void>((r) => watcher.once("ready", () => r()));
  return {
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await watcher.close();
    },
  };
}
