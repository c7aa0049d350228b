// The file versions behind code rewind: before a write tool changes the files it declares (and after),
// its content is kept in the session folder's `file-history/` (content-addressed, bounded) and
// named in the T1/T2 entries; a restore plan folded from the journal writes them back.
import { mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import type { ToolDeclaration } from "@keel/extension-sdk";
import { writeFileAtomic } from "@keel/extension-sdk/node";
import type { FileVersion, RestorePlan } from "@keel/session";
import { errnoCode, errnoMessage } from "../fs/errno.js";
import { roleValues } from "../tools/declarations.js";
import { hashBytes } from "../tools/file-tracker.js";
import { displayPath, resolvePath } from "../tools/shared.js";
import type { FileChanges, FilesRestored } from "./types.js";

export interface FileHistoryLimits {
  /** A file larger than this is not kept (the rewind says it cannot restore it). */
  maxFileBytes: number;
  /** The folder's total; past it no new versions are kept. */
  maxStoreBytes: number;
}

export const FILE_HISTORY_LIMITS: FileHistoryLimits = {
  maxFileBytes: 8 * 1024 * 1024,
  maxStoreBytes: 512 * 1024 * 1024,
};

export interface FileHistory {
  /**
   * The files a call changes, as they are now: the `paths` a write tool declares. Undefined for
   * calls Keel cannot undo (any other access, or a write tool that names no file).
   */
  before(declaration: ToolDeclaration | undefined, args: Record<string, unknown>): FileVersion[] | undefined;
  /** The same files as the call left them. */
  after(paths: readonly string[]): FileVersion[];
  /** What a plan would do, in display paths. */
  describe(plan: RestorePlan): FileChanges;
  /** Writes the plan's versions back (removing files that did not exist). */
  restore(plan: RestorePlan): FilesRestored;
}

function mb(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MB`;
}

/** `dir()`: the session folder's file store, undefined while there is none (the call is not kept). */
export function createFileHistory(
  cwd: string,
  dir: () => string | undefined,
  limits: FileHistoryLimits = FILE_HISTORY_LIMITS,
): FileHistory {
  // The store's size, counted once per folder per process and kept up to date from then on.
  const sizes = new Map<string, number>();
  const storeSize = (store: string): number => {
    let size = sizes.get(store);
    if (size !== undefined) return size;
    size = 0;
    try {
      for (const name of readdirSync(store)) size += statSync(join(store, name)).size;
    } catch {
      // No store yet.
    }
    sizes.set(store, size);
    return size;
  };

  const keep = (path: string): FileVersion => {
    const store = dir();
    if (!store) return { path, blob: null, skipped: "the session keeps no file history" };
    let bytes: Buffer;
    try {
      const info = statSync(path);
      if (!info.isFile()) return { path, blob: null, skipped: "not a regular file" };
      if (info.size > limits.maxFileBytes)
        return { path, blob: null, skipped: `larger than ${mb(limits.maxFileBytes)}` };
      bytes = readFileSync(path);
    } catch (e) {
      if (errnoCode(e) === "ENOENT") return { path, blob: null };
      return { path, blob: null, skipped: `unreadable (${errnoMessage(e)})` };
    }
    const blob = hashBytes(bytes);
    const file = join(store, blob);
    try {
      statSync(file);
      return { path, blob };
    } catch {
      // Not kept yet.
    }
    const used = storeSize(store);
    if (used + bytes.length > limits.maxStoreBytes)
      return { path, blob: null, skipped: `the file history is full (${mb(limits.maxStoreBytes)})` };
    try {
      mkdirSync(store, { recursive: true, mode: 0o700 });
    } catch (e) {
      return { path, blob: null, skipped: `cannot create ${store} (${errnoMessage(e)})` };
    }
    const written = writeFileAtomic(file, bytes, { newFileMode: 0o600 });
    if (written.isErr()) return { path, blob: null, skipped: `could not be kept (${written.error.message})` };
    sizes.set(store, used + bytes.length);
    return { path, blob };
  };

  const shown = (path: string) => displayPath(cwd, path);

  return {
    before(declaration, args) {
      if (declaration?.access !== "write") return undefined;
      const given = roleValues(args, declaration.args?.paths);
      if (given.length === 0) return undefined;
      return given.map((path) => keep(resolvePath(cwd, path)));
    },
    after(paths) {
      return paths.map(keep);
    },
    describe(plan) {
      return {
        files: plan.files.map((f) => ({
          path: shown(f.path),
          action: f.blob === null ? "delete" : "restore",
        })),
        unrestorable: plan.unrestorable.map((u) => ({ path: shown(u.path), reason: u.reason })),
        notRestored: plan.notRestored,
      };
    },
    restore(plan) {
      const store = dir();
      const failed: FilesRestored["failed"] = [];
      for (const file of plan.files) {
        if (file.blob === null) {
          try {
            unlinkSync(file.path);
          } catch (e) {
            if (errnoCode(e) !== "ENOENT") failed.push({ path: shown(file.path), reason: errnoMessage(e) });
          }
          continue;
        }
        let bytes: Buffer;
        try {
          if (!store) throw new Error("the session keeps no file history");
          bytes = readFileSync(join(store, file.blob));
        } catch (e) {
          failed.push({ path: shown(file.path), reason: `its kept version is gone (${errnoMessage(e)})` });
          continue;
        }
        const written = writeFileAtomic(file.path, bytes);
        if (written.isErr()) failed.push({ path: shown(file.path), reason: written.error.message });
      }
      const described = this.describe(plan);
      const broken = new Set(failed.map((f) => f.path));
      return { ...described, files: described.files.filter((f) => !broken.has(f.path)), failed };
    },
  };
}
