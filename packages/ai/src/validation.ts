// Checks a model's tool-call arguments against the tool's TypeBox schema, repairing only the slips
// models commonly make, and explains any failure in words the model can act on.
import { Kind, KindGuard, type Static, type TObject, type TRecord, type TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import { err, ok, type Result } from "neverthrow";
import { validateJsonSchema } from "./json-schema-validation.js";

/** One failing location, as a JSON pointer ("/" is the arguments object itself). */
export interface SchemaIssue {
  path: string;
  message: string;
}

export interface ToolArgumentsError {
  type: "invalid_arguments";
  tool: string;
  /** e.g. `UpdateTodos: /todos/0/status must be one of "pending","done" (got "finished")` */
  message: string;
  issues: SchemaIssue[];
}

/** Issues listed in a message before the rest are summarised as "… and N more". */
const MAX_LISTED_ISSUES = 8;

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function compile(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

/**
 * Validates `args` for `tool`. The input is never mutated: work happens on a clone, which gets
 * light coercion (see `coerce`) and schema defaults, and that clone is what comes back on success.
 * Extra properties follow the schema: kept unless it says `additionalProperties: false`.
 * String formats TypeBox has no checker for (e.g. "uri" unless registered) are not enforced.
 */
export function validateToolArguments<T extends TSchema>(
  tool: { name: string; parameters: T },
  args: unknown,
): Result<Static<T>, ToolArgumentsError> {
  if (!KindGuard.IsSchema(tool.parameters)) return validatePlain(tool, args);
  const check = compile(tool.parameters);
  const value = Value.Default(tool.parameters, coerce(tool.parameters, Value.Clone(args)));
  if (check.Check(value)) return ok(value as Static<T>);
  const issues = issuesFrom(check.Errors(value));
  if (issues.length === 0) return ok(value as Static<T>);
  return err({
    type: "invalid_arguments",
    tool: tool.name,
    message: formatIssues(tool.name, issues),
    issues,
  });
}

/** Plain JSON Schema (an MCP tool's inputSchema): Ajv, same repairs and same wording. */
function validatePlain<T extends TSchema>(
  tool: { name: string; parameters: T },
  args: unknown,
): Result<Static<T>, ToolArgumentsError> {
  const checked = validateJsonSchema(tool.parameters as Record<string, unknown>, args);
  if (checked.isOk()) return ok(checked.value as Static<T>);
  const failure = checked.error;
  const issues =
    failure.type === "unusable_schema"
      ? [{ path: "/", message: `cannot be checked: the tool's schema is invalid (${failure.message})` }]
      : failure.issues;
  return err({
    type: "invalid_arguments",
    tool: tool.name,
    message: formatIssues(tool.name, issues),
    issues,
  });
}

/** The issues of `value` against any TypeBox schema, one per path, worded for people and models. */
export function describeSchemaErrors(schema: TSchema, value: unknown): SchemaIssue[] {
  return issuesFrom(compile(schema).Errors(value));
}

/** `prefix: /a must be …; /b is required` — the one-line form used in error messages. */
export function formatIssues(prefix: string, issues: readonly SchemaIssue[]): string {
  const listed = issues
    .slice(0, MAX_LISTED_ISSUES)
    .map((i) => `${i.path === "/" ? "arguments" : i.path} ${i.message}`);
  const more = issues.length > MAX_LISTED_ISSUES ? `; … and ${issues.length - MAX_LISTED_ISSUES} more` : "";
  return `${prefix}: ${listed.join("; ")}${more}`;
}

// ── error wording ───────────────────────────────────────────────────────────────────────────

function issuesFrom(errors: Iterable<ValueError>): SchemaIssue[] {
  const byPath = new Map<string, SchemaIssue>();
  collect(errors, byPath);
  return [...byPath.values()];
}

/** Keeps the first error per path: TypeBox reports a missing property twice (required + type). */
function collect(errors: Iterable<ValueError>, out: Map<string, SchemaIssue>): void {
  for (const e of errors) {
    if (e.type === ValueErrorType.StringFormatUnknown) continue;
    const path = e.path === "" ? "/" : e.path;
    if (out.has(path)) continue;
    if (e.type === ValueErrorType.Union && !isLiteralUnion(e.schema)) {
      const best = bestVariant(e);
      // The value had the right shape for one variant: its inner errors say more than "no match".
      if (best && best.length > 0 && best.every((inner) => inner.path.length > e.path.length)) {
        collect(best, out);
        continue;
      }
    }
    out.set(path, { path, message: describe(e) });
  }
}

/** The union variant the value came closest to: fewest errors, ignoring unknown formats. */
function bestVariant(e: ValueError): ValueError[] | undefined {
  let best: ValueError[] | undefined;
  for (const iterator of e.errors) {
    const list = [...iterator].filter((x) => x.type !== ValueErrorType.StringFormatUnknown);
    if (!best || list.length < best.length) best = list;
  }
  return best;
}

function describe(e: ValueError): string {
  const s = e.schema as Record<string, unknown>;
  const got = ` (got ${show(e.value)})`;
  switch (e.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `is required (expected ${expected(e.schema)})`;
    case ValueErrorType.ObjectAdditionalProperties: {
      const known = Object.keys((s.properties as object | undefined) ?? {});
      return `is not an allowed property${known.length ? `; allowed: ${known.join(", ")}` : ""}`;
    }
    case ValueErrorType.StringMinLength:
      return `must be at least ${s.minLength} characters${got}`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${s.maxLength} characters${got}`;
    case ValueErrorType.StringPattern:
      return `must match the pattern ${s.pattern}${got}`;
    case ValueErrorType.StringFormat:
      return `must be a valid ${s.format}${got}`;
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return `must be >= ${s.minimum}${got}`;
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return `must be <= ${s.maximum}${got}`;
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMinimum:
      return `must be > ${s.exclusiveMinimum}${got}`;
    case ValueErrorType.NumberExclusiveMaximum:
    case ValueErrorType.IntegerExclusiveMaximum:
      return `must be < ${s.exclusiveMaximum}${got}`;
    case ValueErrorType.NumberMultipleOf:
    case ValueErrorType.IntegerMultipleOf:
      return `must be a multiple of ${s.multipleOf}${got}`;
    case ValueErrorType.ArrayMinItems:
      return `must have at least ${s.minItems} items${got}`;
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${s.maxItems} items${got}`;
    case ValueErrorType.ArrayUniqueItems:
      return `must not contain duplicate items${got}`;
    case ValueErrorType.ObjectMinProperties:
      return `must have at least ${s.minProperties} properties${got}`;
    case ValueErrorType.ObjectMaxProperties:
      return `must have at most ${s.maxProperties} properties${got}`;
    case ValueErrorType.Literal:
    case ValueErrorType.Union:
    case ValueErrorType.String:
    case ValueErrorType.Number:
    case ValueErrorType.Integer:
    case ValueErrorType.Boolean:
    case ValueErrorType.Null:
    case ValueErrorType.Array:
    case ValueErrorType.Object:
      return `must be ${expected(e.schema)}${got}`;
    default:
      return `${e.message.charAt(0).toLowerCase()}${e.message.slice(1)}${got}`;
  }
}

/** What a schema accepts, in a few words: `a string`, `one of "a","b"`, `a number or null`. */
function expected(schema: TSchema): string {
  const s = schema as Record<string, unknown>;
  if ("const" in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(",")}`;
  if (Array.isArray(s.anyOf)) {
    const variants = s.anyOf as TSchema[];
    if (isLiteralUnion(schema)) return `one of ${variants.map((v) => JSON.stringify(v.const)).join(",")}`;
    return [...new Set(variants.map(expected))].join(" or ");
  }
  switch (schema[Kind]) {
    case "String":
      return "a string";
    case "Number":
      return "a number";
    case "Integer":
      return "an integer";
    case "Boolean":
      return "a boolean";
    case "Null":
      return "null";
    case "Array":
      return `an array${s.items ? ` of ${plural(expected(s.items as TSchema))}` : ""}`;
    case "Object":
    case "Record":
      return "an object";
    default:
      return typeof s.type === "string" ? s.type : "a valid value";
  }
}

function plural(noun: string): string {
  return noun.replace(/^an? (\w+)$/, "$1s");
}

function isLiteralUnion(schema: TSchema): boolean {
  const anyOf = (schema as { anyOf?: TSchema[] }).anyOf;
  return Array.isArray(anyOf) && anyOf.length > 0 && anyOf.every((v) => "const" in v);
}

function show(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

// ── coercion ────────────────────────────────────────────────────────────────────────────────
// Deliberately narrower than TypeBox's Value.Convert, which truncates 1.5 to an integer, turns
// true into 1 and wraps a scalar into an array — repairs that change what the model meant.
// Applied only where the value has the wrong type for the schema:
//   - a numeric string where a number / integer is wanted ("42" → 42; "1.5" stays for integers)
//   - "true" / "false" where a boolean is wanted
//   - a finite number where a string is wanted (42 → "42")
//   - "null" where null is wanted
//   - a JSON string of an object / array where an object / array is wanted (models double-encode)
//   - null for an optional property that does not accept null is dropped (treated as omitted)
// Unions try each variant and keep the first coerced value that fully matches.

const NUMERIC = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function coerce(schema: TSchema, value: unknown): unknown {
  if (value === undefined) return value;
  if (KindGuard.IsNumber(schema)) {
    return typeof value === "string" && NUMERIC.test(value.trim()) ? Number(value) : value;
  }
  if (KindGuard.IsInteger(schema)) {
    if (typeof value !== "string" || !NUMERIC.test(value.trim())) return value;
    const n = Number(value);
    return Number.isInteger(n) ? n : value;
  }
  if (KindGuard.IsBoolean(schema)) return value === "true" ? true : value === "false" ? false : value;
  if (KindGuard.IsString(schema))
    return typeof value === "number" && Number.isFinite(value) ? String(value) : value;
  if (KindGuard.IsNull(schema)) return value === "null" ? null : value;
  if (KindGuard.IsLiteral(schema)) return coerceLiteral(schema.const, value);
  if (KindGuard.IsObject(schema)) return coerceObject(schema, parseJson(value, "object"));
  if (KindGuard.IsRecord(schema)) return coerceRecord(schema, parseJson(value, "object"));
  if (KindGuard.IsArray(schema)) {
    const array = parseJson(value, "array");
    return Array.isArray(array) ? array.map((v) => coerce(schema.items, v)) : array;
  }
  if (KindGuard.IsUnion(schema)) {
    if (Value.Check(schema, value)) return value;
    for (const variant of schema.anyOf) {
      const candidate = coerce(variant, Value.Clone(value));
      if (Value.Check(variant, candidate)) return candidate;
    }
    return value;
  }
  if (KindGuard.IsIntersect(schema)) return schema.allOf.reduce<unknown>((v, part) => coerce(part, v), value);
  return value;
}

function coerceLiteral(expected: unknown, value: unknown): unknown {
  if (typeof expected === "number" && typeof value === "string" && NUMERIC.test(value.trim())) {
    return Number(value) === expected ? expected : value;
  }
  if (typeof expected === "boolean" && (value === "true" || value === "false")) {
    return String(expected) === value ? expected : value;
  }
  if (typeof expected === "string" && typeof value === "number" && String(value) === expected)
    return expected;
  return value;
}

function coerceObject(schema: TObject, value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const required = new Set(schema.required ?? []);
  for (const [key, property] of Object.entries(schema.properties)) {
    if (!(key in value)) continue;
    if (value[key] === null && !required.has(key) && !Value.Check(property, null)) {
      delete value[key];
      continue;
    }
    value[key] = coerce(property, value[key]);
  }
  const extra = schema.additionalProperties;
  if (KindGuard.IsSchema(extra)) {
    for (const key of Object.keys(value))
      if (!(key in schema.properties)) value[key] = coerce(extra, value[key]);
  }
  return value;
}

function coerceRecord(schema: TRecord, value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const inner = Object.values(schema.patternProperties)[0];
  if (!inner) return value;
  for (const key of Object.keys(value)) value[key] = coerce(inner, value[key]);
  return value;
}

function parseJson(value: unknown, want: "object" | "array"): unknown {
  if (typeof value !== "string") return value;
  const text = value.trim();
  if (!(want === "array" ? text.startsWith("[") : text.startsWith("{"))) return value;
  try {
    const parsed: unknown = JSON.parse(text);
    return (want === "array" ? Array.isArray(parsed) : isPlainObject(parsed)) ? parsed : value;
  } catch {
    return value;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
