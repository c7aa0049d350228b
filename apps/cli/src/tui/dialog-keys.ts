// Keys inside a dialog: a pure step from (dialog, key) to either the moved dialog or its answer.
import type { ApprovalAnswer, ToolApprovalRequest } from "@keel/coding-agent";
import type { Key } from "ink";
import {
  backspace,
  deleteForward,
  type EditorState,
  emptyEditor,
  insert,
  left,
  lineEnd,
  lineStart,
  right,
} from "./editor.js";
import { keyAction } from "./keys.js";
import { filterOptions } from "./pick-filter.js";
import { maxScroll } from "./preview-window.js";
import type { Dialog } from "./store.js";

export interface ApprovalChoice {
  key: string;
  label: string;
  /** Undefined for "tell keel what to do instead": it opens the reason input. */
  answer: ApprovalAnswer | undefined;
}

/**
 * The answers a request offers: "always" only where a rule (or the extension) can keep it, one
 * per offered rule (narrowest first: `a`, then `2`, `3` …). Denying stops the run so the user
 * can steer; `t` denies with words for the model.
 */
export function approvalChoices(request: ToolApprovalRequest): ApprovalChoice[] {
  const rules = request.alwaysRules.map(
    (rule, i): ApprovalChoice => ({
      key: i === 0 ? "a" : String(i + 1),
      label: i === 0 ? "[a] Always allow" : `[${i + 1}] Always: ${rule}`,
      answer: { decision: "allow_always", rule },
    }),
  );
  const extensionAlways: ApprovalChoice[] =
    rules.length === 0 && request.offersAlways === true
      ? [{ key: "a", label: "[a] Always allow", answer: { decision: "allow_always" } }]
      : [];
  return [
    { key: "y", label: "[y] Allow once", answer: { decision: "allow_once" } },
    ...(request.offersExactCall
      ? [{ key: "e", label: "[e] Allow this exact call", answer: { decision: "allow_exact" } } as const]
      : []),
    ...rules,
    ...extensionAlways,
    { key: "n", label: "[n] Deny", answer: { decision: "deny", stopRun: true } },
    { key: "t", label: "[t] Deny, tell keel what to do", answer: undefined },
  ];
}

export type DialogStep =
  | { type: "move"; dialog: Dialog }
  | { type: "answer"; resolve: () => void }
  | { type: "none" };

const clamp = (n: number, size: number) => (size === 0 ? 0 : (n + size) % size);

/** Typing into a one-line text field (line breaks become spaces). */
function editLine(e: EditorState, input: string, key: Partial<Key>): EditorState | undefined {
  const action = keyAction(input, key);
  switch (action.type) {
    case "insert":
      return insert(e, action.text.replace(/[\r\n]+/g, " "));
    case "backspace":
      return backspace(e);
    case "deleteForward":
      return deleteForward(e);
    case "left":
      return left(e);
    case "right":
      return right(e);
    case "lineStart":
      return lineStart(e);
    case "lineEnd":
      return lineEnd(e);
    default:
      return undefined;
  }
}

const PAGE = 10;

function approvalKey(
  dialog: Extract<Dialog, { kind: "approval" }>,
  input: string,
  key: Partial<Key>,
  rows: number | undefined,
): DialogStep {
  const answer = (a: ApprovalAnswer): DialogStep => ({ type: "answer", resolve: () => dialog.answer(a) });
  const move = (patch: Partial<typeof dialog>): DialogStep => ({
    type: "move",
    dialog: { ...dialog, ...patch },
  });
  if (dialog.reason) {
    if (key.escape) return move({ reason: undefined });
    if (key.return) {
      const said = dialog.reason.text.trim();
      // Alt+Enter: deny with the words and let the model go on; Enter: deny and stop.
      return answer({
        decision: "deny",
        ...(said ? { reason: said } : {}),
        ...(key.meta ? {} : { stopRun: true }),
      });
    }
    if (key.ctrl && input === "c") return answer({ decision: "deny", stopRun: true });
    const edited = editLine(dialog.reason, input, key);
    return edited ? move({ reason: edited }) : { type: "none" };
  }
  const choices = approvalChoices(dialog.request);
  const pick = (choice: ApprovalChoice): DialogStep =>
    choice.answer ? answer(choice.answer) : move({ reason: emptyEditor });
  const chosen = choices.find((c) => c.key === input.toLowerCase() && !key.ctrl);
  if (chosen) return pick(chosen);
  if (key.escape || (key.ctrl && input === "c")) return answer({ decision: "deny", stopRun: true });
  if (key.return) return pick(choices[dialog.selected]!);
  if (key.leftArrow || (key.tab && key.shift))
    return move({ selected: clamp(dialog.selected - 1, choices.length) });
  if (key.rightArrow || key.tab) return move({ selected: clamp(dialog.selected + 1, choices.length) });
  // Bounded by what is left to show, so ↑ after going past the end moves at once.
  const scrollTo = (to: number) =>
    move({ scroll: Math.min(Math.max(0, to), maxScroll(dialog.request, rows)) });
  if (key.upArrow) return scrollTo(dialog.scroll - 1);
  if (key.downArrow) return scrollTo(dialog.scroll + 1);
  if (key.pageUp) return scrollTo(dialog.scroll - PAGE);
  if (key.pageDown) return scrollTo(dialog.scroll + PAGE);
  return { type: "none" };
}

/** A picker: typing narrows it (Backspace edits, Esc clears, then cancels); arrows move in what it shows. */
function selectKey(
  dialog: Extract<Dialog, { kind: "select" }>,
  input: string,
  key: Partial<Key>,
): DialogStep {
  const shown = filterOptions(dialog.options, dialog.filter);
  const at = shown.indexOf(dialog.selected);
  const move = (position: number): DialogStep => ({
    type: "move",
    dialog: { ...dialog, selected: shown[position] ?? dialog.selected },
  });
  // A new filter selects its best match; cleared, the selection stays where it was.
  const refilter = (filter: string): DialogStep => {
    const matches = filterOptions(dialog.options, filter);
    const selected = filter === "" ? dialog.selected : (matches[0] ?? dialog.selected);
    return { type: "move", dialog: { ...dialog, filter, selected } };
  };
  if (key.ctrl && input === "c") return { type: "answer", resolve: () => dialog.answer(undefined) };
  if (key.escape)
    return dialog.filter ? refilter("") : { type: "answer", resolve: () => dialog.answer(undefined) };
  if (key.return)
    return at === -1 ? { type: "none" } : { type: "answer", resolve: () => dialog.answer(dialog.selected) };
  const size = shown.length;
  if (key.upArrow) return move(clamp(at - 1, size));
  if (key.downArrow) return move(clamp(at + 1, size));
  if (key.pageUp) return move(Math.max(0, at - PAGE));
  if (key.pageDown) return move(Math.min(size - 1, at + PAGE));
  const action = keyAction(input, key);
  switch (action.type) {
    case "insert":
      return refilter(dialog.filter + action.text.replace(/[\r\n]+/g, " "));
    case "backspace":
      return refilter(dialog.filter.slice(0, -1));
    case "deleteWord":
      return refilter(dialog.filter.replace(/\S*\s*$/, ""));
    case "deleteToLineStart":
      return refilter("");
    default:
      return { type: "none" };
  }
}

/** `rows`: the terminal's height, which bounds how far a preview scrolls. */
export function dialogKey(
  dialog: Dialog,
  input: string,
  key: Partial<Key>,
  rows: number | undefined = process.stdout.rows,
): DialogStep {
  const move = (selected: number): DialogStep => ({
    type: "move",
    dialog: { ...dialog, selected } as Dialog,
  });
  const answer = (resolve: () => void): DialogStep => ({ type: "answer", resolve });
  const back = key.upArrow || key.leftArrow || (key.tab && key.shift);
  const forward = key.downArrow || key.rightArrow || (key.tab && !key.shift);
  switch (dialog.kind) {
    case "approval":
      return approvalKey(dialog, input, key, rows);
    case "confirm": {
      if (input.toLowerCase() === "y") return answer(() => dialog.answer(true));
      if (input.toLowerCase() === "n") return answer(() => dialog.answer(false));
      if (key.escape || (key.ctrl && input === "c")) return answer(() => dialog.answer(undefined));
      if (key.return) return answer(() => dialog.answer(dialog.selected === 0));
      if (back || forward) return move(dialog.selected === 0 ? 1 : 0);
      return { type: "none" };
    }
    case "select":
      return selectKey(dialog, input, key);
    case "input": {
      if (key.escape || (key.ctrl && input === "c")) return answer(() => dialog.answer(undefined));
      if (key.return) return answer(() => dialog.answer(dialog.editor.text));
      const editor = editLine(dialog.editor, input, key);
      return editor ? { type: "move", dialog: { ...dialog, editor } } : { type: "none" };
    }
  }
}
