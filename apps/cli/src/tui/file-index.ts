// The project's files for @-completion: what git tracks and would track (so .gitignore holds),
// else a bounded walk; folders come from the files' paths. Built in the background when first
// asked and refreshed when older than a few seconds, so typing never waits on the disk.
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

const MAX_FILES = 20_000;
const FRESH_MS = 10_000;
const SKIP = new Set([".git", "node_modules", ".keel"]);

function walk(root: string): string[] {
  const out: string[] = [];
  const queue = [root];
  while (queue.length > 0 && out.length < MAX_FILES) {
    const dir = queue.shift()!;
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (SKIP.has(e.name)) continue;
      const path = join(dir, e.name);
      if (e.isDirectory()) queue.push(path);
      else out.push(relative(root, path));
    }
  }
  return out;
}

function gitFiles(cwd: string): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    execFile(
      "git",
      ["ls-files", "--cached", "--others", "--exclude-standard", "-z"],
      { cwd, maxBuffer: 32 * 1024 * 1024, timeout: 5000 },
      (error, stdout) => resolve(error ? undefined : stdout.split("\0").filter(Boolean).slice(0, MAX_FILES)),
    );
  });
}

/** Files and folders (with a trailing "/"), relative to `cwd`. */
function withFolders(files: string[]): string[] {
  const folders = new Set<string>();
  for (const f of files) {
    let at = f.lastIndexOf("/");
    while (at > 0) {
      folders.add(`${f.slice(0, at)}/`);
      at = f.lastIndexOf("/", at - 1);
    }
  }
  return [...folders, ...files];
}

export class FileIndex {
  private paths: string[] = [];
  private builtAt = 0;
  private building: Promise<void> | undefined;

  constructor(private readonly cwd: string) {}

  /** The paths known now; starts a refresh when they are stale (`onUpdate` hears when it lands). */
  current(onUpdate: () => void): string[] {
    if (Date.now() - this.builtAt > FRESH_MS && !this.building) {
      this.building = (async () => {
        const files = (await gitFiles(this.cwd)) ?? walk(this.cwd);
        this.paths = withFolders(files);
        this.builtAt = Date.now();
        this.building = undefined;
        onUpdate();
      })();
    }
    return this.paths;
  }
}
