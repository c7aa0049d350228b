// Key bindings in one place: ink's (input, key) pair becomes a named action. Pure, so the
// bindings are unit-tested without a terminal. See ../../README or the report for the table.
import type { Key } from "ink";

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
