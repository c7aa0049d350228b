// The todo extension: UpdateTodos replaces the list kept in session state (so rewinds and forks
// carry it), beforeModelCall reminds the model of open items, and a widget shows the checklist.
import { defineExtension, type ExtensionRuntime, Type, textResult } from "@keel/extension-sdk";
import {
  checklistLines,
  MAX_TODOS,
  openTodosReminder,
  progressSummary,
  TodoSchema,
  type TodoState,
  TodoStateSchema,
  validateTodos,
} from "./todos.js";

export const TODO_WIDGET = "todos";

type TodoRuntime = Pick<ExtensionRuntime<unknown, TodoState>, "state" | "ui">;

/** Shows the current list, or removes the widget when the list is empty. */
function refreshWidget(runtime: TodoRuntime): void {
  const { todos } = runtime.state.get();
  runtime.ui.setWidget(TODO_WIDGET, todos.length > 0 ? checklistLines(todos) : undefined);
}

export const todoExtension = defineExtension({
  id: "todo",
  description: "A todo list the model keeps for multi-step work, with a checklist widget.",
  sessionState: { schema: TodoStateSchema, default: { todos: [] } },
  tools: (tool) => [
    tool({
      name: "UpdateTodos",
      label: "Todos",
      description:
        "Replace the whole todo list. Use it for multi-step tasks: keep exactly one item in_progress " +
        "while working and mark items completed as soon as they are done.",
      parameters: Type.Object({
        todos: Type.Array(TodoSchema, {
          description: `The complete new list (replaces the old one), at most ${MAX_TODOS} items.`,
        }),
      }),
      // One list, full replacement: two updates in one batch must apply in call order.
      executionMode: "sequential",
      // The list lives in session state: nothing outside the session changes.
      access: "none",
      summary: (args) => `${args.todos.length} items`,
      async execute(args, _ctx, runtime) {
        const checked = validateTodos(args.todos);
        if (checked.isErr())
          return textResult(
            `Todo list not changed: ${checked.error.problems.join(" ")}`,
            checked.error,
            true,
          );
        runtime.state.set({ todos: checked.value });
        refreshWidget(runtime);
        return textResult(progressSummary(checked.value), { todos: checked.value });
      },
    }),
  ],
  hooks: {
    sessionStart: (_event, runtime) => refreshWidget(runtime),
    // The head may have moved (rewind, branch) since the widget was drawn; state is the truth.
    runStart: (_event, runtime) => refreshWidget(runtime),
    beforeModelCall: (_event, runtime) => {
      const context = openTodosReminder(runtime.state.get().todos);
      return context === undefined ? undefined : { context };
    },
  },
  commands: [
    {
      name: "todos",
      description: "Show the todo list",
      run: (_args, runtime) => {
        const { todos } = runtime.state.get();
        return { message: todos.length > 0 ? checklistLines(todos).join("\n") : "No todos." };
      },
    },
  ],
});
