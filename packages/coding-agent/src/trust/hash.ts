// The hash trust entries were bound to before Keel recorded a project's surface (surface.ts):
// everything a trusted project could run or show the model, read as bytes. Kept only to carry
// such entries over (store.ts): one whose project still hashes the same stays trusted. It covers
// .keel/ and the other trusted folders, the root's config and context files, what their symlinks
// point to, the modules extensions import and the project files hooks run.
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { extname, isAbsolute, join, relative, sep } from "node:path";
import { err, ok, type Result } from "neverthrow";
import { hookFiles } from "./hook-files.js";
import { importSpecifiers, MODULE_EXTENSIONS, resolveImport } from "./imports.js";

export type TrustError =
  | { type: "project_too_large"; root: string; message: string }
  | { type: "project_unreadable"; root: string; path: string; message: string }
  | { type: "trust_store_invalid"; file: string; message: string }
  | { type: "trust_store_write_failed"; file: string; message: string };

export interface HashLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
}

export const DEFAULT_HASH_LIMITS: HashLimits = {
  maxFiles: 5_000,
  maxFileBytes: 8 * 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
};

/** Top-level files (besides the trusted folders) that configure tools or steer the model. */
export const TRUSTED_ROOT_FILES = [".mcp.json", "AGENTS.md", "CLAUDE.md"] as const;

/**
 * Folders whose content a trusted project hands to the model or runs: Keel's own, and the
 * skill and agent folders of the Agent Skills and Claude Code conventions.
 */
export const TRUSTED_PROJECT_DIRS = [".keel", ".agents/skills", ".claude/skills", ".claude/agents"] as const;

/**
 * Inside .keel/, data Keel writes itself (never loaded as code or prompt) and the .gitignore the
 * kernel maintains; hashing them would untrust a project every time a session is saved.
 */
export const EXCLUDED_KEEL_PATHS = [
  ".keel/sessions",
  ".keel/cache",
  ".keel/logs",
  ".keel/.gitignore",
] as const;

/** Links into these are recorded, never read: reading /dev/zero or a /proc file may never end. */
const SYSTEM_DIRS = ["/proc", "/sys", "/dev"];

interface Walk {
  root: string;
  limits: HashLimits;
  entries: string[];
  files: number;
  bytes: number;
  /** Real directories already walked, so symlink loops end. */
  visited: Set<string>;
  /** Real paths of files already hashed. */
  hashed: Set<string>;
  /** Extension modules whose imports are followed once the walk is done. */
  modules: Map<string, Buffer>;
}

class Stop {
  constructor(readonly error: TrustError) {}
}

/** sha256 over the sorted (path, kind, content) of the trusted surface of `root` (a realpath). */
export function hashProject(
  root: string,
  limits: HashLimits = DEFAULT_HASH_LIMITS,
): Result<string, TrustError> {
  const walk: Walk = {
    root,
    limits,
    entries: [],
    files: 0,
    bytes: 0,
    visited: new Set(),
    hashed: new Set(),
    modules: new Map(),
  };
  try {
    for (const dir of TRUSTED_PROJECT_DIRS) visit(walk, dir, join(root, dir));
    for (const name of TRUSTED_ROOT_FILES) visit(walk, name, join(root, name));
    followImports(walk);
  } catch (e) {
    if (e instanceof Stop) return err(e.error);
    throw e;
  }
  walk.entries.sort();
  const hash = createHash("sha256");
  for (const entry of walk.entries) hash.update(entry).update("\n");
  return ok(`sha256:${hash.digest("hex")}`);
}

function excluded(rel: string): boolean {
  return EXCLUDED_KEEL_PATHS.some((p) => rel === p || rel.startsWith(p + "/"));
}

function isSystemPath(real: string): boolean {
  return SYSTEM_DIRS.some((d) => real === d || real.startsWith(d + "/"));
}

/** How a path is named in the hash: relative to the root inside it, absolute outside. */
function display(walk: Walk, real: string): string {
  const rel = relative(walk.root, real);
  if (rel === "") return ".";
  if (rel.startsWith("..") || isAbsolute(rel)) return real;
  return rel.split(sep).join("/");
}

function lstatOrUndefined(walk: Walk, rel: string, abs: string): Stats | undefined {
  try {
    return lstatSync(abs);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw unreadable(walk, rel, e);
  }
}

function unreadable(walk: Walk, rel: string, e: unknown): Stop {
  const message = `cannot read ${rel} in ${walk.root}: ${(e as { message?: string }).message ?? String(e)}`;
  return new Stop({ type: "project_unreadable", root: walk.root, path: rel, message });
}

/** `perFile: false` for imported modules: a large bundled dependency is code like any other. */
function count(walk: Walk, bytes: number, rel: string, perFile = true): void {
  walk.files++;
  walk.bytes += bytes;
  const { maxFiles, maxTotalBytes, maxFileBytes } = walk.limits;
  if (walk.files > maxFiles || walk.bytes > maxTotalBytes || (perFile && bytes > maxFileBytes)) {
    const message =
      `what trusting this project covers is too large to hash (at ${rel}: limits are ${maxFiles} files, ` +
      `${maxFileBytes} bytes per file, ${maxTotalBytes} bytes in all); move data out of .keel/, or remove the link that leads there`;
    throw new Stop({ type: "project_too_large", root: walk.root, message });
  }
}

function readBytes(walk: Walk, rel: string, abs: string): Buffer {
  try {
    return readFileSync(abs);
  } catch (e) {
    throw unreadable(walk, rel, e);
  }
}

const digest = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

function isModule(path: string): boolean {
  return MODULE_EXTENSIONS.includes(extname(path));
}

/** Extension code: a module under .keel/extensions that is the extension's own, not a dependency. */
function isExtensionModule(rel: string): boolean {
  return rel.startsWith(".keel/extensions") && !rel.includes("/node_modules/") && isModule(rel);
}

/** `rel` is the name in the hash ("/" separators, so it is the same on every OS); `abs` is where to read. */
function visit(walk: Walk, rel: string, abs: string): void {
  if (excluded(rel)) return;
  const stat = lstatOrUndefined(walk, rel, abs);
  if (!stat) return;
  if (stat.isSymbolicLink()) {
    visitLink(walk, rel, abs);
    return;
  }
  if (stat.isDirectory()) {
    if (walk.visited.has(abs)) return;
    walk.visited.add(abs);
    walk.entries.push(`d ${rel}`);
    count(walk, 0, rel);
    let names: string[];
    try {
      names = readdirSync(abs);
    } catch (e) {
      throw unreadable(walk, rel, e);
    }
    for (const name of names) visit(walk, `${rel}/${name}`, join(abs, name));
    return;
  }
  if (stat.isFile()) {
    count(walk, stat.size, rel);
    const bytes = readBytes(walk, rel, abs);
    walk.hashed.add(abs);
    walk.entries.push(`f ${rel} ${digest(bytes)}`);
    if (isExtensionModule(rel)) walk.modules.set(abs, bytes);
    return;
  }
  // FIFOs, sockets, devices: never opened (a FIFO would block); their presence still counts.
  walk.entries.push(`o ${rel}`);
  count(walk, 0, rel);
}

/**
 * A link is hashed by its target text and by what it leads to, wherever that is: a loader
 * reading through it sees that content, so trust must cover it. A change there (even outside
 * the project) makes the project untrusted again. Device and kernel files are never read.
 */
function visitLink(walk: Walk, rel: string, abs: string): void {
  let target: string;
  try {
    target = readlinkSync(abs);
  } catch (e) {
    throw unreadable(walk, rel, e);
  }
  walk.entries.push(`l ${rel} -> ${target}`);
  count(walk, 0, rel);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    walk.entries.push(`l ${rel} dangling`);
    return;
  }
  if (isSystemPath(real)) {
    walk.entries.push(`l ${rel} system ${real}`);
    return;
  }
  walk.entries.push(`l ${rel} => ${display(walk, real)}`);
  visit(walk, `${rel}=>`, real);
}

/** A file outside the walked folders that trust still covers: a hook script, an imported module. */
function hashExtra(walk: Walk, kind: "h" | "i", real: string): Buffer | undefined {
  if (isSystemPath(real)) return undefined;
  const name = display(walk, real);
  let size: number;
  try {
    const stat = lstatSync(real);
    if (!stat.isFile()) return undefined;
    size = stat.size;
  } catch {
    return undefined;
  }
  // Already hashed by the walk (a module inside .keel/ imported by another): read to follow it.
  if (walk.hashed.has(real)) return readBytes(walk, name, real);
  count(walk, size, name, kind === "h");
  const bytes = readBytes(walk, name, real);
  walk.hashed.add(real);
  walk.entries.push(`${kind} ${name} ${digest(bytes)}`);
  return bytes;
}

function insideRoot(walk: Walk, real: string): boolean {
  const rel = relative(walk.root, real);
  return !rel.startsWith("..") && !isAbsolute(rel);
}

/**
 * Follows the static imports of extension modules and hook scripts, transitively. Relative and
 * absolute imports are followed wherever they lead; package imports only into packages inside
 * the project (its node_modules): packages elsewhere belong to the user's installation.
 */
function followImports(walk: Walk): void {
  const queue: [string, Buffer][] = [...walk.modules];
  for (const file of hookFiles(walk.root)) {
    const bytes = hashExtra(walk, "h", file);
    if (bytes && isModule(file)) queue.push([file, bytes]);
  }
  const seen = new Set(queue.map(([file]) => file));
  while (queue.length > 0) {
    const [file, bytes] = queue.shift()!;
    for (const specifier of importSpecifiers(bytes.toString("utf8"))) {
      const resolved = resolveImport(specifier, file);
      if (!resolved) continue;
      let real: string;
      try {
        real = realpathSync(resolved);
      } catch {
        continue;
      }
      if (seen.has(real)) continue;
      const bare = !specifier.startsWith(".") && !isAbsolute(specifier) && !specifier.startsWith("file:");
      if (bare && !insideRoot(walk, real)) continue;
      seen.add(real);
      const content = hashExtra(walk, "i", real);
      if (content && isModule(real)) queue.push([real, content]);
    }
  }
}
