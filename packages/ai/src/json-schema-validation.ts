// Validates tool arguments against plain JSON Schema (draft 2020-12, or draft-07 when a schema says
// so), as MCP servers send them: Ajv, the validator the MCP SDK itself uses, with the same light
// repairs and the same wording of failures as the TypeBox path.
import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { err, ok, type Result } from "neverthrow";
import type { SchemaIssue } from "./validation.js";

type Schema = Record<string, unknown>;

interface AjvModules {
  Ajv: typeof Ajv;
  Ajv2020: typeof Ajv2020;
  addFormats: (ajv: Ajv | Ajv2020) => void;
}
let modules: AjvModules | undefined;

/**
 * Ajv (~210 KB with ajv-formats and fast-uri) is loaded by the first plain-schema check, not with
 * the package: only MCP-style tools need it, and they are not there before the first request.
 * Checks are synchronous, so this is a require, not an import(): a bundler (the keel CLI) sees
 * the literal `require(...)` calls and inlines them as modules evaluated on first call; run as
 * plain ESM, where there is no `require`, Node's own CommonJS loader does the same job.
 */
function ajv(): AjvModules {
  if (modules) return modules;
  const load: (id: string) => unknown =
    typeof require === "function"
      ? (id) => {
          // Literal specifiers, so a bundler can resolve them.
          if (id === "ajv") return require("ajv");
          if (id === "ajv/dist/2020.js") return require("ajv/dist/2020.js");
          return require("ajv-formats");
        }
      : createRequire(import.meta.url);
  const formats = load("ajv-formats") as { default?: unknown };
  modules = {
    Ajv: (load("ajv") as { Ajv: typeof Ajv }).Ajv,
    Ajv2020: (load("ajv/dist/2020.js") as { Ajv2020: typeof Ajv2020 }).Ajv2020,
    // ajv-formats is CommonJS; its function arrives wrapped under some loaders.
    addFormats: (formats.default ?? formats) as AjvModules["addFormats"],
  };
  return modules;
}

/**
 * An Ajv instance keeps every schema and function it ever compiled (its code scope), and catalogs
 * rediscovered after each list_changed bring fresh schema objects: each instance is replaced after
 * this many compilations, so what a session holds is bounded by what is still in use (compiled
 * functions keep working; the WeakMaps below drop them with their schemas).
 */
const COMPILES_PER_VALIDATOR = 200;

interface Validator {
  ajv: Ajv | Ajv2020;
  compiles: number;
}
let draft07: Validator | undefined;
let draft2020: Validator | undefined;

/**
 * MCP's default dialect is 2020-12; a schema naming draft-07 (or older) gets the draft-07 validator.
 * The schema is compiled without its `$schema` (see `bare`), which only picked the validator here.
 */
function validatorFor(schema: Schema): Ajv | Ajv2020 {
  const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
  const options = { allErrors: true, strict: false, validateFormats: true, verbose: true } as const;
  const fresh = (current: Validator | undefined, make: () => Ajv | Ajv2020): Validator => {
    if (current && current.compiles < COMPILES_PER_VALIDATOR) {
      current.compiles++;
      return current;
    }
    const instance = make();
    ajv().addFormats(instance);
    return { ajv: instance, compiles: 1 };
  };
  if (/draft-0[467]/.test(dialect)) {
    draft07 = fresh(draft07, () => new (ajv().Ajv)(options));
    return draft07.ajv;
  }
  draft2020 = fresh(draft2020, () => new (ajv().Ajv2020)(options));
  return draft2020.ajv;
}

/**
 * What Ajv compiles. Without `$id`: Ajv keeps compiled schemas by id, and two tools may reuse one
 * id for different schemas. Without `$schema`: Ajv would look the dialect's meta-schema up and
 * refuse every schema naming one it does not bundle (draft-04, draft-06, 2019-09), leaving the
 * tool unusable; the validator was already chosen by that dialect.
 */
function bare(schema: Schema): Schema {
  const { $id: _id, $schema: _dialect, ...rest } = schema;
  return rest;
}

const compiled = new WeakMap<object, ValidateFunction | Error>();

/** Compiles once per schema object; a schema Ajv cannot compile is reported, not thrown. */
function compile(schema: Schema): ValidateFunction | Error {
  let fn = compiled.get(schema);
  if (!fn) {
    try {
      fn = validatorFor(schema).compile(bare(schema));
    } catch (e) {
      fn = e instanceof Error ? e : new Error(String(e));
    }
    compiled.set(schema, fn);
  }
  return fn;
}

const variantChecks = new WeakMap<object, ValidateFunction | Error>();

/** A union variant compiled on its own, with the root's definitions so its `$ref`s resolve. */
function compileVariant(root: Schema, variant: Schema): ValidateFunction | Error {
  let fn = variantChecks.get(variant);
  if (!fn) {
    const wrapper = bare(variant);
    if (root.$defs !== undefined && wrapper.$defs === undefined) wrapper.$defs = root.$defs;
    if (root.definitions !== undefined && wrapper.definitions === undefined)
      wrapper.definitions = root.definitions;
    try {
      fn = validatorFor(root).compile(wrapper);
    } catch (e) {
      fn = e instanceof Error ? e : new Error(String(e));
    }
    variantChecks.set(variant, fn);
  }
  return fn;
}

export type JsonSchemaError =
  /** The value does not match; `issues` says where and how. */
  | { type: "invalid"; message: string; issues: SchemaIssue[] }
  /** Ajv cannot compile the schema itself; `message` is Ajv's reason. */
  | { type: "unusable_schema"; message: string };

/**
 * Checks `args` (never mutated: a repaired clone is checked and returned) against a JSON Schema.
 * Defaults in the schema are filled in as TypeBox does.
 */
export function validateJsonSchema(schema: Schema, args: unknown): Result<unknown, JsonSchemaError> {
  const check = compile(schema);
  if (check instanceof Error) return err({ type: "unusable_schema", message: check.message });
  const value = withDefaults(schema, schema, coerce(schema, schema, structuredClone(args), 0), 0);
  if (check(value)) return ok(value);
  const issues = issuesFrom(check.errors ?? [], schema);
  return err({ type: "invalid", message: "The value does not match the schema.", issues });
}

// ── repairs (the TypeBox path's rules, over plain schemas) ───────────────────────────────────

const NUMERIC = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const MAX_DEPTH = 32;

/** Follows a local `$ref` (`#/$defs/x`, `#/definitions/x`); anything else is left alone. */
function deref(root: Schema, schema: Schema, depth: number): Schema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === "string" && hops < 8 && depth < MAX_DEPTH; hops++) {
    const ref = current.$ref as string;
    if (!ref.startsWith("#")) break;
    let target: unknown = root;
    for (const raw of ref.slice(1).split("/").filter(Boolean)) {
      const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      target = isObject(target) ? target[key] : undefined;
    }
    if (!isObject(target)) break;
    current = target;
  }
  return current;
}

function types(schema: Schema): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  if (isObject(schema.properties)) return ["object"];
  return [];
}

function coerce(root: Schema, raw: Schema, value: unknown, depth: number): unknown {
  if (value === undefined || depth > MAX_DEPTH) return value;
  const schema = deref(root, raw, depth);
  const variants = [schema.anyOf, schema.oneOf].find(Array.isArray) as Schema[] | undefined;
  if (variants) {
    for (const variant of variants) {
      const check = compileVariant(root, variant);
      if (!(check instanceof Error) && check(value)) return value;
    }
    for (const variant of variants) {
      const candidate = coerce(root, variant, structuredClone(value), depth + 1);
      if (candidate !== value) return candidate;
    }
    return value;
  }
  const accepts = types(schema);
  if (accepts.length === 0) return value;
  const is = (t: string) => accepts.includes(t);
  if (typeof value === "string") {
    const text = value.trim();
    if ((is("number") || is("integer")) && !is("string") && NUMERIC.test(text)) {
      const n = Number(text);
      if (is("number") || Number.isInteger(n)) return n;
    }
    if (is("boolean") && !is("string") && (value === "true" || value === "false")) return value === "true";
    if (is("null") && !is("string") && value === "null") return null;
    if (is("object") && !is("string") && text.startsWith("{"))
      return coerce(root, schema, parse(text), depth + 1);
    if (is("array") && !is("string") && text.startsWith("["))
      return coerce(root, schema, parse(text), depth + 1);
    return value;
  }
  if (typeof value === "number" && is("string") && !is("number") && !is("integer") && Number.isFinite(value))
    return String(value);
  if (Array.isArray(value) && is("array") && isObject(schema.items))
    return value.map((v) => coerce(root, schema.items as Schema, v, depth + 1));
  if (isObject(value) && is("object") && isObject(schema.properties)) {
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    for (const [key, property] of Object.entries(schema.properties)) {
      if (!(key in value) || !isObject(property)) continue;
      const prop = deref(root, property, depth);
      if (value[key] === null && !required.has(key) && !types(prop).includes("null") && !prop.anyOf) {
        delete value[key];
        continue;
      }
      value[key] = coerce(root, prop, value[key], depth + 1);
    }
  }
  return value;
}

function withDefaults(root: Schema, raw: Schema, value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return value;
  const schema = deref(root, raw, depth);
  if (!isObject(value) || !isObject(schema.properties)) return value;
  for (const [key, property] of Object.entries(schema.properties)) {
    if (!isObject(property)) continue;
    const prop = deref(root, property, depth);
    if (!(key in value) && "default" in prop) value[key] = structuredClone(prop.default);
    else if (key in value) value[key] = withDefaults(root, prop, value[key], depth + 1);
  }
  return value;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// ── wording ─────────────────────────────────────────────────────────────────────────────────

function issuesFrom(errors: ErrorObject[], root: Schema): SchemaIssue[] {
  const byPath = new Map<string, SchemaIssue>();
  // "No variant matched" says less than a variant's own errors at deeper paths.
  const vague = (e: ErrorObject) => e.keyword === "anyOf" || e.keyword === "oneOf" || e.keyword === "if";
  const ordered = [...errors.filter((e) => !vague(e)), ...errors.filter(vague)];
  for (const e of ordered) {
    const path = pathOf(e);
    if (byPath.has(path)) continue;
    if (vague(e) && [...byPath.keys()].some((p) => p.startsWith(path === "/" ? "/" : `${path}/`))) continue;
    byPath.set(path, { path, message: describe(e, root) });
  }
  return [...byPath.values()];
}

function pathOf(e: ErrorObject): string {
  const base = e.instancePath === "" ? "" : e.instancePath;
  const params = e.params as Record<string, unknown>;
  if (e.keyword === "required") return `${base}/${String(params.missingProperty)}`;
  if (e.keyword === "additionalProperties") return `${base}/${String(params.additionalProperty)}`;
  return base === "" ? "/" : base;
}

function describe(e: ErrorObject, root: Schema): string {
  const params = e.params as Record<string, unknown>;
  const s = (isObject(e.parentSchema) ? e.parentSchema : {}) as Schema;
  const got = ` (got ${show(e.data)})`;
  switch (e.keyword) {
    case "required": {
      const property = isObject(s.properties) ? s.properties[String(params.missingProperty)] : undefined;
      return `is required${isObject(property) ? ` (expected ${expected(root, property)})` : ""}`;
    }
    case "additionalProperties": {
      const known = isObject(s.properties) ? Object.keys(s.properties) : [];
      return `is not an allowed property${known.length ? `; allowed: ${known.join(", ")}` : ""}`;
    }
    case "type":
    case "enum":
    case "const":
    case "anyOf":
    case "oneOf":
      return `must be ${expected(root, s)}${got}`;
    case "minLength":
      return `must be at least ${params.limit} characters${got}`;
    case "maxLength":
      return `must be at most ${params.limit} characters${got}`;
    case "pattern":
      return `must match the pattern ${params.pattern}${got}`;
    case "format":
      return `must be a valid ${params.format}${got}`;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `must be ${params.comparison} ${params.limit}${got}`;
    case "multipleOf":
      return `must be a multiple of ${params.multipleOf}${got}`;
    case "minItems":
      return `must have at least ${params.limit} items${got}`;
    case "maxItems":
      return `must have at most ${params.limit} items${got}`;
    case "uniqueItems":
      return `must not contain duplicate items${got}`;
    case "minProperties":
      return `must have at least ${params.limit} properties${got}`;
    case "maxProperties":
      return `must have at most ${params.limit} properties${got}`;
    default:
      return `${e.message ?? "is not valid"}${got}`;
  }
}

/** What a schema accepts, in a few words: `a string`, `one of "a","b"`, `a number or null`. */
function expected(root: Schema, raw: Schema, depth = 0): string {
  const s = deref(root, raw, depth);
  if ("const" in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(",")}`;
  const variants = [s.anyOf, s.oneOf].find(Array.isArray) as Schema[] | undefined;
  if (variants && depth < 4)
    return [...new Set(variants.filter(isObject).map((v) => expected(root, v, depth + 1)))].join(" or ");
  const names = types(s).map((t) => {
    switch (t) {
      case "string":
        return "a string";
      case "number":
        return "a number";
      case "integer":
        return "an integer";
      case "boolean":
        return "a boolean";
      case "null":
        return "null";
      case "array":
        return isObject(s.items) && depth < 4
          ? `an array of ${expected(root, s.items, depth + 1).replace(/^an? (\w+)$/, "$1s")}`
          : "an array";
      case "object":
        return "an object";
      default:
        return t;
    }
  });
  return names.length > 0 ? names.join(" or ") : "a valid value";
}

function show(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
