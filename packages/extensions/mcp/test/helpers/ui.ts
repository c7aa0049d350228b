// A host UI for kernel tests that records what it was asked and answers from a script.
import type { CodingAgentOptions } from "@keel/coding-agent";

type HostUI = NonNullable<CodingAgentOptions["ui"]>;

export interface ScriptedUi {
  ui: HostUI;
  asked: { kind: string; title: string; detail?: string }[];
  notes: string[];
}

export function scriptedUi(answers: {
  input?: (title: string) => string;
  select?: (title: string, options: string[]) => string;
  confirm?: (title: string, message?: string) => boolean;
  approve?: (title: string) => boolean;
}): ScriptedUi {
  const asked: ScriptedUi["asked"] = [];
  const notes: string[] = [];
  const ui: HostUI = {
    supports: { status: true, widget: true, notify: true, confirm: true, select: true, input: true },
    setStatus: () => {},
    setWidget: () => {},
    notify: (message) => notes.push(message),
    input: async (title, placeholder) => {
      asked.push({ kind: "input", title, ...(placeholder ? { detail: placeholder } : {}) });
      return { status: "ok", value: answers.input?.(title) ?? "" };
    },
    select: async (title, options) => {
      asked.push({ kind: "select", title, detail: options.join(" | ") });
      return { status: "ok", value: answers.select?.(title, options) ?? options[0]! };
    },
    confirm: async (title, message) => {
      asked.push({ kind: "confirm", title, ...(message ? { detail: message } : {}) });
      return { status: "ok", value: answers.confirm?.(title, message) ?? false };
    },
    approve: async (request) => {
      const title = request.title ?? request.toolName;
      asked.push({ kind: "approve", title, detail: request.reason });
      return answers.approve?.(title) ? { decision: "allow_once" } : { decision: "deny", reason: "no" };
    },
  };
  return { ui, asked, notes };
}
