// Messages (user, assistant, tool result) and the context a model call sends: the conversation
// as it is journaled, streamed and replayed.
import { type Static, type TSchema, type TUnion, Type } from "@sinclair/typebox";
import {
  ApiSchema,
  ImageContentSchema,
  ServerToolContentSchema,
  ServerToolNameSchema,
  TextContentSchema,
  ThinkingContentSchema,
  ToolCallSchema,
} from "./content.js";
import { AiErrorSchema } from "./errors.js";
import { literals, strict } from "./shape.js";
import { UsageSchema } from "./usage.js";

const Str = Type.String();
const Num = Type.Number();
const Opt = Type.Optional;

export const UserMessageSchema = strict(
  {
    role: Type.Literal("user"),
    content: Type.Union([Str, Type.Array(Type.Union([TextContentSchema, ImageContentSchema]))]),
    timestamp: Num,
    /**
     * Sent with one request only and never kept in the history (a reminder): providers place no
     * cache breakpoint on it, since the next request will not contain it.
     */
    synthetic: Opt(Type.Boolean()),
  },
  "A user message.",
);
export type UserMessage = Static<typeof UserMessageSchema>;

export const StopReasonSchema = literals([
  "stop",
  "length",
  "toolUse",
  "error",
  "aborted",
  "context_overflow",
]);
export type StopReason = Static<typeof StopReasonSchema>;

export const AssistantMessageSchema = strict(
  {
    role: Type.Literal("assistant"),
    content: Type.Array(
      Type.Union([TextContentSchema, ThinkingContentSchema, ToolCallSchema, ServerToolContentSchema]),
    ),
    api: ApiSchema,
    provider: Str,
    model: Str,
    usage: UsageSchema,
    stopReason: StopReasonSchema,
    /** Set when stopReason is error, aborted or context_overflow. */
    error: Opt(AiErrorSchema),
    responseId: Opt(Str),
    timestamp: Num,
  },
  "A model response.",
);
export type AssistantMessage = Static<typeof AssistantMessageSchema>;

export const ToolResultMessageSchema = strict(
  {
    role: Type.Literal("toolResult"),
    toolCallId: Str,
    toolName: Str,
    content: Type.Array(Type.Union([TextContentSchema, ImageContentSchema])),
    isError: Type.Boolean(),
    /** Structured, JSON-safe data for UIs; never sent to the model. */
    details: Opt(Type.Unknown()),
    timestamp: Num,
  },
  "A tool's result as the model received it.",
);
export type ToolResultMessage = Static<typeof ToolResultMessageSchema>;

export const MessageSchema: TUnion<
  [typeof UserMessageSchema, typeof AssistantMessageSchema, typeof ToolResultMessageSchema]
> = Type.Union([UserMessageSchema, AssistantMessageSchema, ToolResultMessageSchema]);
export type Message = Static<typeof MessageSchema>;

/** A tool as the model sees it; `parameters` is a JSON Schema (TypeBox or plain). */
export const ToolSchema = strict(
  {
    name: Str,
    description: Str,
    parameters: Type.Unsafe<TSchema>(Type.Object({})),
  },
  "A tool as the model sees it.",
);
export type Tool = Static<typeof ToolSchema>;

/** A server-side tool offered to one request (`Context.serverTools`). */
export const ServerToolRequestSchema = strict(
  {
    name: ServerToolNameSchema,
    /** At most this many uses within the reply. */
    maxUses: Opt(Num),
    /** Only these domains (no scheme; subdomains included). */
    allowedDomains: Opt(Type.Array(Str)),
    /** Never these domains (Anthropic only; OpenAI's web search has no block list). */
    blockedDomains: Opt(Type.Array(Str)),
  },
  "A server-side tool offered to one request.",
);
export type ServerToolRequest = Static<typeof ServerToolRequestSchema>;

/** What one model call sends: the system prompt, the conversation and the tools. */
export const ContextSchema = strict(
  {
    systemPrompt: Opt(Str),
    messages: Type.Array(MessageSchema),
    tools: Opt(Type.Array(ToolSchema)),
    /**
     * Server-side tools the provider may run within this reply (`model.serverTools` says which it
     * has; others are left out of the request).
     */
    serverTools: Opt(Type.Array(ServerToolRequestSchema)),
  },
  "What one model call sends.",
);
export type Context = Static<typeof ContextSchema>;
