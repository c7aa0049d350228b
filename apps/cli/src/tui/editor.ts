// The prompt editor as pure functions over {text, cursor}: insertion, deletion, cursor moves across
// lines, and the prompt history. The input component only maps keys onto these.

export interface EditorState {
  text: string;
  /** Index into `text`, 0…text.length. */
  cursor: number;
}

export const emptyEditor: EditorState = { text: "", cursor: 0 };

export function editorWith(text: string): EditorState {
  return { text, cursor: text.length };
}

export function insert(s: EditorState, input: string): EditorState {
  const clean = input.replace(/\r\n?/g, "\n");
  return {
    text: s.text.slice(0, s.cursor) + clean + s.text.slice(s.cursor),
    cursor: s.cursor + clean.length,
  };
}

export function backspace(s: EditorState): EditorState {
  if (s.cursor === 0) return s;
  const step = charBefore(s.text, s.cursor);
  return { text: s.text.slice(0, s.cursor - step) + s.text.slice(s.cursor), cursor: s.cursor - step };
}

export function deleteForward(s: EditorState): EditorState {
  if (s.cursor >= s.text.length) return s;
  const step = charAfter(s.text, s.cursor);
  return { text: s.text.slice(0, s.cursor) + s.text.slice(s.cursor + step), cursor: s.cursor };
}

/** Surrogate pairs count as one character for moves and deletes. */
function charBefore(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xdc00 && code <= 0xdfff && at >= 2 ? 2 : 1;
}

function charAfter(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xd800 && code <= 0xdbff && at + 1 < text.length ? 2 : 1;
}

export function left(s: EditorState): EditorState {
  return s.cursor === 0 ? s : { ...s, cursor: s.cursor - charBefore(s.text, s.cursor) };
}

export function right(s: EditorState): EditorState {
  return s.cursor >= s.text.length ? s : { ...s, cursor: s.cursor + charAfter(s.text, s.cursor) };
}

export function lineStart(s: EditorState): EditorState {
  return { ...s, cursor: s.text.lastIndexOf("\n", s.cursor - 1) + 1 };
}

export function lineEnd(s: EditorState): EditorState {
  const end = s.text.indexOf("\n", s.cursor);
  return { ...s, cursor: end === -1 ? s.text.length : end };
}

/** Ctrl+W: the word (and the spaces) before the cursor. */
export function deleteWordBefore(s: EditorState): EditorState {
  const before = s.text.slice(0, s.cursor);
  const kept = before.replace(/\S*\s*$/, "");
  return { text: kept + s.text.slice(s.cursor), cursor: kept.length };
}

/** Ctrl+U: from the start of the line to the cursor. */
export function deleteToLineStart(s: EditorState): EditorState {
  const start = lineStart(s).cursor;
  if (start === s.cursor && start > 0) return backspace(s); // at a line start: join with the previous line
  return { text: s.text.slice(0, start) + s.text.slice(s.cursor), cursor: start };
}

export function cursorRowCol(s: EditorState): { row: number; col: number } {
  const before = s.text.slice(0, s.cursor).split("\n");
  return { row: before.length - 1, col: before[before.length - 1]!.length };
}

/** Up/down inside a multi-line prompt; undefined at the first/last line (the history takes over). */
export function verticalMove(s: EditorState, direction: -1 | 1): EditorState | undefined {
  const lines = s.text.split("\n");
  const { row, col } = cursorRowCol(s);
  const target = row + direction;
  if (target < 0 || target >= lines.length) return undefined;
  let cursor = 0;
  for (let i = 0; i < target; i++) cursor += lines[i]!.length + 1;
  return { ...s, cursor: cursor + Math.min(col, lines[target]!.length) };
}

/** A prompt ending in a backslash continues on a new line instead of being sent. */
export function continuesLine(s: EditorState): boolean {
  return s.cursor === s.text.length && s.text.endsWith("\\");
}

export function replaceTrailingBackslash(s: EditorState): EditorState {
  return insert({ text: s.text.slice(0, -1), cursor: s.cursor - 1 }, "\n");
}

export interface History {
  entries: string[];
  /** entries.length means "the draft being typed", not a history entry. */
  index: number;
  draft: string;
}

export const emptyHistory: History = { entries: [], index: 0, draft: "" };

const MAX_HISTORY = 200;

export function remember(h: History, text: string): History {
  const trimmed = text.trim();
  const entries =
    trimmed === "" || h.entries[h.entries.length - 1] === text ? h.entries : [...h.entries, text];
  const kept = entries.slice(-MAX_HISTORY);
  return { entries: kept, index: kept.length, draft: "" };
}

/** Older (-1) or newer (+1) entry; the draft typed before browsing comes back at the end. */
export function browse(
  h: History,
  current: string,
  direction: -1 | 1,
): { history: History; text: string } | undefined {
  const index = h.index + direction;
  if (index < 0 || index > h.entries.length) return undefined;
  const draft = h.index === h.entries.length ? current : h.draft;
  const text = index === h.entries.length ? draft : h.entries[index]!;
  return { history: { ...h, index, draft }, text };
}
