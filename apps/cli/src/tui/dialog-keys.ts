// Keys inside a dialog: a pure step from (dialog, key) to either the moved dialog or its answer.
import type { ApprovalAnswer, ToolApprovalRequest } from "@keel/coding-agent";
import type { Key } from "ink";
import { backspace, deleteForward, insert, left, lineEnd, lineStart, right } from "./editor.js";
import { keyAction } from "./keys.js";
import type { Dialog } from "./store.js";

export interface ApprovalChoice {
  key: string;
  label: string;
  answer: ApprovalAnswer;
}

/** The answers a request offers: "always" only where a rule (or the extension) can keep it. */
export function approvalChoices(request: ToolApprovalRequest): ApprovalChoice[] {
  const always = request.alwaysRules.length > 0 || request.offersAlways === true;
  return [
    { key: "y", label: "[y] Allow once", answer: { decision: "allow_once" } },
    ...(request.offersExactCall
      ? [{ key: "e", label: "[e] Allow this exact call", answer: { decision: "allow_exact" } } as const]
      : []),
    ...(always
      ? [{ key: "a", label: "[a] Always allow", answer: { decision: "allow_always" } } as const]
      : []),
    { key: "n", label: "[n] Deny", answer: { decision: "deny" } },
  ];
}

export type DialogStep =
  | { type: "move"; dialog: Dialog }
  | { type: "answer"; resolve: () => void }
  | { type: "none" };

const clamp = (n: number, size: number) => (size === 0 ? 0 : (n + size) % size);

export function dialogKey(dialog: Dialog, input: string, key: Partial<Key>): DialogStep {
  const move = (selected: number): DialogStep => ({
    type: "move",
    dialog: { ...dialog, selected } as Dialog,
  });
  const answer = (resolve: () => void): DialogStep => ({ type: "answer", resolve });
  const back = key.upArrow || key.leftArrow || (key.tab && key.shift);
  const forward = key.downArrow || key.rightArrow || (key.tab && !key.shift);
  switch (dialog.kind) {
    case "approval": {
      const choices = approvalChoices(dialog.request);
      const chosen = choices.find((c) => c.key === input.toLowerCase() && !key.ctrl);
      if (chosen) return answer(() => dialog.answer(chosen.answer));
      if (key.escape || (key.ctrl && input === "c")) return answer(() => dialog.answer({ decision: "deny" }));
      if (key.return) return answer(() => dialog.answer(choices[dialog.selected]!.answer));
      if (back) return move(clamp(dialog.selected - 1, choices.length));
      if (forward) return move(clamp(dialog.selected + 1, choices.length));
      return { type: "none" };
    }
    case "confirm": {
      if (input.toLowerCase() === "y") return answer(() => dialog.answer(true));
      if (input.toLowerCase() === "n") return answer(() => dialog.answer(false));
      if (key.escape || (key.ctrl && input === "c")) return answer(() => dialog.answer(undefined));
      if (key.return) return answer(() => dialog.answer(dialog.selected === 0));
      if (back || forward) return move(dialog.selected === 0 ? 1 : 0);
      return { type: "none" };
    }
    case "select": {
      const size = dialog.options.length;
      if (key.escape || (key.ctrl && input === "c")) return answer(() => dialog.answer(undefined));
      if (key.return) return answer(() => dialog.answer(size > 0 ? dialog.selected : undefined));
      if (key.upArrow) return move(clamp(dialog.selected - 1, size));
      if (key.downArrow) return move(clamp(dialog.selected + 1, size));
      if (key.pageUp) return move(Math.max(0, dialog.selected - 10));
      if (key.pageDown) return move(Math.min(size - 1, dialog.selected + 10));
      return { type: "none" };
    }
    case "input": {
      if (key.escape || (key.ctrl && input === "c")) return answer(() => dialog.answer(undefined));
      if (key.return) return answer(() => dialog.answer(dialog.editor.text));
      const action = keyAction(input, key);
      const e = dialog.editor;
      const editor =
        action.type === "insert"
          ? insert(e, action.text.replace(/\n/g, " "))
          : action.type === "backspace"
            ? backspace(e)
            : action.type === "deleteForward"
              ? deleteForward(e)
              : action.type === "left"
                ? left(e)
                : action.type === "right"
                  ? right(e)
                  : action.type === "lineStart"
                    ? lineStart(e)
                    : action.type === "lineEnd"
                      ? lineEnd(e)
                      : undefined;
      return editor ? { type: "move", dialog: { ...dialog, editor } } : { type: "none" };
    }
  }
}
