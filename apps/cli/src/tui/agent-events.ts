// The agent's events as the TUI shows them: the running flag, the queue of steering and
// follow-ups, status and widgets, unsent messages back into the prompt, the status line
// refreshed, and every event applied to the transcript.
import type { Message } from "@keel/ai";
import type { CodingAgent, CodingAgentEvent } from "@keel/coding-agent";
import { editorWith } from "./editor.js";
import type { UiStore } from "./store.js";

export interface ShownAgent {
  store: UiStore;
  /** The agent in front now. */
  agent: CodingAgent | undefined;
  /** Re-reads model, thinking, mode, usage and context into the status line. */
  refresh(): void;
}

/** A user message the run delivered leaves the queue shown under the prompt. */
function dequeue(store: UiStore, message: Message): void {
  const text = typeof message.content === "string" ? message.content : "";
  const index = store.queued.findIndex((q) => q.text === text);
  if (index !== -1) store.queued = store.queued.filter((_, i) => i !== index);
}

export function showAgentEvent(target: ShownAgent, event: CodingAgentEvent): void {
  const { store } = target;
  switch (event.type) {
    case "run_start":
      // Also runs nobody typed: a hook that keeps the agent going, a finished background agent.
      store.running = true;
      break;
    case "message_end":
      if (event.message.role === "assistant") target.refresh();
      else if (event.message.role === "user") dequeue(store, event.message);
      break;
    case "agent_event":
      // A child agent's usage is part of the session's totals (agent.usage()), so of the status line's.
      if (event.event.type === "message_end" && event.event.message.role === "assistant") target.refresh();
      break;
    case "turn_end":
      target.refresh();
      break;
    case "run_end":
      store.running = false;
      store.queued = [];
      store.dismissDialogs("approvals");
      target.refresh();
      if (event.summary.unsent.length > 0) {
        // Messages the run never delivered go back to the prompt rather than vanish.
        const before = store.editor.text ? `${store.editor.text}\n` : "";
        store.editor = editorWith(before + event.summary.unsent.join("\n"));
        store.transcript.note(
          "dim",
          event.summary.promptWithdrawn
            ? "The model never answered, so the prompt is out of the conversation again and back in the input."
            : "Queued messages were not sent; they are back in the prompt.",
        );
      }
      break;
    case "status":
      if (event.text === undefined) store.statuses.delete(event.key);
      else store.statuses.set(event.key, event.text);
      break;
    case "widget":
      if (event.lines === undefined) store.widgets.delete(event.key);
      else store.widgets.set(event.key, event.lines);
      break;
    default:
      break;
  }
  if (event.type === "message_start" && event.message.role === "assistant")
    store.transcript.notesInThinking = target.agent?.model().thinking?.notesInThinking === true;
  if (event.type === "debug" && !store.showDebug) return;
  const change = store.transcript.apply(event);
  store.changed(event.type === "status" || event.type === "widget" ? "structural" : change);
}
