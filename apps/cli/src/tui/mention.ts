// @path completion: the mention being typed at the cursor, the project files ranked for it
// (fuzzy: the typed letters in order, whole-name and start-of-name matches first), and the text
// once one is chosen. Pure.
import type { EditorState } from "./editor.js";

export interface MentionToken {
  /** Index of the "@". */
  start: number;
  /** What was typed after it. */
  query: string;
}

/** The `@…` word that ends at the cursor, if the cursor is in one. */
export function mentionAt(editor: EditorState): MentionToken | undefined {
  const before = editor.text.slice(0, editor.cursor);
  const m = /(^|\s)@([^\s"]*)$/.exec(before);
  if (!m) return undefined;
  const after = editor.text.slice(editor.cursor);
  if (after !== "" && !/^\s/.test(after)) return undefined;
  return { start: before.length - m[2]!.length - 1, query: m[2]! };
}

/** How well `path` matches `query`; undefined when it does not (letters must come in order). */
export function fuzzyScore(path: string, query: string): number | undefined {
  if (query === "") return 1000 - path.length;
  const p = path.toLowerCase();
  const q = query.toLowerCase();
  const base = p.slice(p.lastIndexOf("/", p.length - 2) + 1);
  let score: number;
  if (base.startsWith(q)) score = 3000;
  else if (p.startsWith(q)) score = 2500;
  else if (p.includes(q)) score = 2000;
  else {
    let at = 0;
    let gaps = 0;
    for (const ch of q) {
      const found = p.indexOf(ch, at);
      if (found === -1) return undefined;
      gaps += found - at;
      at = found + 1;
    }
    score = 1000 - gaps * 10;
  }
  return score - path.length;
}

export function rankPaths(paths: readonly string[], query: string, limit = 50): string[] {
  const scored: { path: string; score: number }[] = [];
  for (const path of paths) {
    const score = fuzzyScore(path, query);
    if (score !== undefined) scored.push({ path, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
  return scored.slice(0, limit).map((s) => s.path);
}

/**
 * The text with the mention replaced by the chosen path; a folder, or an extension's prefix
 * (`docs:`), keeps the menu open (no space after it).
 */
export function completeMention(editor: EditorState, token: MentionToken, path: string): EditorState {
  const quoted = /\s/.test(path) ? `"${path}"` : path;
  const insert = `@${quoted}${path.endsWith("/") || path.endsWith(":") ? "" : " "}`;
  const text = editor.text.slice(0, token.start) + insert + editor.text.slice(editor.cursor);
  return { text, cursor: token.start + insert.length };
}
