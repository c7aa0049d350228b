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

/**
 * The text without its block-level HTML comments (`<!-- maintainer notes -->` starting a line),
 * which Claude Code strips before a memory file reaches the model. Fenced code keeps them, and
 * a comment never closed is left as it is (the text after it is the user's too).
 */
export function withoutHtmlComments(text: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  /** The lines of a comment not yet closed: dropped at its `-->`, kept if there is none. */
  let open: string[] | undefined;
  for (const line of text.split("\n")) {
    if (open !== undefined) {
      const end = line.indexOf("-->");
      if (end === -1) {
        open.push(line);
        continue;
      }
      open = undefined;
      const rest = line.slice(end + 3);
      if (rest.trim() !== "") out.push(rest);
      continue;
    }
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      out.push(line);
      continue;
    }
    if (marker !== undefined) fence = marker;
    if (marker !== undefined || !/^\s*<!--/.test(line)) {
      out.push(line);
      continue;
    }
    let rest = line;
    while (/^\s*<!--/.test(rest)) {
      const end = rest.indexOf("-->");
      if (end === -1) {
        open = [line];
        break;
      }
      rest = rest.slice(end + 3);
    }
    if (open === undefined && rest.trim() !== "") out.push(rest);
  }
  if (open !== undefined) out.push(...open);
  return out.join("\n");
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
