// AGENTS.md / CLAUDE.md discovery: the user's global file (in the Keel home), then each folder
// from the filesystem root down to cwd that trust admits (the trusted project's own, folders above
// it in no project, an enclosing trusted project's). Their content is the project's to edit. Reads
// are bounded, regular files only, and Read deny rules apply; every file left out is said once.
import { dirname, join, resolve } from "node:path";
import { readFileBounded } from "@keel/extension-sdk/node";
import { pathExists, realpathOrResolved as realOf } from "../fs/paths.js";
import { isInside } from "../permissions/paths.js";
import { findEnclosingRoot } from "../trust/root.js";

/** The names the context loader reads, in order. */
export const CONTEXT_FILE_NAMES = ["AGENTS.md", "CLAUDE.md"] as const;
/** What of a context file reaches the model (the rest is cut off, with a notice). */
export const MAX_CONTEXT_BYTES = 64 * 1024;

export interface ContextFile {
  path: string;
  content: string;
}

export interface ContextFileOptions {
  cwd: string;
  /** The Keel home: its AGENTS.md (or CLAUDE.md) applies to every project. */
  home: string;
  projectRoot: string;
  /** Whether the project (and the context files between its root and cwd) is trusted. */
  trusted: boolean;
  /**
   * For a folder above the project root inside another project (a repository nested in one):
   * that project's trust as seen from `dir`. Default: untrusted.
   */
  trustAbove?: (enclosingRoot: string, dir: string) => "trusted" | "untrusted" | "changed";
  /** The Read deny rule covering `path`, if one does (its reason); the file is then left out. */
  denied?: (path: string) => Promise<string | undefined>;
  /** Told about a context file that exists but is left out, or cut short. */
  report?: (message: string, level: "info" | "warning") => void;
}

/** The first context file of `dir`, read within bounds; one that must be left out is reported. */
async function readFirst(dir: string, options: ContextFileOptions): Promise<ContextFile | undefined> {
  const report = options.report ?? (() => {});
  const name = CONTEXT_FILE_NAMES.find((n) => pathExists(join(dir, n)));
  if (name === undefined) return undefined;
  const path = join(dir, name);
  // The user wrote it for the model: leaving it out must not go unnoticed.
  for (const candidate of new Set([path, realOf(path)])) {
    const rule = await options.denied?.(candidate);
    if (rule !== undefined) {
      report(`${path} is not in the system prompt: ${rule}.`, "warning");
      return undefined;
    }
  }
  const outcome = readFileBounded(path, MAX_CONTEXT_BYTES);
  if (outcome.isErr()) {
    report(
      `${path} is not in the system prompt: ${outcome.error.message} (context files are read only when they are regular files).`,
      "warning",
    );
    return undefined;
  }
  const read = outcome.value;
  if (read.truncated)
    report(
      `${path} is ${read.size} bytes; only its first ${MAX_CONTEXT_BYTES} bytes are in the system prompt.`,
      "info",
    );
  return { path, content: read.bytes.toString("utf8") };
}

/** Whether a folder's context file may be read, or why not (undefined: leave it out silently). */
function admitted(dir: string, options: ContextFileOptions): { ok: true } | { ok: false; why?: string } {
  if (isInside(dir, options.projectRoot)) return options.trusted ? { ok: true } : { ok: false };
  const enclosing = findEnclosingRoot(dir, options.home);
  // A folder above the project in no project: trusting the project approved its file.
  if (enclosing === undefined) return options.trusted ? { ok: true } : { ok: false };
  const status = options.trustAbove?.(enclosing, dir) ?? "untrusted";
  if (status === "trusted") return { ok: true };
  return {
    ok: false,
    why:
      status === "changed"
        ? `it belongs to ${enclosing}, which changed since you trusted it (/trust it again there)`
        : `it belongs to ${enclosing}, a project that is not trusted`,
  };
}

export async function loadContextFiles(options: ContextFileOptions): Promise<ContextFile[]> {
  const files: ContextFile[] = [];
  const global = await readFirst(options.home, options);
  if (global) files.push(global);
  const dirs: string[] = [];
  // Real paths, like the project root they are compared with.
  for (let dir = realOf(resolve(options.cwd)); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  const home = realOf(resolve(options.home));
  for (const dir of dirs) {
    if (dir === home) continue;
    const admission = admitted(dir, options);
    if (!admission.ok) {
      const name = admission.why && CONTEXT_FILE_NAMES.find((n) => pathExists(join(dir, n)));
      if (name) options.report?.(`${join(dir, name)} is not read: ${admission.why}.`, "info");
      continue;
    }
    const file = await readFirst(dir, options);
    if (file) files.push(file);
  }
  return files;
}
