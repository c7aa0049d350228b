// Plain JSON Schema tool parameters (as MCP servers send them) validate and reject like TypeBox
// ones: the same repairs, the same wording, and $ref / enums / nesting in both dialects.
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { validateToolArguments } from "../src/index.js";

const plain = {
  type: "object",
  properties: {
    repo: { type: "string", minLength: 1 },
    state: { type: "string", enum: ["open", "closed"], default: "open" },
    limit: { type: "integer", minimum: 1, maximum: 100 },
    labels: { type: "array", items: { $ref: "#/$defs/label" } },
    filter: {
      type: "object",
      properties: { author: { type: "string" }, since: { type: "string", format: "date-time" } },
      required: ["author"],
      additionalProperties: false,
    },
  },
  required: ["repo"],
  $defs: { label: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
};

const typed = Type.Object({
  repo: Type.String({ minLength: 1 }),
  state: Type.Optional(Type.Union([Type.Literal("open"), Type.Literal("closed")], { default: "open" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  labels: Type.Optional(Type.Array(Type.Object({ name: Type.String() }))),
  filter: Type.Optional(
    Type.Object(
      { author: Type.String(), since: Type.Optional(Type.String()) },
      { additionalProperties: false },
    ),
  ),
});

const run = (parameters: unknown, args: unknown) =>
  validateToolArguments({ name: "list_issues", parameters: parameters as never }, args);

describe("validateToolArguments with plain JSON Schema", () => {
  it("accepts valid nested arguments, fills defaults and follows $ref", () => {
    const result = run(plain, { repo: "acme/web", labels: [{ name: "bug" }], filter: { author: "ann" } });
    expect(result.isOk() && result.value).toEqual({
      repo: "acme/web",
      state: "open",
      labels: [{ name: "bug" }],
      filter: { author: "ann" },
    });
  });

  it("repairs the slips models make, as the TypeBox path does", () => {
    const args = { repo: "acme/web", limit: "20", filter: '{"author":"ann"}' };
    const fromPlain = run(plain, args);
    const fromTyped = run(typed, args);
    expect(fromPlain.isOk() && fromPlain.value).toMatchObject({ limit: 20, filter: { author: "ann" } });
    expect(fromTyped.isOk() && fromTyped.value).toMatchObject({ limit: 20, filter: { author: "ann" } });
    // The input is never mutated.
    expect(args.limit).toBe("20");
  });

  it.each([
    ["a missing required property", { limit: 5 }, "/repo is required (expected a string)"],
    [
      "an enum outside its values",
      { repo: "r", state: "merged" },
      '/state must be one of "open","closed" (got "merged")',
    ],
    ["a number past its maximum", { repo: "r", limit: 500 }, "/limit must be <= 100 (got 500)"],
    ["a wrong type", { repo: true }, "/repo must be a string (got true)"],
    [
      "a property that is not allowed",
      { repo: "r", filter: { author: "a", x: 1 } },
      "/filter/x is not an allowed property; allowed: author, since",
    ],
    ["an error inside a $ref", { repo: "r", labels: [{}] }, "/labels/0/name is required (expected a string)"],
  ])("rejects %s with the model-actionable wording", (_what, args, message) => {
    const result = run(plain, args);
    expect(result.isErr()).toBe(true);
    if (result.isErr()) expect(result.error.message).toContain(message);
  });

  it("words the same failure the same way for both schema kinds", () => {
    for (const args of [{ limit: 5 }, { repo: "r", limit: 500 }, { repo: true }, { repo: "r", state: "x" }]) {
      const a = run(plain, args);
      const b = run(typed, args);
      expect(a.isErr() && b.isErr()).toBe(true);
      if (a.isErr() && b.isErr()) expect(a.error.issues).toEqual(b.error.issues);
    }
  });

  it("reads draft-07 schemas (definitions, no $defs)", () => {
    const draft07 = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { point: { $ref: "#/definitions/point" } },
      required: ["point"],
      definitions: {
        point: {
          type: "object",
          properties: { x: { type: "number" }, y: { type: "number" } },
          required: ["x", "y"],
        },
      },
    };
    expect(run(draft07, { point: { x: 1, y: "2" } }).isOk()).toBe(true);
    const bad = run(draft07, { point: { x: 1 } });
    expect(bad.isErr() && bad.error.message).toContain("/point/y is required (expected a number)");
  });

  it("checks schemas that name an older or another dialect instead of refusing them all", () => {
    for (const dialect of [
      "http://json-schema.org/draft-04/schema#",
      "http://json-schema.org/draft-06/schema#",
      "https://json-schema.org/draft/2019-09/schema",
    ]) {
      const schema = {
        $schema: dialect,
        type: "object",
        properties: { path: { type: "string" }, depth: { type: "integer", minimum: 0 } },
        required: ["path"],
      };
      expect(run(schema, { path: "src", depth: "2" })._unsafeUnwrap(), dialect).toEqual({
        path: "src",
        depth: 2,
      });
      const bad = run(schema, { depth: -1 });
      expect(bad.isErr() && bad.error.message, dialect).toBe(
        "list_issues: /path is required (expected a string); /depth must be >= 0 (got -1)",
      );
    }
  });

  it("checks formats it knows", () => {
    const result = run(plain, { repo: "r", filter: { author: "a", since: "yesterday" } });
    expect(result.isErr() && result.error.message).toContain("/filter/since must be a valid date-time");
  });

  it("keeps the first matching union variant and coerces into another only when none matches", () => {
    const union = { type: "object", properties: { v: { anyOf: [{ type: "string" }, { type: "number" }] } } };
    expect(run(union, { v: "42" }).isOk() && run(union, { v: "42" })._unsafeUnwrap()).toEqual({ v: "42" });
    const numOnly = { type: "object", properties: { v: { anyOf: [{ type: "number" }, { type: "null" }] } } };
    expect(run(numOnly, { v: "42" })._unsafeUnwrap()).toEqual({ v: 42 });
  });

  it("reports a schema it cannot compile as a tool error, not a throw", () => {
    const broken = { type: "object", properties: { a: { $ref: "#/$defs/missing" } } };
    const result = run(broken, { a: 1 });
    expect(result.isErr() && result.error.message).toMatch(/schema is invalid/);
  });
});
