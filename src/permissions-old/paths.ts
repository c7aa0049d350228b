// Resolves tool and rule paths the way the OS will: `~`, workspace-relative, `..`, and symlinks.
import { lstatSync, readlinkSync, realpathSync, type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from "node:path";

export interface ResolvedPath {
  /** `~`, relative and `..` resolved, symlinks not followed. */
  lexical: string;
  /** Every existing prefix followed through symlinks: where the OS would actually read or write. */
  real: string;
}

export function expandHome(path: string, home: string = homedir()): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return path;
}

/** lstat / stat that answer undefined for any failure (missing, ENOTDIR, ELOOP, EACCES). */
export function lstatQuiet(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

export function statQuiet(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** Symlink hops before the OS gives up with ELOOP (Linux's limit). */
const MAX_LINK_HOPS = 40;

/**
 * Where the OS would really go for `path` (absolute, `..` not yet collapsed): components are
 * taken one at a time as the kernel does, so a symlink is replaced by its target — also one
 * that does not exist yet, so a write through a dangling link is judged where it lands — and a
 * `..` after a symlink climbs from the link's target, not from the link. Past the first
 * component that does not exist, the rest is appended as written.
 */
export function realpathLoose(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    // Some component is missing (or a link dangles): walk it by hand.
  }
  const pending = path.split(sep).reverse();
  let current: string = sep;
  let hops = 0;
  let missing = false;
  while (pending.length > 0) {
    const part = pending.pop()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    if (missing) {
      current = next;
      continue;
    }
    const info = lstatQuiet(next);
    if (info === undefined) {
      missing = true;
      current = next;
      continue;
    }
    if (info.isSymbolicLink() && hops++ < MAX_LINK_HOPS) {
      let target: string;
      try {
        target = readlinkSync(next);
      } catch {
        current = next;
        continue;
      }
      pending.push(...target.split(sep).reverse());
      if (isAbsolute(target)) current = sep;
      continue;
    }
    current = next;
  }
  return current;
}

/** A model-supplied path for a file tool: tools collapse `..` as written, then the OS follows links. */
export function resolvePath(path: string, base: string, home?: string): ResolvedPath {
  const lexical = normalize(resolve(base, expandHome(path, home)));
  return { lexical, real: realpathLoose(lexical) };
}

/**
 * A path a shell command hands to a program: the program's open() resolves it component by
 * component, so `link/../x` leaves from where `link` points. `path` has `~` expanded already.
 */
export function resolveShellPath(path: string, cwd: string): ResolvedPath {
  const absolute = isAbsolute(path) ? path : `${cwd}${sep}${path}`;
  return { lexical: normalize(absolute), real: realpathLoose(absolute) };
}

export function isInside(path: string, dir: string): boolean {
  // The common case, two normalized absolute paths, without path.relative's cost.
  if (isAbsolute(path) && isAbsolute(dir) && !/(^|[\\/])\.\.?([\\/]|$)/.test(path + dir)) {
    const base = dir.endsWith(sep) ? dir : dir + sep;
    return path === dir || path.startsWith(base) || path + sep === base;
  }
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Path relative to the workspace with "/" separators, or undefined when outside. */
export function workspaceRelative(path: string, workspace: string): string | undefined {
  if (!isInside(path, workspace)) return undefined;
  return relative(workspace, path).split(sep).join("/");
}

/** A glob (`*` within a segment, `**` across segments, `?` one char) as an anchored RegExp. */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const slashBefore = i === 0 || glob[i - 1] === "/";
        const slashAfter = glob[i + 2] === "/";
        if (slashBefore && slashAfter) {
          out += "(?:.*/)?";
          i += 2;
        } else if (slashBefore && i + 2 === glob.length && out.endsWith("/")) {
          // `dir/**` matches the directory itself and everything under it.
          out = out.slice(0, -1) + "(?:/.*)?";
          i += 1;
        } else {
          out += ".*";
          i += 1;
        }
      } else out += "[^/]*";
    } else if (c === "?") out += "[^/]";
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

export function hasGlob(text: string): boolean {
  return /[*?[]/.test(text);
}

/** A rule path pattern, resolved both lexically and through symlinks of its literal prefix. */
export interface PathPattern {
  lexical: RegExp;
  real: RegExp;
}

export function compilePathPattern(spec: string, workspace: string, home?: string): PathPattern {
  // Claude Code writes absolute paths as `//abs`; accept that as well as `/abs`.
  const cleaned = spec.startsWith("//") ? spec.slice(1) : spec;
  const absolute = normalize(resolve(workspace, expandHome(cleaned, home)));
  const segments = absolute.split(sep);
  const firstGlob = segments.findIndex(hasGlob);
  const literal = firstGlob === -1 ? absolute : segments.slice(0, firstGlob).join(sep) || sep;
  const rest = firstGlob === -1 ? [] : segments.slice(firstGlob);
  const realLiteral = realpathLoose(literal);
  const toRegExp = (prefix: string) => {
    const text = rest.length === 0 ? prefix : join(prefix, ...rest);
    // A plain directory path covers what is inside it.
    return globToRegExp(toSlash(firstGlob === -1 ? `${text.replace(/\/$/, "")}/**` : text));
  };
  return { lexical: toRegExp(literal), real: toRegExp(realLiteral) };
}

function toSlash(path: string): string {
  return path.split(sep).join("/");
}

/** Deny rules match either view of the target; allow rules only where the OS would really go. */
export function patternMatches(
  pattern: PathPattern,
  target: ResolvedPath,
  purpose: "deny" | "allow",
): boolean {
  const real = toSlash(target.real);
  if (pattern.real.test(real) || pattern.lexical.test(real)) return true;
  return purpose === "deny" && pattern.lexical.test(toSlash(target.lexical));
}
