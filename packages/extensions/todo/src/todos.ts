// The todo list as data: its schema, the rules a new list must satisfy, and the two ways it is
// shown (the checklist widget/command and the one-line reminder for the model). Pure functions.
import { type Static, Type } from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";

export const MAX_TODOS = 20;

export const TodoStatusSchema = Type.Union([
  Type.Literal("pending"),
  Type.Literal("in_progress"),
  Type.Literal("completed"),
]);

export const TodoSchema = Type.Object({
  id: Type.String({ minLength: 1, description: 'Stable id, e.g. "1".' }),
  content: Type.String({ minLength: 1, description: "What to do, imperative and short." }),
  status: TodoStatusSchema,
});

export const TodoStateSchema = Type.Object({ todos: Type.Array(TodoSchema) });

export type TodoStatus = Static<typeof TodoStatusSchema>;
export type Todo = Static<typeof TodoSchema>;
export type TodoState = Static<typeof TodoStateSchema>;

export type InvalidTodos = { type: "invalid_todos"; problems: string[] };

/** Checks the rules the schema cannot state; every problem is listed so one retry can fix all. */
export function validateTodos(todos: readonly Todo[]): Result<Todo[], InvalidTodos> {
  const problems: string[] = [];
  if (todos.length > MAX_TODOS)
    problems.push(`${todos.length} items: at most ${MAX_TODOS}; merge or drop finished ones.`);
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const todo of todos) {
    if (seen.has(todo.id)) duplicates.add(todo.id);
    seen.add(todo.id);
    if (todo.content.trim() === "") problems.push(`item "${todo.id}" has empty content.`);
  }
  if (duplicates.size > 0)
    problems.push(`duplicate ids ${[...duplicates].map((id) => `"${id}"`).join(", ")}: ids must be unique.`);
  const inProgress = todos.filter((t) => t.status === "in_progress");
  if (inProgress.length > 1)
    problems.push(
      `${inProgress.length} items in_progress (${inProgress.map((t) => `"${t.id}"`).join(", ")}): at most one; ` +
        "mark the others pending or completed.",
    );
  if (problems.length > 0) return err({ type: "invalid_todos", problems });
  return ok(todos.map((t) => ({ id: t.id, content: t.content.trim(), status: t.status })));
}

const GLYPH: Record<TodoStatus, string> = { completed: "✓", in_progress: "▶", pending: "○" };

/** One line per item, numbered by position: "✓ 1. Write the spec". */
export function checklistLines(todos: readonly Todo[]): string[] {
  return todos.map((t, i) => `${GLYPH[t.status]} ${i + 1}. ${t.content}`);
}

const REMINDER_ITEM_CHARS = 80;

/** The per-request reminder: open items only, kept short; undefined when nothing is open. */
export function openTodosReminder(todos: readonly Todo[]): string | undefined {
  const open = todos
    .map((t, i) => ({ t, n: i + 1 }))
    .filter(({ t }) => t.status !== "completed")
    .map(({ t, n }) => `${GLYPH[t.status]} ${n}. ${clip(t.content, REMINDER_ITEM_CHARS)}`);
  return open.length > 0 ? `Open todos: ${open.join(" ")}` : undefined;
}

/** "2/5 done, 1 in progress" — the tool result the model reads. */
export function progressSummary(todos: readonly Todo[]): string {
  if (todos.length === 0) return "Todo list cleared.";
  const done = todos.filter((t) => t.status === "completed").length;
  const active = todos.filter((t) => t.status === "in_progress").length;
  return `Todos updated: ${done}/${todos.length} done${active > 0 ? ", 1 in progress" : ""}.`;
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ");
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
