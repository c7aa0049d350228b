// Expands a shell glob against the filesystem the way bash does by default (no dotglob, no
// globstar, no extglob), so the checker judges the paths a command really gets, symlinks and all,
// instead of the pattern. Bounded: a pattern that reaches too far is reported as such.
import { readdirSync } from "node:fs";
import { isAbsolute } from "node:path";
import { err, ok, type Result } from "neverthrow";
import { statQuiet } from "./paths.js";

export const GLOB_LIMITS = { matches: 1000, entries: 20_000 } as const;

/** Why a pattern was not expanded: the checker then judges the command unjudgeable. */
export interface GlobError {
  type: "unexpandable_glob";
  message: string;
}

const unexpandable = (message: string) => err<never, GlobError>({ type: "unexpandable_glob", message });

/** `pattern` escapes literal characters with `\` (as ShellWord.glob does). `[]` with no match stays. */
export function expandGlob(pattern: string, cwd: string): Result<string[], GlobError> {
  const absolute = isAbsolute(pattern);
  const segments = pattern.split("/").filter((s, i) => s !== "" || (i === 0 && absolute));
  let bases: string[] = [absolute ? "/" : ""];
  let entries = 0;
  for (const [index, segment] of segments.entries()) {
    if (absolute && index === 0 && segment === "") continue;
    const last = index === segments.length - 1;
    if (!hasMagic(segment)) {
      const literal = unescapeGlob(segment);
      bases = bases.map((b) => (b === "" ? literal : b === "/" ? `/${literal}` : `${b}/${literal}`));
      continue;
    }
    const matcher = segmentRegExp(segment);
    if (!matcher)
      return unexpandable(`the pattern ${pattern} uses a character class the checker does not expand`);
    // Old bash lets `.*` match `.` and `..`; assume it does, so `..` is judged.
    const dots = segment.startsWith(".") ? [".", ".."] : [];
    const next: string[] = [];
    for (const base of bases) {
      // Concatenated, not joined: `link/..` must climb from where the link points, as the OS does.
      const dir = base === "" ? cwd : isAbsolute(base) ? base : `${cwd}/${base}`;
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      entries += names.length;
      if (entries > GLOB_LIMITS.entries)
        return unexpandable(`the pattern ${pattern} reaches more than ${GLOB_LIMITS.entries} entries`);
      for (const name of [...dots, ...names]) {
        if (!matcher.test(name)) continue;
        const path = base === "" ? name : base === "/" ? `/${name}` : `${base}/${name}`;
        // Inner segments must be directories (through symlinks, as the shell walks them).
        if (!last && !statQuiet(isAbsolute(path) ? path : `${cwd}/${path}`)?.isDirectory()) continue;
        next.push(path);
      }
      if (next.length > GLOB_LIMITS.matches)
        return unexpandable(`the pattern ${pattern} matches more than ${GLOB_LIMITS.matches} paths`);
    }
    bases = next.sort();
    if (bases.length === 0) return ok([]);
  }
  return ok(bases);
}

function hasMagic(segment: string): boolean {
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === "\\") i++;
    else if (c === "*" || c === "?") return true;
    else if (c === "[" && closingBracket(segment, i) !== -1) return true;
  }
  return false;
}

function unescapeGlob(text: string): string {
  return text.replace(/\\(.)/g, "$1");
}

/** Index of the `]` closing a bracket expression opened at `open`, or -1 (then `[` is literal). */
function closingBracket(segment: string, open: number): number {
  let j = open + 1;
  if (segment[j] === "!" || segment[j] === "^") j++;
  if (segment[j] === "]") j++;
  for (; j < segment.length; j++) {
    if (segment[j] === "\\") j++;
    else if (segment[j] === "]") return j;
  }
  return -1;
}

/**
 * One path segment's pattern; a leading `.` must be matched literally, as without dotglob.
 * Undefined for POSIX classes (`[[:alpha:]]`) and the like, which are not translated.
 */
function segmentRegExp(segment: string): RegExp | undefined {
  let out = "";
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === "\\" && i + 1 < segment.length) {
      out += escapeRe(segment[++i]!);
    } else if (c === "*") {
      out += "[^/]*";
    } else if (c === "?") {
      out += "[^/]";
    } else if (c === "[" && closingBracket(segment, i) !== -1) {
      const close = closingBracket(segment, i);
      let body = segment.slice(i + 1, close);
      if (/\[[:=.]/.test(body)) return undefined;
      const negate = body.startsWith("!") || body.startsWith("^");
      if (negate) body = body.slice(1);
      const cls = body.replace(/\\(.)/g, "$1").replace(/[\\\]^]/g, "\\$&");
      out += negate ? `[^/${cls}]` : `[${cls}]`;
      i = close;
    } else {
      out += escapeRe(c);
    }
  }
  const dotFirst = segment.startsWith(".") || segment.startsWith("\\.");
  return new RegExp(dotFirst ? `^${out}$` : `^(?!\\.)${out}$`);
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
