// Key bindings in one place: ink's (input, key) pair becomes a named action. Pure, so the
// bindings are unit-tested without a terminal. KEY_HELP is the table users see in /help.
import type { Key } from "ink";

export const KEY_HELP = [
  "Keys:",
  "  Enter            send (while the agent works: steer it)",
  "  Alt+Enter        queue a follow-up for when the agent finishes",
  "  \\ then Enter     new line (also Ctrl+J, or Shift+Enter where the terminal reports it)",
  "  Up / Down        history (inside a multi-line prompt: move between lines)",
  "  Tab              complete a /command",
  "  Esc              interrupt the run",
  "  Ctrl+C           interrupt the run / clear the prompt; twice within 2 s: exit",
  "  Ctrl+D           exit (on an empty prompt)",
  "  Ctrl+O           show / hide the last tool's full output",
  "  Ctrl+A / Ctrl+E  line start / end;  Ctrl+W delete word;  Ctrl+U delete to line start",
  "  Approvals        y allow once · a always allow · n deny (or arrows + Enter; Esc denies)",
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
  if (key.tab) return key.shift ? { type: "none" } : { type: "tab" };
  // Most terminals send DEL (0x7f) for Backspace and ink names it `delete`: both erase backwards.
  if (key.backspace || key.delete) return key.meta ? { type: "deleteWord" } : { type: "backspace" };
  if (key.leftArrow) return { type: "left" };
  if (key.rightArrow) return { type: "right" };
  if (key.upArrow) return { type: "up" };
  if (key.downArrow) return { type: "down" };
  if (key.home) return { type: "lineStart" };
  if (key.end) return { type: "lineEnd" };
  if (input === "" || key.meta) return { type: "none" };
  // A paste (or a fast burst) arrives as one string; its line breaks are text, never a submit.
  return { type: "insert", text: input.replace(/\r\n?/g, "\n") };
}

// Control characters other than tab and line breaks.
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

/**
 * ink splits input only at escape sequences, so keys typed faster than a read (or sent by a
 * script) arrive as one string: "\x15\x15" is two Ctrl+U, not text. Bursts become one action per
 * control key and one insert per run of text; line breaks stay text, as in a paste.
 */
export function keyActions(input: string, key: Partial<Key>): KeyAction[] {
  if (input.length <= 1 || !CONTROL.test(input)) return [keyAction(input, key)];
  const actions: KeyAction[] = [];
  let text = "";
  const flush = () => {
    if (text) actions.push({ type: "insert", text: text.replace(/\r\n?/g, "\n") });
    text = "";
  };
  for (const ch of input) {
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
