// Unit tests of the todo extension against an in-memory runtime: validation, full replacement,
// the reminder text, the widget and the /todos command.
import { listTools } from "@keel/extension-sdk";
import { describe, expect, it } from "vitest";
import todoDefault, { type Todo, type TodoState, todoExtension } from "../src/index.js";
import { fakeRuntime, hookContext, toolContext } from "./fake-runtime.js";

const updateTodos = listTools(todoExtension).find((t) => t.name === "UpdateTodos")!;

function setup(todos: Todo[] = []) {
  return fakeRuntime<TodoState>({ todos });
}

async function update(runtime: ReturnType<typeof setup>, todos: Todo[]) {
  const result = await updateTodos.execute({ todos }, toolContext(), runtime);
  const first = result.content[0];
  return { ...result, text: first?.type === "text" ? first.text : "" };
}

const plan: Todo[] = [
  { id: "1", content: "Read the spec", status: "completed" },
  { id: "2", content: "Write the parser", status: "in_progress" },
  { id: "3", content: "Add tests", status: "pending" },
];

describe("UpdateTodos", () => {
  it("is exported as default and as todoExtension, with one resident tool", () => {
    expect(todoDefault).toBe(todoExtension);
    expect(listTools(todoExtension).map((t) => t.name)).toEqual(["UpdateTodos"]);
    expect(updateTodos.description.length).toBeLessThan(200);
  });

  it("replaces the whole list and reports progress", async () => {
    const runtime = setup([{ id: "old", content: "Old item", status: "pending" }]);
    const result = await update(runtime, plan);
    expect(result.isError).toBeUndefined();
    expect(result.text).toBe("Todos updated: 1/3 done, 1 in progress.");
    expect(runtime.state.get().todos).toEqual(plan);

    await update(runtime, [{ id: "9", content: "Only this", status: "pending" }]);
    expect(runtime.state.get().todos).toEqual([{ id: "9", content: "Only this", status: "pending" }]);
  });

  it("rejects more than one in_progress item and leaves the state unchanged", async () => {
    const runtime = setup(plan);
    const result = await update(runtime, [
      { id: "1", content: "A", status: "in_progress" },
      { id: "2", content: "B", status: "in_progress" },
    ]);
    expect(result.isError).toBe(true);
    expect(result.text).toContain("Todo list not changed");
    expect(result.text).toContain('2 items in_progress ("1", "2")');
    expect(runtime.state.get().todos).toEqual(plan);
    expect(runtime.history).toEqual([]);
    expect(runtime.uiCalls).toEqual([]);
  });

  it("rejects duplicate ids and more than 20 items, naming every problem", async () => {
    const runtime = setup();
    const many: Todo[] = Array.from({ length: 21 }, (_, i) => ({
      id: i < 2 ? "dup" : String(i),
      content: `Step ${i}`,
      status: "pending",
    }));
    const result = await update(runtime, many);
    expect(result.isError).toBe(true);
    expect(result.text).toContain("21 items: at most 20");
    expect(result.text).toContain('duplicate ids "dup"');
    expect(result.details).toEqual({ type: "invalid_todos", problems: expect.any(Array) });
    expect(runtime.state.get().todos).toEqual([]);
  });

  it("rejects blank content", async () => {
    const runtime = setup();
    const result = await update(runtime, [{ id: "a", content: "   ", status: "pending" }]);
    expect(result.isError).toBe(true);
    expect(result.text).toContain('item "a" has empty content');
  });

  it("accepts exactly 20 items and an empty list", async () => {
    const runtime = setup(plan);
    const twenty: Todo[] = Array.from({ length: 20 }, (_, i) => ({
      id: String(i),
      content: `Step ${i}`,
      status: "pending",
    }));
    expect((await update(runtime, twenty)).isError).toBeUndefined();
    expect(runtime.state.get().todos).toHaveLength(20);
    const cleared = await update(runtime, []);
    expect(cleared.text).toBe("Todo list cleared.");
    expect(runtime.state.get().todos).toEqual([]);
  });
});

describe("reminder", () => {
  const remind = async (todos: Todo[]) =>
    todoExtension.hooks?.beforeModelCall?.({ turn: 1 }, setup(todos), hookContext);

  it("lists open items only, with their position and glyph", async () => {
    await expect(remind(plan)).resolves.toEqual({
      context: "Open todos: ▶ 2. Write the parser ○ 3. Add tests",
    });
  });

  it("says nothing when the list is empty or everything is done", async () => {
    await expect(remind([])).resolves.toBeUndefined();
    await expect(remind(plan.map((t) => ({ ...t, status: "completed" as const })))).resolves.toBeUndefined();
  });

  it("stays short: long items are clipped to one line", async () => {
    const long = `${"word ".repeat(40)}\nsecond line`;
    const result = await remind([{ id: "1", content: long, status: "pending" }]);
    const context = (result as { context: string }).context;
    expect(context).not.toContain("\n");
    expect(context.length).toBeLessThanOrEqual("Open todos: ○ 1. ".length + 80);
    expect(context.endsWith("…")).toBe(true);
  });
});

describe("widget and command", () => {
  it("draws the checklist after each update and removes it when the list is cleared", async () => {
    const runtime = setup();
    await update(runtime, plan);
    await update(runtime, []);
    expect(runtime.uiCalls).toEqual([
      {
        method: "setWidget",
        key: "todos",
        value: ["✓ 1. Read the spec", "▶ 2. Write the parser", "○ 3. Add tests"],
      },
      { method: "setWidget", key: "todos", value: undefined },
    ]);
  });

  it("draws the stored list at session start, so a resumed session shows it", async () => {
    const runtime = setup(plan);
    await todoExtension.hooks?.sessionStart?.({ reason: "resume", sessionId: "s1" }, runtime, hookContext);
    expect(runtime.uiCalls).toEqual([
      {
        method: "setWidget",
        key: "todos",
        value: ["✓ 1. Read the spec", "▶ 2. Write the parser", "○ 3. Add tests"],
      },
    ]);
  });

  it("/todos returns the checklist as its message", async () => {
    const command = todoExtension.commands?.find((c) => c.name === "todos");
    expect(await command?.run("", setup(plan), hookContext)).toEqual({
      message: "✓ 1. Read the spec\n▶ 2. Write the parser\n○ 3. Add tests",
    });
    expect(await command?.run("", setup(), hookContext)).toEqual({ message: "No todos." });
  });
});
