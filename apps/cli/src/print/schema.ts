// The print-mode output contract, version 1: a JSON Schema (TypeBox) for every stream-json line,
// the json output and the stream-json input lines; the build writes it to dist/print.v1.schema.json
// and the line types print mode emits are derived from it, so the code and the schema agree. The
// messages, usage and errors in it are @keel/protocol's schemas, the ones Keel's types derive from.
// A change that breaks a script (a removed or renamed field, a new required one) is a new version.
import { TOOL_ACCESSES } from "@keel/extension-sdk";
import {
  AiErrorSchema,
  ImageContentSchema,
  MessageSchema,
  TextContentSchema,
  UsageSchema,
} from "@keel/protocol";
import { type Static, type TProperties, Type } from "@sinclair/typebox";

import { PRINT_SCHEMA_ID, PRINT_SCHEMA_VERSION } from "./version.js";

export { PRINT_SCHEMA_ID, PRINT_SCHEMA_VERSION };

const strict = <P extends TProperties>(properties: P, description: string) =>
  Type.Object(properties, { additionalProperties: false, description });
const Opt = Type.Optional;
const Num = Type.Number();
const Str = Type.String();

// --- the message vocabulary is @keel/protocol's; a run's errors add the kernel's own -------------

/** A run's error (the kernel's RunError): a model call's AiError, or the kernel's own. */
export const ErrorSchema = Type.Union([
  AiErrorSchema,
  strict(
    { type: Type.Union([Type.Literal("internal"), Type.Literal("journal")]), message: Str },
    "A bug in Keel (internal), or the journal could not be written (journal).",
  ),
]);

// --- stream-json lines ---------------------------------------------------------------------------

/** Every line names the session; a child agent's own events also name the agent. */
const base = {
  sessionId: Type.Union([Type.String(), Type.Null()], {
    description: "The session this run belongs to; null with --no-session (nothing is saved to resume).",
  }),
};
const agentMark = {
  agentId: Opt(Type.String({ description: "Set on a child agent's own event: which agent." })),
  agentTitle: Opt(Type.String({ description: "The child agent's title." })),
};
const line = <T extends string, P extends TProperties>(type: T, properties: P, description: string) =>
  strict({ type: Type.Literal(type), ...base, ...properties }, description);
const eventLine = <T extends string, P extends TProperties>(type: T, properties: P, description: string) =>
  line(type, { ...properties, ...agentMark }, description);

export const InitLineSchema = line(
  "init",
  {
    schemaVersion: Type.Literal(PRINT_SCHEMA_VERSION),
    model: Type.String({ description: "provider/id" }),
    tools: Type.Array(Str, { description: "The tools the model is offered, in order." }),
    cwd: Str,
  },
  "First line: the session, model and tools.",
);

const Denial = strict(
  {
    toolCallId: Str,
    toolName: Type.String({ description: "The identity judged: Bash, Edit, a catalog entry's group:name." }),
    input: Type.String({ description: "What it would have done, at most 200 characters." }),
    reason: Type.String({ description: "Why, as the model was told." }),
    by: Type.Union(["rule", "mode", "headless", "user", "policy"].map((b) => Type.Literal(b))),
    agentId: Opt(Type.String({ description: "Set for a call a child agent made." })),
  },
  "A tool call that did not run.",
);
const ChildUsage = strict({ agentId: Str, title: Str, usage: UsageSchema }, "What one child agent used.");
const ExternalUsage = strict(
  { source: Str, requests: Opt(Num), credits: Opt(Num), costUsd: Opt(Num) },
  "What an external service (web search, …) was used for.",
);

export const OUTCOMES = ["success", "max_turns", "aborted", "error", "context_overflow"] as const;

const AGENT_STATUSES = ["completed", "failed", "aborted", "budget", "max_turns", "interrupted"] as const;
const BackgroundAgentProperties = {
  agentId: Str,
  agentTitle: Str,
  status: Type.Union(
    AGENT_STATUSES.map((s) => Type.Literal(s)),
    { description: "How it ended: aborted when keel stopped it (stopped is then true)." },
  ),
  text: Type.String({ description: "Its final text (its report)." }),
  stopped: Type.Boolean({
    description: "keel stopped it: it was still running when --wait-children ran out (or keel was stopped).",
  }),
  agentSessionId: Type.String({
    description: "Its own session: keel --read-only -r <id> shows its transcript.",
  }),
  error: Opt(strict({ type: Str, message: Str }, "Why it failed.")),
};
const BackgroundAgent = strict(
  BackgroundAgentProperties,
  "A background agent that was running when the model's last turn ended, as it ended.",
);

export const ResultLineSchema = line(
  "result",
  {
    schemaVersion: Type.Literal(PRINT_SCHEMA_VERSION),
    isError: Type.Boolean({ description: "The run did not finish its task (exit code 1, 130, 129 or 143)." }),
    outcome: Type.Union(
      OUTCOMES.map((o) => Type.Literal(o)),
      { description: "How the run ended, for scripts: success (stop, or the output limit), or why not." },
    ),
    stopReason: Type.Union(
      ["stop", "length", "max_turns", "aborted", "error", "context_overflow"].map((r) => Type.Literal(r)),
    ),
    text: Type.String({ description: "The final assistant text." }),
    turns: Type.Integer(),
    durationMs: Num,
    usage: UsageSchema,
    cost: Type.Number({ description: "usage.cost.total, USD." }),
    totalCost: Type.Number({
      description: "cost plus the children's and the external services' costs, USD.",
    }),
    children: Opt(
      Type.Array(ChildUsage, { description: "Child agents that ran in this run (not in usage)." }),
    ),
    external: Opt(Type.Array(ExternalUsage, { description: "External services used in this run." })),
    backgroundAgents: Opt(
      Type.Array(BackgroundAgent, {
        description:
          "--output-format json: the background agents keel waited for at the end of the run (stream-json has an agent_result line for each instead).",
      }),
    ),
    permissionDenials: Type.Array(Denial, {
      description: "Every tool call of the run that was blocked, in order.",
    }),
    error: Opt(ErrorSchema),
  },
  "Last line of a run (and the whole json output): its outcome and the numbers a script needs.",
);

export const CommandLineSchema = line(
  "command",
  { name: Str, message: Str },
  'keel -p "/name args" ran a command instead of a prompt.',
);

const EVENT_LINES = [
  eventLine("message", { message: MessageSchema }, "A complete message (user, assistant, toolResult)."),
  eventLine(
    "text_delta",
    { contentIndex: Type.Integer(), delta: Str },
    "With --include-partial-messages: text as it streams (the message line follows).",
  ),
  eventLine(
    "thinking_delta",
    { contentIndex: Type.Integer(), delta: Str },
    "With --include-partial-messages: thinking as it streams.",
  ),
  eventLine("run_start", { prompt: Str }, "A run (one prompt) starts."),
  eventLine("turn_start", { turn: Type.Integer() }, "A turn (one model response and its tools) starts."),
  eventLine("turn_end", { turn: Type.Integer() }, "A turn ended."),
  eventLine(
    "tool_start",
    {
      toolCallId: Str,
      toolName: Str,
      args: Type.Record(Str, Type.Unknown()),
      summary: Type.String({ description: "The call in one line, as its tool describes it." }),
      access: Opt(
        Type.Union(
          TOOL_ACCESSES.map((a) => Type.Literal(a)),
          {
            description:
              "What the tool declares it may do: none, read, write, exec or network. Absent: it declares nothing (treated as the most dangerous kind).",
          },
        ),
      ),
    },
    "A tool call starts.",
  ),
  eventLine(
    "tool_progress",
    {
      toolCallId: Str,
      toolName: Str,
      text: Type.String({
        description: "What the tool has so far, as it reports it (a progress line, output).",
      }),
      details: Opt(
        Type.Unknown({
          description:
            "Structured progress where the tool gives it; MCP tools: { progress: { progress, total?, message? } }.",
        }),
      ),
    },
    "A running tool reported progress (MCP progress notifications, command output, a child agent's turn).",
  ),
  eventLine(
    "tool_end",
    { toolCallId: Str, toolName: Str, isError: Type.Boolean(), text: Str, details: Opt(Type.Unknown()) },
    "A tool call ended; text is what the model reads.",
  ),
  eventLine(
    "permission_denied",
    {
      toolCallId: Str,
      toolName: Str,
      input: Str,
      reason: Str,
      by: Type.Union(["rule", "mode", "headless", "user", "policy"].map((b) => Type.Literal(b))),
    },
    "A tool call was blocked and did not run (also one stderr line).",
  ),
  eventLine(
    "retry",
    { attempt: Type.Integer(), maxRetries: Type.Integer(), delayMs: Num, message: Str, error: ErrorSchema },
    "A model request failed and is retried after delayMs (also one stderr line).",
  ),
  eventLine(
    "compaction_start",
    {
      reason: Type.Union([Type.Literal("threshold"), Type.Literal("overflow"), Type.Literal("manual")]),
      tokensBefore: Num,
    },
    "The history is being summarised.",
  ),
  eventLine(
    "compaction_end",
    {
      reason: Type.Union([Type.Literal("threshold"), Type.Literal("overflow"), Type.Literal("manual")]),
      tokensBefore: Num,
      tokensAfter: Num,
      ok: Type.Boolean(),
      error: Opt(Str),
    },
    "Compaction ended.",
  ),
  eventLine("capability_notice", { text: Str }, "What the model was told about changed capabilities."),
  eventLine("recovery", { text: Str }, "What the model was told about an interrupted earlier run."),
  eventLine("status", { key: Str, text: Opt(Str) }, "An extension's status line (text absent: cleared)."),
  eventLine(
    "widget",
    { key: Str, lines: Opt(Type.Array(Str)) },
    "An extension's widget (lines absent: cleared).",
  ),
  eventLine(
    "notify",
    {
      message: Str,
      level: Type.Union([Type.Literal("info"), Type.Literal("warning"), Type.Literal("error")]),
    },
    "An extension's notification.",
  ),
  line(
    "agent_start",
    {
      agentId: Str,
      agentTitle: Str,
      agentSessionId: Type.String({ description: "The child's own session (a linked child session)." }),
      agentSessionFile: Opt(Str),
      background: Type.Boolean(),
    },
    "A child agent started; its own events follow marked with its agentId.",
  ),
  line(
    "agent_end",
    {
      agentId: Str,
      agentTitle: Str,
      status: Type.Union(
        ["running", "completed", "failed", "aborted", "budget", "max_turns", "interrupted"].map((s) =>
          Type.Literal(s),
        ),
      ),
      usage: UsageSchema,
      turns: Type.Integer(),
    },
    "A child agent ended, with what it used.",
  ),
  line(
    "agent_result",
    BackgroundAgentProperties,
    "At the end of a run, before its result line: a background agent keel waited for (--wait-children), with its report, or stopped.",
  ),
];

// --- --read-only ---------------------------------------------------------------------------------

const SessionHeader = {
  file: Str,
  cwd: Str,
  name: Opt(Str),
  notices: Type.Array(Str, { description: "What opening the session found (damage, newer entries)." }),
};
export const SessionLineSchema = line(
  "session",
  SessionHeader,
  "keel --read-only, stream-json: the session.",
);
export const SessionTranscriptSchema = line(
  "session",
  { ...SessionHeader, messages: Type.Array(MessageSchema) },
  "keel --read-only, json: the session and its conversation.",
);

export const StreamLineSchema = Type.Union(
  [InitLineSchema, ...EVENT_LINES, CommandLineSchema, ResultLineSchema, SessionLineSchema],
  {
    description:
      "One line of --output-format stream-json (SessionLine and message lines also of --read-only).",
  },
);

/** What --output-format json prints: one object. */
export const JsonOutputSchema = Type.Union([ResultLineSchema, CommandLineSchema, SessionTranscriptSchema], {
  description: "The one object of --output-format json.",
});

// --- --input-format stream-json -------------------------------------------------------------------

const InputContent = Type.Union([Str, Type.Array(TextContentSchema)], {
  description: "The prompt: a string, or text blocks joined by newlines. A /command runs the command.",
});
export const InputLineSchema = Type.Union(
  [
    strict({ type: Type.Literal("user"), content: InputContent }, "Keel's shape."),
    strict(
      {
        type: Type.Literal("user"),
        message: strict(
          { role: Opt(Type.Literal("user")), content: InputContent },
          "The user message, as Claude Code's stream-json input carries it.",
        ),
        session_id: Opt(Type.Unknown()),
        parent_tool_use_id: Opt(Type.Unknown()),
        uuid: Opt(Type.Unknown()),
      },
      "Claude Code's shape (`claude -p --input-format stream-json`), read as the same prompt.",
    ),
  ],
  { description: "One stdin line of --input-format stream-json: a user message; each one is a run." },
);

export type InitLine = Static<typeof InitLineSchema>;
export type ResultLine = Static<typeof ResultLineSchema>;
export type CommandLine = Static<typeof CommandLineSchema>;
export type StreamLine = Static<typeof StreamLineSchema>;
export type InputLine = Static<typeof InputLineSchema>;

/** Shared parts, written once in the document and referenced where they recur. */
const SHARED = {
  Message: MessageSchema,
  Usage: UsageSchema,
  Error: ErrorSchema,
  AiError: AiErrorSchema,
  PermissionDenial: Denial,
  TextBlock: TextContentSchema,
  ImageBlock: ImageContentSchema,
};

/** `node` with every recurring shared part (any copy of it, Optional or not) made a $ref. */
function withRefs(node: unknown, byJson: Map<string, string>, self?: string): unknown {
  if (Array.isArray(node)) return node.map((n) => withRefs(n, byJson, self));
  if (typeof node !== "object" || node === null) return node;
  const name = byJson.get(JSON.stringify(node));
  if (name !== undefined && name !== self) return { $ref: `#/definitions/${name}` };
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withRefs(v, byJson, self)]));
}

/**
 * The schema document: `definitions.StreamLine` validates each stream-json line (--read-only's
 * too), `definitions.JsonOutput` the json output, `definitions.InputLine` each stdin line of
 * --input-format stream-json.
 */
export function printSchema(): Record<string, unknown> {
  const byJson = new Map(Object.entries(SHARED).map(([name, schema]) => [JSON.stringify(schema), name]));
  const definitions: Record<string, unknown> = {
    StreamLine: withRefs(StreamLineSchema, byJson),
    JsonOutput: withRefs(JsonOutputSchema, byJson),
    InputLine: withRefs(InputLineSchema, byJson),
  };
  for (const [name, schema] of Object.entries(SHARED)) definitions[name] = withRefs(schema, byJson, name);
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: PRINT_SCHEMA_ID,
    title: `keel print-mode output, version ${PRINT_SCHEMA_VERSION}`,
    description:
      "Lines of keel -p --output-format stream-json, the object of --output-format json, and the stdin lines of --input-format stream-json.",
    definitions,
    anyOf: [{ $ref: "#/definitions/StreamLine" }, { $ref: "#/definitions/JsonOutput" }],
  };
}
