// Routes every key: to the open dialog if there is one, otherwise to the prompt editor, the
// completion menu, the history, or the controller (submit, steer, follow-up, abort, exit).
import type { Key } from "ink";
import { completeCommand, matchingCommands } from "./completion.js";
import type { Controller } from "./controller.js";
import { dialogKey } from "./dialog-keys.js";
import {
  backspace,
  browse,
  continuesLine,
  deleteForward,
  deleteToLineStart,
  deleteWordBefore,
  editorWith,
  emptyEditor,
  insert,
  left,
  lineEnd,
  lineStart,
  remember,
  replaceTrailingBackslash,
  right,
  verticalMove,
} from "./editor.js";
import { type KeyAction, keyActions } from "./keys.js";

function refreshCompletions(c: Controller): void {
  const { store } = c;
  store.completions = matchingCommands(store.editor.text, c.commands);
  if (store.completionIndex >= store.completions.length) store.completionIndex = 0;
}

function send(c: Controller, kind: "steer" | "followUp"): void {
  const { store } = c;
  // Enter on an open menu runs the highlighted command rather than a half-typed name.
  const chosen = store.completions[store.completionIndex];
  let text = store.editor.text;
  if (chosen && !c.commands.some((cmd) => `/${cmd.name}` === text.trim())) text = `/${chosen.name}`;
  store.history = remember(store.history, text);
  store.editor = emptyEditor;
  store.completions = [];
  store.completionIndex = 0;
  store.publish();
  c.submit(text, kind);
}

function vertical(c: Controller, direction: -1 | 1): void {
  const { store } = c;
  if (store.completions.length > 0) {
    const size = store.completions.length;
    store.completionIndex = (store.completionIndex + direction + size) % size;
    return;
  }
  const moved = verticalMove(store.editor, direction);
  if (moved) {
    store.editor = moved;
    return;
  }
  const browsed = browse(store.history, store.editor.text, direction);
  if (browsed) {
    store.history = browsed.history;
    store.editor = editorWith(browsed.text);
  }
}

export function handleKey(c: Controller, input: string, key: Key): void {
  const { store } = c;
  const dialog = store.dialogs[0];
  if (dialog) {
    const step = dialogKey(dialog, input, key);
    if (step.type === "move") store.updateDialog(step.dialog);
    else if (step.type === "answer") step.resolve();
    if (key.ctrl && input === "c" && store.running) c.interrupt();
    return;
  }
  for (const action of keyActions(input, key)) apply(c, action);
}

function apply(c: Controller, action: KeyAction): void {
  const { store } = c;
  const e = store.editor;
  switch (action.type) {
    case "interrupt":
      c.interrupt();
      return;
    case "escape":
      if (store.completions.length === 0) c.escape();
      else {
        store.completions = [];
        store.publish();
      }
      return;
    case "eof":
      if (!e.text) {
        c.exit(0);
        return;
      }
      store.editor = deleteForward(e);
      break;
    case "toggleOutput":
      store.outputExpanded = !store.outputExpanded;
      break;
    case "submit":
      if (continuesLine(e)) store.editor = replaceTrailingBackslash(e);
      else if (e.text.trim()) {
        send(c, "steer");
        return;
      }
      break;
    case "followUp":
      if (e.text.trim()) {
        send(c, "followUp");
        return;
      }
      break;
    case "newline":
      store.editor = insert(e, "\n");
      break;
    case "insert":
      store.editor = insert(e, action.text);
      break;
    case "tab": {
      const completed = completeCommand(e.text, store.completions, store.completionIndex);
      if (completed !== undefined) store.editor = editorWith(completed);
      break;
    }
    case "backspace":
      store.editor = backspace(e);
      break;
    case "deleteForward":
      store.editor = deleteForward(e);
      break;
    case "left":
      store.editor = left(e);
      break;
    case "right":
      store.editor = right(e);
      break;
    case "lineStart":
      store.editor = lineStart(e);
      break;
    case "lineEnd":
      store.editor = lineEnd(e);
      break;
    case "deleteWord":
      store.editor = deleteWordBefore(e);
      break;
    case "deleteToLineStart":
      store.editor = deleteToLineStart(e);
      break;
    case "up":
      vertical(c, -1);
      break;
    case "down":
      vertical(c, 1);
      break;
    case "none":
      return;
  }
  if (action.type !== "up" && action.type !== "down") refreshCompletions(c);
  store.publish();
}
