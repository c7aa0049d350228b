// Key bindings in one place: ink's (input, key) pair becomes a named action. Pure, so the
// bindings are unit-tested without a terminal. KEY_HELP is the table users see in /help.
import type { Key } from "ink";

export const KEY_HELP = [
  "Keys:",
  "  Enter            send (while the agent works: steer it)",
  "  Alt+Enter        queue a follow-up for when the agent finishes",
  "  \\ then Enter     new line (also Ctrl+J, or Shift+Enter where the terminal reports it)",
  "  Up / Down        history (inside a multi-line prompt: move between lines)",
  "  Tab              complete a /command or an @file",
  "  Shift+Tab        permission mode: default → acceptEdits → plan (→ bypassPermissions if started in it)",
  "  @path            attach a file (its content), a folder (its listing) or an image",
  "  !command         run a shell command; its output goes into the conversation",
  "  Ctrl+V           paste an image from the clipboard (needs wl-paste or xclip)",
  "  Esc              interrupt the run",
  "  Ctrl+C           interrupt the run / clear the prompt; twice within 2 s: exit",
  "  Ctrl+D           exit (on an empty prompt)",
  "  Ctrl+O           show / hide the last tool's full output",
  "  Ctrl+A / Ctrl+E  line start / end;  Ctrl+W delete word;  Ctrl+U delete to line start",
  "  Approvals        y once · a always (2, 3: a wider rule) · n deny and stop · t deny and say why",
  "                   (arrows + Enter; PgUp/PgDn or ↑/↓ scroll a long diff; Esc denies)",
].join("\n");

export type KeyAction =
  | { type: "insert"; text: string }
  | { type: "submit" }
  | { type: "followUp" }
  | { type: "newline" }
  | { type: "backspace" }
  | { type: "deleteForward" }
  | { type: "left" }
  | { type: "right" }
  | { type: "up" }
  | { type: "down" }
  | { type: "lineStart" }
  | { type: "lineEnd" }
  | { type: "deleteWord" }
  | { type: "deleteToLineStart" }
  | { type: "tab" }
  | { type: "escape" }
  | { type: "interrupt" }
  | { type: "eof" }
  | { type: "toggleOutput" }
  | { type: "cycleMode" }
  | { type: "pasteImage" }
  | { type: "none" };

export function keyAction(input: string, key: Partial<Key>): KeyAction {
  if (key.return) {
    if (key.meta) return { type: "followUp" }; // Alt+Enter (ESC CR) — reliable in tmux
    if (key.shift) return { type: "newline" }; // only where the terminal reports it
    return { type: "submit" };
  }
  if (input === "\n") return { type: "newline" }; // Ctrl+J
  if (key.ctrl) {
    switch (input) {
      case "c":
        return { type: "interrupt" };
      case "d":
        return { type: "eof" };
      case "o":
        return { type: "toggleOutput" };
      case "v":
        return { type: "pasteImage" };
      case "a":
        return { type: "lineStart" };
      case "e":
        return { type: "lineEnd" };
      case "w":
        return { type: "deleteWord" };
      case "u":
        return { type: "deleteToLineStart" };
      case "b":
        return { type: "left" };
      case "f":
        return { type: "right" };
      default:
        return { type: "none" };
    }
  }
  if (key.escape) return { type: "escape" };
  if (key.tab) return key.shift ? { type: "cycleMode" } : { type: "tab" };
  // Most terminals send DEL (0x7f) for Backspace and ink names it `delete`: both erase backwards.
  if (key.backspace || key.delete) return key.meta ? { type: "deleteWord" } : { type: "backspace" };
  if (key.leftArrow) return { type: "left" };
  if (key.rightArrow) return { type: "right" };
  if (key.upArrow) return { type: "up" };
  if (key.downArrow) return { type: "down" };
  if (key.home) return { type: "lineStart" };
  if (key.end) return { type: "lineEnd" };
  if (input === "" || key.meta) return { type: "none" };
  return { type: "insert", text: input };
}

// Control characters other than tab and line breaks.
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

/**
 * ink splits input only at escape sequences, so keys typed faster than a read (or sent by a
 * script, as tmux does) arrive as one string: "\x15\x15" is two Ctrl+U, "hello\r" is text and
 * Enter. Bursts become one action per control key and one insert per run of text. A paste is
 * told apart by the terminal's bracketed-paste markers (paste.ts), never by timing.
 */
export function keyActions(input: string, key: Partial<Key>): KeyAction[] {
  if (input.length <= 1 || !(CONTROL.test(input) || input.includes("\r"))) return [keyAction(input, key)];
  const actions: KeyAction[] = [];
  let text = "";
  const flush = () => {
    if (text) actions.push({ type: "insert", text });
    text = "";
  };
  for (let i = 0; i < input.length; i++) {
    const ch = input[i]!;
    if (ch === "\r") {
      flush();
      if (input[i + 1] === "\n") i++;
      actions.push({ type: "submit" });
      continue;
    }
    if (!CONTROL.test(ch)) {
      text += ch;
      continue;
    }
    flush();
    const code = ch.charCodeAt(0);
    if (ch === "\x7f" || ch === "\b") actions.push({ type: "backspace" });
    else if (code >= 1 && code <= 26) actions.push(keyAction(String.fromCharCode(code + 96), { ctrl: true }));
  }
  flush();
  return actions;
}
