// Routes every key: a bracketed paste into the prompt (or an image paste into an attachment), the
// open dialog if there is one, otherwise the prompt editor, the /command or @file menu, the
// history, or the controller (submit, steer, follow-up, mode, abort, exit).
import type { Key } from "ink";
import { clipboardImage, imageFile } from "./clipboard.js";
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
import { completeMention, mentionAt, rankPaths } from "./mention.js";
import { pastedImagePath } from "./paste.js";

function refreshCompletions(c: Controller): void {
  const { store } = c;
  const mention = mentionAt(store.editor);
  if (mention) {
    const paths = c.files.current(() => {
      // The index landed after the key: show what it found for what is typed now.
      if (mentionAt(store.editor)) {
        refreshCompletions(c);
        store.publish();
      }
    });
    const fromExtensions = c.mentions.current(mention.query, () => {
      if (mentionAt(store.editor)) {
        refreshCompletions(c);
        store.publish();
      }
    });
    store.completionKind = "file";
    store.completions = [
      ...fromExtensions,
      ...rankPaths(paths, mention.query).map((path) => ({ name: path, description: "" })),
    ];
  } else {
    store.completionKind = "command";
    store.completions = matchingCommands(store.editor.text, c.commands);
  }
  if (store.completionIndex >= store.completions.length) store.completionIndex = 0;
}

function send(c: Controller, kind: "steer" | "followUp"): void {
  const { store } = c;
  // Enter on an open /command menu runs the highlighted command rather than a half-typed name.
  const chosen = store.completionKind === "command" ? store.completions[store.completionIndex] : undefined;
  let text = store.editor.text;
  if (chosen && !c.commands.some((cmd) => `/${cmd.name}` === text.trim())) text = `/${chosen.name}`;
  store.history = remember(store.history, text);
  store.editor = emptyEditor;
  store.completions = [];
  store.completionIndex = 0;
  store.publish();
  c.submit(text, kind);
}

/** Tab (or Enter on the @file menu): the chosen path replaces the mention being typed. */
function completeFile(c: Controller): boolean {
  const { store } = c;
  const mention = mentionAt(store.editor);
  const chosen = store.completions[store.completionIndex];
  if (store.completionKind !== "file" || !mention || !chosen) return false;
  store.editor = completeMention(store.editor, mention, chosen.name);
  store.completionIndex = 0;
  return true;
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

/** A paste (whole, from ink): its text into the prompt, or, when it names an image file, the image. */
export function handlePaste(c: Controller, pastedText: string): void {
  const { store } = c;
  const text = pastedText.replace(/\r\n?/g, "\n");
  const path = pastedImagePath(text);
  const image = path ? imageFile(path, c.options.cwd, c.kernel.sniffImageMimeType) : undefined;
  const dialog = store.dialogs[0];
  if (dialog) {
    // Only a text field (or a picker's filter) takes a paste: pasted letters must never answer an approval.
    const typing =
      dialog.kind === "input" ||
      dialog.kind === "select" ||
      (dialog.kind === "approval" && dialog.reason !== undefined);
    if (!typing) return;
    const step = dialogKey(dialog, text, {});
    if (step.type === "move") store.updateDialog(step.dialog);
    return;
  }
  if (image) attachImage(c, image);
  else store.editor = insert(store.editor, text);
  refreshCompletions(c);
  store.publish();
}

function attachImage(c: Controller, image: NonNullable<ReturnType<typeof imageFile>>): void {
  const { store } = c;
  const marker = `[Image #${store.images.length + 1}]`;
  store.images = [...store.images, { marker, image }];
  store.editor = insert(store.editor, `${marker} `);
}

export function handleKey(c: Controller, input: string, key: Key): void {
  const { store } = c;
  const dialog = store.dialogs[0];
  if (dialog) {
    const moved = dialogKey(dialog, input, key);
    if (moved.type === "move") store.updateDialog(moved.dialog);
    else if (moved.type === "answer") moved.resolve();
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
    case "cycleMode":
      c.cycleMode();
      return;
    case "pasteImage": {
      const image = clipboardImage(c.kernel.sniffImageMimeType);
      if (image.isOk()) attachImage(c, image.value);
      else c.flash(image.error.message);
      break;
    }
    case "submit":
      if (completeFile(c)) break;
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
      if (completeFile(c)) break;
      if (store.completionKind !== "command") break;
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
