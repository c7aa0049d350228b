// Resolves tool and rule paths the way the OS will: `~`, workspace-relative, `..`, and symlinks.
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, normalize, relative, resolve, sep } from "node:path";

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

/** realpath of the longest existing prefix, with the rest appended (a new file's parent may exist). */
export function realpathLoose(path: string): string {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      const real = realpathSync(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(basename(current));
      current = parent;
    }
  }
}

export function resolvePath(path: string, base: string, home?: string): ResolvedPath {
  const lexical = normalize(resolve(base, expandHome(path, home)));
  return { lexical, real: realpathLoose(lexical) };
}

export function isInside(path: string, dir: string): boolean {
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
