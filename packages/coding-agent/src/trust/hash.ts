// Content hash of everything in a project that can run code or steer the model; reads bytes, runs nothing.
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { join, relative, sep } from "node:path";
import { err, ok, type Result } from "neverthrow";

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

/** Top-level files (besides the .keel/ tree) that configure tools or steer the model. */
export const TRUSTED_ROOT_FILES = [".mcp.json", "AGENTS.md", "CLAUDE.md"] as const;

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

interface Walk {
  root: string;
  limits: HashLimits;
  entries: string[];
  files: number;
  bytes: number;
  /** Real directories already walked, so symlink loops inside the project end. */
  visited: Set<string>;
}

class Stop {
  constructor(readonly error: TrustError) {}
}

/** sha256 over the sorted (path, kind, content) of the trusted surface of `root` (a realpath). */
export function hashProject(
  root: string,
  limits: HashLimits = DEFAULT_HASH_LIMITS,
): Result<string, TrustError> {
  const walk: Walk = { root, limits, entries: [], files: 0, bytes: 0, visited: new Set() };
  try {
    visit(walk, ".keel");
    for (const name of TRUSTED_ROOT_FILES) visit(walk, name);
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

function lstatOrUndefined(walk: Walk, rel: string): Stats | undefined {
  try {
    return lstatSync(join(walk.root, rel));
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw unreadable(walk, rel, e);
  }
}

function unreadable(walk: Walk, rel: string, e: unknown): Stop {
  const message = `cannot read ${rel} in ${walk.root}: ${(e as { message?: string }).message ?? String(e)}`;
  return new Stop({ type: "project_unreadable", root: walk.root, path: rel, message });
}

function count(walk: Walk, bytes: number, rel: string): void {
  walk.files++;
  walk.bytes += bytes;
  const { maxFiles, maxTotalBytes, maxFileBytes } = walk.limits;
  if (walk.files > maxFiles || walk.bytes > maxTotalBytes || bytes > maxFileBytes) {
    const message =
      `the project's .keel/ tree is too large to hash for trust (at ${rel}: limits are ${maxFiles} files, ` +
      `${maxFileBytes} bytes per file, ${maxTotalBytes} bytes in all); move data out of .keel/`;
    throw new Stop({ type: "project_too_large", root: walk.root, message });
  }
}

/** `rel` uses "/" separators so the hash is the same on every OS. */
function visit(walk: Walk, rel: string, realRel: string = rel): void {
  if (excluded(rel)) return;
  const stat = lstatOrUndefined(walk, realRel);
  if (!stat) return;
  if (stat.isSymbolicLink()) {
    visitLink(walk, rel, realRel);
    return;
  }
  if (stat.isDirectory()) {
    const real = join(walk.root, realRel);
    if (walk.visited.has(real)) return;
    walk.visited.add(real);
    walk.entries.push(`d ${rel}`);
    count(walk, 0, rel);
    let names: string[];
    try {
      names = readdirSync(real);
    } catch (e) {
      throw unreadable(walk, rel, e);
    }
    for (const name of names) visit(walk, `${rel}/${name}`, `${realRel}/${name}`);
    return;
  }
  if (stat.isFile()) {
    count(walk, stat.size, rel);
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(walk.root, realRel));
    } catch (e) {
      throw unreadable(walk, rel, e);
    }
    walk.entries.push(`f ${rel} ${createHash("sha256").update(bytes).digest("hex")}`);
    return;
  }
  // FIFOs, sockets, devices: never opened (a FIFO would block); their presence still counts.
  walk.entries.push(`o ${rel}`);
  count(walk, 0, rel);
}

/**
 * A link is hashed by its target text. A target inside the project is followed too, since a
 * loader reading through it would see that content; one outside is never followed.
 */
function visitLink(walk: Walk, rel: string, realRel: string): void {
  const abs = join(walk.root, realRel);
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
  const inside = relative(walk.root, real);
  if (inside === "" || inside.startsWith("..") || inside.startsWith(sep) || /^[a-zA-Z]:/.test(inside)) {
    walk.entries.push(`l ${rel} outside`);
    return;
  }
  visit(walk, `${rel}=>`, inside.split(sep).join("/"));
}
