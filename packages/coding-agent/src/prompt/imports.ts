// `@path` imports in a context file, found as Claude Code documents them: `@relative/path`,
// `@/absolute`, `@~/in-home`, at the start of a line or after whitespace, never inside a code span
// or a fenced code block. Pure: finds the references; reading them is context-files.ts's.
import { isAbsolute, join, resolve } from "node:path";

/** How many hops of imports are followed from a context file (Claude Code's documented limit). */
export const MAX_IMPORT_DEPTH = 5;

/** Trailing punctuation a sentence puts after a path (`see @docs/a.md.`), tried without if needed. */
const TRAILING = /[.,;:!?)\]]+$/;

/** The `@path` references of `text` outside code, in order, each once. */
export function importReferences(text: string): string[] {
  const found: string[] = [];
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      continue;
    }
    // Code spans: a run of backticks up to the same run closes it; an unclosed run is literal.
    const outside = line.replace(/(`+)[\s\S]*?\1/g, " ");
    for (const m of outside.matchAll(/(?:^|\s)@([^\s`]+)/g)) {
      const ref = m[1]!;
      if (!found.includes(ref)) found.push(ref);
    }
  }
  return found;
}

/** Where `ref` points from a file in `fromDir`; the forms to try, the literal one first. */
export function importCandidates(ref: string, fromDir: string, userHome: string): string[] {
  const at = (r: string) =>
    r === "~" || r.startsWith("~/")
      ? join(userHome, r.slice(1))
      : isAbsolute(r)
        ? resolve(r)
        : resolve(fromDir, r);
  const trimmed = ref.replace(TRAILING, "");
  return trimmed !== ref && trimmed !== "" ? [at(ref), at(trimmed)] : [at(ref)];
}
