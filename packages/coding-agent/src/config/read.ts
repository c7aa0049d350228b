// Reads one config file: JSON with comments and trailing commas (JSONC), line/column on syntax
// errors, then schema errors by file, line and field.
import { readFileSync } from "node:fs";
import type { TSchema } from "@sinclair/typebox";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import { type Node, type ParseError, parse, parseTree, printParseErrorCode } from "jsonc-parser";
import { err, ok, type Result } from "neverthrow";
import { errnoCode, errnoMessage } from "../fs/errno.js";
import type { ConfigError, FieldError } from "./errors.js";
import { displayPath } from "./paths.js";

/** `undefined` when the file does not exist; an error when it exists but cannot be used. */
export function readJsonFile(path: string, userHome?: string): Result<unknown | undefined, ConfigError> {
  return readConfigText(path, userHome).map((read) => read?.value);
}

/** The file's value and its text (for the lines of schema errors, and edits that keep comments). */
export function readConfigText(
  path: string,
  userHome?: string,
): Result<{ value: unknown; text: string } | undefined, ConfigError> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if (errnoCode(e) === "ENOENT") return ok(undefined);
    const file = displayPath(path, userHome);
    return err({ type: "config_unreadable", file, message: `${file}: cannot be read (${errnoMessage(e)})` });
  }
  return parseJsonText(text, path, userHome).map((value) => ({ value, text }));
}

export function parseJsonText(text: string, path: string, userHome?: string): Result<unknown, ConfigError> {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, {
    disallowComments: false,
    allowTrailingComma: true,
    allowEmptyContent: false,
  });
  const first = errors[0];
  if (!first) return ok(value);
  const { line, column } = lineColumn(text, first.offset);
  const file = displayPath(path, userHome);
  const what = printParseErrorCode(first.error);
  return err({
    type: "config_invalid_json",
    file,
    line,
    column,
    message: `${file}:${line}:${column}: invalid JSON (${what}; comments and trailing commas are allowed); fix the file or delete it`,
  });
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === "\n") {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

const MAX_REPORTED = 5;

/** The line a JSON pointer's value starts on in `text` (its key's line), or its nearest parent's. */
export function lineOfPointer(text: string, pointer: string): number | undefined {
  let node: Node | undefined = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  let line = node ? lineColumn(text, node.offset).line : undefined;
  const segments = pointer === "" || pointer === "/" ? [] : pointer.slice(1).split("/");
  for (const raw of segments) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    const next: Node | undefined =
      node?.type === "object"
        ? node.children?.find((p) => p.children?.[0]?.value === key)
        : node?.type === "array"
          ? node.children?.[Number(key)]
          : undefined;
    if (!next) break;
    line = lineColumn(text, next.offset).line;
    node = next.type === "property" ? next.children?.[1] : next;
  }
  return line;
}

export function validateAgainst<T>(
  schema: TSchema,
  value: unknown,
  path: string,
  userHome?: string,
  /** The file's text: each error then names its line. */
  text?: string,
): Result<T, ConfigError> {
  if (Value.Check(schema, value)) return ok(value as T);
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const e of Value.Errors(schema, value)) {
    if (seen.has(e.path)) continue;
    seen.add(e.path);
    const line = text === undefined ? undefined : lineOfPointer(text, e.path);
    errors.push({
      path: e.path === "" ? "/" : e.path,
      message: describe(e),
      ...(line !== undefined ? { line } : {}),
    });
    if (errors.length >= MAX_REPORTED) break;
  }
  const file = displayPath(path, userHome);
  const lines = errors.map(
    (e) => `${file}${e.line !== undefined ? `:${e.line}` : ""}: ${e.path} ${e.message}`,
  );
  return err({ type: "config_invalid", file, errors, message: lines.join("\n") });
}

function describe(e: ValueError): string {
  const custom = (e.schema as { errorMessage?: unknown }).errorMessage;
  if (typeof custom === "string") return custom;
  switch (e.type) {
    case ValueErrorType.String:
      return "must be a string";
    case ValueErrorType.Boolean:
      return "must be a boolean";
    case ValueErrorType.Number:
      return "must be a number";
    case ValueErrorType.Integer:
      return "must be an integer";
    case ValueErrorType.Array:
      return "must be an array";
    case ValueErrorType.Object:
      return "must be an object";
    case ValueErrorType.ObjectRequiredProperty:
      return "is required";
    case ValueErrorType.StringMinLength:
      return "must not be empty";
    case ValueErrorType.Union: {
      const literals = literalChoices(e.schema);
      return literals ? `must be one of ${literals.join(", ")}` : "has an unexpected shape";
    }
    default:
      return e.message.charAt(0).toLowerCase() + e.message.slice(1);
  }
}

function literalChoices(schema: TSchema): string[] | undefined {
  const anyOf = (schema as { anyOf?: { const?: unknown }[] }).anyOf;
  if (!anyOf?.every((s) => typeof s.const === "string")) return undefined;
  return anyOf.map((s) => JSON.stringify(s.const));
}
