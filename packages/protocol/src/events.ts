// The events of one streamed model reply: `start`, the text / thinking / tool-call block events,
// visible retries, and exactly one `done` or `error` at the end; each carries the growing message.
import { type Static, type TProperties, Type } from "@sinclair/typebox";
import { ToolCallSchema } from "./content.js";
import { AiErrorSchema } from "./errors.js";
import { AssistantMessageSchema } from "./messages.js";
import { literals, strict } from "./shape.js";

const Str = Type.String();
const Int = Type.Integer();

export const DoneReasonSchema = literals(["stop", "length", "toolUse"]);
export type DoneReason = Static<typeof DoneReasonSchema>;
export const ErrorReasonSchema = literals(["error", "aborted", "context_overflow"]);
export type ErrorReason = Static<typeof ErrorReasonSchema>;

/** The growing message every event but the last two carries. (Named, so declarations refer to it.) */
export type PartialMessageProperty = { partial: typeof AssistantMessageSchema };
const partial: PartialMessageProperty = { partial: AssistantMessageSchema };
/** The final message the `done` and `error` events carry. */
export type FinalMessageProperty = { message: typeof AssistantMessageSchema };
const final: FinalMessageProperty = { message: AssistantMessageSchema };
/** The error a `retry` and an `error` event carry. */
export type ErrorProperty = { error: typeof AiErrorSchema };
const error: ErrorProperty = { error: AiErrorSchema };
const event = <T extends string, P extends TProperties>(type: T, properties: P, description: string) =>
  strict({ type: Type.Literal(type), ...properties }, description);
const block = <T extends string, P extends TProperties>(type: T, properties: P, description: string) =>
  event(type, { contentIndex: Int, ...properties, ...partial }, description);

export const AssistantMessageEventSchema = Type.Union([
  event("start", partial, "The reply started."),
  block("text_start", {}, "A text block started at contentIndex."),
  block("text_delta", { delta: Str }, "More text of the block."),
  block("text_end", { content: Str }, "The text block ended; content is its whole text."),
  block("thinking_start", {}, "A thinking block started at contentIndex."),
  block("thinking_delta", { delta: Str }, "More thinking of the block."),
  block("thinking_end", { content: Str }, "The thinking block ended; content is its whole text."),
  block("toolcall_start", {}, "A tool call started at contentIndex."),
  block("toolcall_delta", { delta: Str }, "More of the call's JSON arguments, as they stream."),
  block("toolcall_end", { toolCall: ToolCallSchema }, "The tool call ended, its arguments parsed."),
  /** A failed attempt that will be retried after `delayMs` (nothing was streamed yet); `maxRetries` is the policy's bound. */
  event(
    "retry",
    { attempt: Int, maxRetries: Int, delayMs: Type.Number(), ...error },
    "A failed attempt that will be retried after delayMs.",
  ),
  event("done", { reason: DoneReasonSchema, ...final }, "The reply ended normally."),
  event(
    "error",
    { reason: ErrorReasonSchema, ...error, ...final },
    "The reply ended in an error; message holds what streamed.",
  ),
]);
export type AssistantMessageEvent = Static<typeof AssistantMessageEventSchema>;
