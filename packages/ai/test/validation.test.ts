// Tool-argument validation: error wording, light coercion, defaults and extra properties.
import { validateToolArguments } from "@keel/ai";
import { FormatRegistry, Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";

const Status = Type.Union([Type.Literal("pending"), Type.Literal("in_progress"), Type.Literal("completed")]);
const UpdateTodos = {
  name: "UpdateTodos",
  parameters: Type.Object({
    todos: Type.Array(Type.Object({ content: Type.String({ minLength: 1 }), status: Status })),
  }),
};

describe("validateToolArguments", () => {
  it("returns the arguments when they match", () => {
    const args = { todos: [{ content: "write tests", status: "pending" }] };
    expect(validateToolArguments(UpdateTodos, args)._unsafeUnwrap()).toEqual(args);
  });

  it("names the tool, the nested path, what was expected and what came", () => {
    const error = validateToolArguments(UpdateTodos, {
      todos: [
        { content: "a", status: "pending" },
        { content: "b", status: "done" },
      ],
    })._unsafeUnwrapErr();
    expect(error).toEqual({
      type: "invalid_arguments",
      tool: "UpdateTodos",
      message: 'UpdateTodos: /todos/1/status must be one of "pending","in_progress","completed" (got "done")',
      issues: [
        {
          path: "/todos/1/status",
          message: 'must be one of "pending","in_progress","completed" (got "done")',
        },
      ],
    });
    expect(JSON.parse(JSON.stringify(error))).toEqual(error);
  });

  it("reports a missing property once, as required, with its expected type", () => {
    const error = validateToolArguments(UpdateTodos, { todos: [{ status: "pending" }] })._unsafeUnwrapErr();
    expect(error.issues).toEqual([{ path: "/todos/0/content", message: "is required (expected a string)" }]);
  });

  it("lists every failing path and words constraints plainly", () => {
    const tool = {
      name: "Read",
      parameters: Type.Object({
        path: Type.String({ minLength: 1 }),
        offset: Type.Optional(Type.Integer({ minimum: 0 })),
        tags: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
      }),
    };
    const error = validateToolArguments(tool, {
      path: "",
      offset: -1,
      tags: ["a", "b", "c"],
    })._unsafeUnwrapErr();
    expect(error.issues).toEqual([
      { path: "/path", message: 'must be at least 1 characters (got "")' },
      { path: "/offset", message: "must be >= 0 (got -1)" },
      { path: "/tags", message: 'must have at most 2 items (got ["a","b","c"])' },
    ]);
    expect(error.message).toBe(
      'Read: /path must be at least 1 characters (got ""); /offset must be >= 0 (got -1); /tags must have at most 2 items (got ["a","b","c"])',
    );
  });

  it("explains a union of types by listing them", () => {
    const tool = { name: "T", parameters: Type.Object({ v: Type.Union([Type.String(), Type.Number()]) }) };
    expect(validateToolArguments(tool, { v: true })._unsafeUnwrapErr().message).toBe(
      "T: /v must be a string or a number (got true)",
    );
  });

  it("explains a discriminated union through the variant the value was closest to", () => {
    const Edit = Type.Union([
      Type.Object({ kind: Type.Literal("replace"), old: Type.String(), new: Type.String() }),
      Type.Object({ kind: Type.Literal("delete"), line: Type.Integer() }),
    ]);
    const tool = { name: "Edit", parameters: Type.Object({ op: Edit }) };
    expect(validateToolArguments(tool, { op: { kind: "delete", line: 3 } }).isOk()).toBe(true);
    const error = validateToolArguments(tool, { op: { kind: "delete", line: "three" } })._unsafeUnwrapErr();
    expect(error.issues).toEqual([{ path: "/op/line", message: 'must be an integer (got "three")' }]);
  });

  describe("coercion", () => {
    const tool = {
      name: "Bash",
      parameters: Type.Object({
        command: Type.String(),
        timeout: Type.Optional(Type.Number()),
        lines: Type.Optional(Type.Integer()),
        background: Type.Optional(Type.Boolean()),
        label: Type.Optional(Type.String()),
      }),
    };

    it("repairs numbers, integers and booleans sent as strings, and numbers sent for strings", () => {
      const args = { command: "ls", timeout: "2.5", lines: "10", background: "true", label: 7 };
      expect(validateToolArguments(tool, args)._unsafeUnwrap()).toEqual({
        command: "ls",
        timeout: 2.5,
        lines: 10,
        background: true,
        label: "7",
      });
    });

    it("never mutates the caller's arguments", () => {
      const args = { command: "ls", timeout: "2.5", nested: { a: 1 } };
      const before = structuredClone(args);
      const result = validateToolArguments(tool, args)._unsafeUnwrap();
      expect(args).toEqual(before);
      expect(result).not.toBe(args);
    });

    it("does not make repairs that change meaning", () => {
      const error = validateToolArguments(tool, {
        command: "ls",
        lines: "1.5",
        background: 1,
        timeout: "soon",
      });
      expect(error._unsafeUnwrapErr().issues.map((i) => i.path)).toEqual([
        "/timeout",
        "/lines",
        "/background",
      ]);
      // A scalar is not wrapped into an array.
      const list = { name: "L", parameters: Type.Object({ paths: Type.Array(Type.String()) }) };
      expect(validateToolArguments(list, { paths: "a.ts" })._unsafeUnwrapErr().message).toBe(
        'L: /paths must be an array of strings (got "a.ts")',
      );
    });

    it("decodes objects and arrays the model sent as JSON strings", () => {
      const todos = JSON.stringify([{ content: "x", status: "completed" }]);
      expect(validateToolArguments(UpdateTodos, { todos })._unsafeUnwrap()).toEqual({
        todos: [{ content: "x", status: "completed" }],
      });
      expect(validateToolArguments(UpdateTodos, { todos: "[not json" }).isErr()).toBe(true);
    });

    it("treats null for an optional property as omitted, but not for a required one", () => {
      expect(validateToolArguments(tool, { command: "ls", timeout: null })._unsafeUnwrap()).toEqual({
        command: "ls",
      });
      expect(validateToolArguments(tool, { command: null })._unsafeUnwrapErr().issues).toEqual([
        { path: "/command", message: "must be a string (got null)" },
      ]);
    });

    it("coerces inside unions only when a variant then matches exactly", () => {
      const u = { name: "U", parameters: Type.Object({ n: Type.Union([Type.Number(), Type.Null()]) }) };
      expect(validateToolArguments(u, { n: "3" })._unsafeUnwrap()).toEqual({ n: 3 });
      expect(validateToolArguments(u, { n: "null" })._unsafeUnwrap()).toEqual({ n: null });
    });
  });

  it("fills schema defaults", () => {
    const tool = {
      name: "Grep",
      parameters: Type.Object({
        pattern: Type.String(),
        caseSensitive: Type.Boolean({ default: true }),
        limit: Type.Optional(Type.Integer({ default: 100 })),
      }),
    };
    expect(validateToolArguments(tool, { pattern: "x" })._unsafeUnwrap()).toEqual({
      pattern: "x",
      caseSensitive: true,
      limit: 100,
    });
  });

  describe("extra properties", () => {
    it("are kept when the schema allows them", () => {
      const tool = { name: "Open", parameters: Type.Object({ a: Type.String() }) };
      expect(validateToolArguments(tool, { a: "x", b: 1 })._unsafeUnwrap()).toEqual({ a: "x", b: 1 });
    });

    it("are named, with the allowed ones, when the schema forbids them", () => {
      const tool = {
        name: "Closed",
        parameters: Type.Object(
          { a: Type.String(), b: Type.Optional(Type.String()) },
          { additionalProperties: false },
        ),
      };
      expect(validateToolArguments(tool, { a: "x", c: 1 })._unsafeUnwrapErr().message).toBe(
        "Closed: /c is not an allowed property; allowed: a, b",
      );
    });
  });

  it("does not enforce string formats nobody registered, but does enforce registered ones", () => {
    const tool = {
      name: "Fetch",
      parameters: Type.Object({ url: Type.String({ format: "keel-test-unknown" }) }),
    };
    expect(validateToolArguments(tool, { url: "anything" }).isOk()).toBe(true);
    FormatRegistry.Set("keel-test-even", (v) => v.length % 2 === 0);
    const even = { name: "Even", parameters: Type.Object({ s: Type.String({ format: "keel-test-even" }) }) };
    expect(validateToolArguments(even, { s: "ab" }).isOk()).toBe(true);
    expect(validateToolArguments(even, { s: "abc" })._unsafeUnwrapErr().message).toBe(
      'Even: /s must be a valid keel-test-even (got "abc")',
    );
  });

  it("says when the arguments are not an object at all", () => {
    expect(validateToolArguments(UpdateTodos, [1])._unsafeUnwrapErr().message).toBe(
      "UpdateTodos: arguments must be an object (got [1])",
    );
  });

  it("caps a long list of issues", () => {
    const props = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, Type.String()]));
    const error = validateToolArguments(
      { name: "Many", parameters: Type.Object(props) },
      {},
    )._unsafeUnwrapErr();
    expect(error.issues).toHaveLength(12);
    expect(error.message).toMatch(/; … and 4 more$/);
  });
});
