// The model's side of the tmux e2e: a streamed answer, then a todo list, an approved Bash call and
// the list updated, then a closing answer. Shared by the test and manual runs.
import type { Scenario } from "@keel/testing";

export const MARKER = "marker.txt";

const todos = (first: string, second: string) => ({
  todos: [
    { id: "1", content: "Create the marker file", status: first },
    { id: "2", content: "Report back", status: second },
  ],
});

export const scenario: Scenario = {
  turns: [
    {
      text: "Hello from **keel**.\n\nHere is `inline code` and a list:\n\n- first item\n- second item\n",
      chunkSize: 6,
      delayMs: 4,
    },
    {
      thinking: "The user wants a marker file; plan it first.",
      toolCalls: [{ name: "UpdateTodos", arguments: todos("in_progress", "pending") }],
    },
    { toolCalls: [{ name: "Bash", arguments: { command: `touch ${MARKER} && echo made-the-marker` } }] },
    { toolCalls: [{ name: "UpdateTodos", arguments: todos("completed", "in_progress") }] },
    { text: "The marker exists now. All done.", chunkSize: 8, delayMs: 2 },
  ],
};
