// Elicitation: a server asks the user something. Form mode becomes a short run of UI questions
// (the server named in each, defaults offered, answers checked against the schema, a final
// review before anything is sent); URL mode shows the host and asks consent before opening it.
// With no one to ask (headless), every request is declined at once; a form whose call was
// cancelled (or that the server withdrew) is closed.
import type { ExtensionUI } from "@keel/extension-sdk";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { err, ok, type Result } from "neverthrow";
import type { BrowserOpener } from "../connection/oauth/browser.js";

/** One property of a form's flat schema (strings, numbers, booleans, single and multi enums). */
interface Field {
  type?: string;
  title?: string;
  description?: string;
  enum?: string[];
  enumNames?: string[];
  oneOf?: { const: string; title?: string }[];
  items?: { enum?: string[]; anyOf?: { const: string; title?: string }[] };
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minItems?: number;
  maxItems?: number;
}

type Outcome<T> =
  | { kind: "value"; value: T }
  | { kind: "skip" }
  | { kind: "cancel" }
  | { kind: "unsupported" };

const MAX_TRIES = 3;

function choicesOf(field: Field): { value: string; label: string }[] | undefined {
  if (field.oneOf) return field.oneOf.map((o) => ({ value: o.const, label: o.title ?? o.const }));
  if (field.enum) return field.enum.map((value, i) => ({ value, label: field.enumNames?.[i] ?? value }));
  return undefined;
}

function multiChoicesOf(field: Field): { value: string; label: string }[] | undefined {
  if (field.type !== "array") return undefined;
  if (field.items?.anyOf)
    return field.items.anyOf.map((o) => ({ value: o.const, label: o.title ?? o.const }));
  if (field.items?.enum) return field.items.enum.map((value) => ({ value, label: value }));
  return undefined;
}

const FORMATS: Record<string, (text: string) => boolean> = {
  email: (text) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text),
  uri: (text) => URL.canParse(text),
  date: (text) => /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text)),
  "date-time": (text) => !Number.isNaN(Date.parse(text)) && /T/.test(text),
};

/** What is wrong with one typed answer, in the words shown beside the question again. */
export interface InvalidAnswer {
  type: "invalid_answer";
  message: string;
}

const invalid = (message: string) => err<never, InvalidAnswer>({ type: "invalid_answer", message });

/** Parses one typed answer against its field. */
export function parseAnswer(field: Field, text: string): Result<unknown, InvalidAnswer> {
  if (field.type === "number" || field.type === "integer") {
    const value = Number(text);
    if (text.trim() === "" || !Number.isFinite(value)) return invalid("enter a number");
    if (field.type === "integer" && !Number.isInteger(value)) return invalid("enter a whole number");
    if (field.minimum !== undefined && value < field.minimum) return invalid(`at least ${field.minimum}`);
    if (field.maximum !== undefined && value > field.maximum) return invalid(`at most ${field.maximum}`);
    return ok(value);
  }
  const multi = multiChoicesOf(field);
  if (multi) {
    const picked = text
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => multi.find((c) => c.value === part || c.label === part)?.value ?? part);
    const unknown = picked.filter((value) => !multi.some((c) => c.value === value));
    if (unknown.length > 0) return invalid(`not an option: ${unknown.join(", ")}`);
    if (field.minItems !== undefined && picked.length < field.minItems)
      return invalid(`pick at least ${field.minItems}`);
    if (field.maxItems !== undefined && picked.length > field.maxItems)
      return invalid(`pick at most ${field.maxItems}`);
    return ok(picked);
  }
  if (field.minLength !== undefined && text.length < field.minLength)
    return invalid(`at least ${field.minLength} characters`);
  if (field.maxLength !== undefined && text.length > field.maxLength)
    return invalid(`at most ${field.maxLength} characters`);
  if (field.pattern !== undefined && !new RegExp(field.pattern, "u").test(text))
    return invalid(`must match ${field.pattern}`);
  const check = field.format ? FORMATS[field.format] : undefined;
  if (check && !check(text)) return invalid(`not a valid ${field.format}`);
  return ok(text);
}

async function askField(
  ui: ExtensionUI,
  server: string,
  key: string,
  field: Field,
  required: boolean,
  signal: AbortSignal | undefined,
): Promise<Outcome<unknown>> {
  const ask = signal ? { signal } : undefined;
  const label = `[${server}] ${field.title ?? key}${required ? "" : " (optional)"}${field.description ? ` — ${field.description}` : ""}`;
  const choices = choicesOf(field);
  if (field.type === "boolean" || choices) {
    const options = choices ?? [
      { value: "true", label: "yes" },
      { value: "false", label: "no" },
    ];
    // The default comes first and says so: accepting the form as offered keeps it.
    const fallback = field.default === undefined ? undefined : String(field.default);
    const ordered = [
      ...options.filter((o) => o.value === fallback).map((o) => ({ ...o, label: `${o.label} (default)` })),
      ...options.filter((o) => o.value !== fallback),
      ...(required ? [] : [{ value: "\u0000skip", label: "(leave empty)" }]),
    ];
    const answer = await ui.select(
      label,
      ordered.map((o) => o.label),
      ask,
    );
    if (answer.status === "unsupported") return { kind: "unsupported" };
    if (answer.status === "cancelled") return { kind: "cancel" };
    const chosen = ordered.find((o) => o.label === answer.value);
    if (!chosen || chosen.value === "\u0000skip") return { kind: "skip" };
    return { kind: "value", value: field.type === "boolean" ? chosen.value === "true" : chosen.value };
  }
  const multi = multiChoicesOf(field);
  const hint = multi
    ? `one or more of: ${multi.map((c) => c.label).join(", ")} (comma separated)`
    : undefined;
  let problem: string | undefined;
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const placeholder = [
      problem ? `(${problem})` : undefined,
      field.default !== undefined
        ? `default: ${Array.isArray(field.default) ? field.default.join(", ") : String(field.default)}`
        : undefined,
      hint,
    ]
      .filter(Boolean)
      .join(" ");
    const answer = await ui.input(label, placeholder || undefined, ask);
    if (answer.status === "unsupported") return { kind: "unsupported" };
    if (answer.status === "cancelled" || signal?.aborted) return { kind: "cancel" };
    // Empty keeps the default (the SDK fills defaults into what is sent) or leaves it out.
    if (answer.value === "") {
      if (field.default !== undefined || !required) return { kind: "skip" };
      problem = "required";
      continue;
    }
    const parsed = parseAnswer(field, answer.value);
    if (parsed.isOk()) return { kind: "value", value: parsed.value };
    problem = parsed.error.message;
  }
  return { kind: "cancel" };
}

export interface ElicitationContext {
  server: string;
  ui: ExtensionUI;
  open: BrowserOpener;
}

async function formElicitation(
  params: Extract<ElicitRequest["params"], { requestedSchema: unknown }>,
  context: ElicitationContext,
  signal: AbortSignal | undefined,
): Promise<ElicitResult> {
  const { ui, server } = context;
  const schema = params.requestedSchema as { properties?: Record<string, Field>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const content: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    const outcome = await askField(ui, server, key, field, required.has(key), signal);
    if (outcome.kind === "unsupported") return { action: "decline" };
    if (outcome.kind === "cancel" || signal?.aborted) return { action: "cancel" };
    if (outcome.kind === "value") content[key] = outcome.value;
  }
  const summary = Object.entries(content)
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(", ") : String(value)}`)
    .join("\n");
  const review = await ui.confirm(
    `Send this to MCP server "${server}"?`,
    [params.message, summary || "(no values: the server's defaults apply)"].join("\n\n"),
    signal ? { signal } : undefined,
  );
  if (review.status === "unsupported") return { action: "decline" };
  if (review.status === "cancelled" || signal?.aborted) return { action: "cancel" };
  if (!review.value) return { action: "decline" };
  return { action: "accept", content: content as Record<string, string | number | boolean | string[]> };
}

async function urlElicitation(
  params: Extract<ElicitRequest["params"], { mode: "url" }>,
  context: ElicitationContext,
  signal: AbortSignal | undefined,
): Promise<ElicitResult> {
  let url: URL;
  try {
    url = new URL(params.url);
  } catch {
    return { action: "decline" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { action: "decline" };
  const answer = await context.ui.confirm(
    `MCP server "${context.server}" asks you to open ${url.host}`,
    `${params.message}\n\n${url.href}`,
    signal ? { signal } : undefined,
  );
  if (answer.status === "unsupported") return { action: "decline" };
  if (answer.status === "cancelled" || signal?.aborted) return { action: "cancel" };
  if (!answer.value) return { action: "decline" };
  const opened = await context.open(url);
  if (!opened) context.ui.notify(`Open ${url.href} to continue with MCP server "${context.server}".`, "info");
  return { action: "accept" };
}

/** Answers an elicitation/create request through the host's UI. */
export async function elicit(
  params: ElicitRequest["params"],
  context: ElicitationContext,
  signal?: AbortSignal,
): Promise<ElicitResult> {
  const { supports } = context.ui;
  if (!supports.confirm && !supports.input && !supports.select) return { action: "decline" };
  if (signal?.aborted) return { action: "cancel" };
  if (params.mode === "url") return urlElicitation(params, context, signal);
  return formElicitation(
    params as Extract<ElicitRequest["params"], { requestedSchema: unknown }>,
    context,
    signal,
  );
}
