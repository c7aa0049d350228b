// What the loop tells the world (events) and what a run returns (RunResult).
// Everything here is plain JSON: events cross process boundaries (stream-json, subagents, RPC).
import type {
  AiError,
  AssistantMessage,
  AssistantMessageEvent,
  Message,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "@keel/ai";
import type { AgentToolResult } from "./types.js";

/** Why a run ended. `stop` / `length` come from the model's last message. */
export type AgentStopReason = "stop" | "length" | "max_turns" | "aborted" | "error" | "context_overflow";

/**
 * Why a run failed. Provider failures are the provider's `AiError`; `internal` means a seam or a
 * custom stream function threw (a bug in the host, reported instead of crashing the run).
 */
export type AgentRunError = AiError | { type: "internal"; message: string };

export interface RunResult {
  stopReason: AgentStopReason;
  /** Turns started in this run (a turn is one model response plus the tool batch it asked for). */
  turns: number;
  /** Summed over every assistant message of this run, failed ones included. */
  usage: Usage;
  /** Set when stopReason is error, aborted or context_overflow. */
  error?: AgentRunError;
  /** The messages this run added to the history, in order. */
  messages: Message[];
  /** Steering and follow-up messages queued during the run that never reached the model. */
  unsent: Message[];
}

/**
 * The loop's events, in the order they happen for one turn:
 * turn_start → (message_start/end for the user messages it delivers) → message_start →
 * message_update* → message_end (assistant) → per tool call: tool_execution_start →
 * tool_execution_update* → tool_execution_end → message_start/end (its toolResult, in call order)
 * → turn_end. A run is wrapped in agent_start … agent_end.
 *
 * `message` in assistant start/update events is the live partial the provider is building: read it,
 * do not keep or mutate it (message_end carries the final message).
 */
export type AgentEvent =
  | { type: "agent_start" }
  | { type: "turn_start"; turn: number }
  | { type: "message_start"; message: Message }
  | { type: "message_update"; message: AssistantMessage; assistantEvent: AssistantMessageEvent }
  | { type: "message_end"; message: Message }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: Record<string, unknown> }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; partial: AgentToolResult }
  | {
      type: "tool_execution_end";
      toolCallId: string;
      toolName: string;
      result: AgentToolResult;
      isError: boolean;
    }
  | { type: "turn_end"; turn: number; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: "agent_end"; result: RunResult };

/** Called synchronously, in order. A returned promise is not awaited (its rejection is reported). */
export type AgentEventListener = (event: AgentEvent) => void | Promise<void>;

/** Expected failures of the Agent's methods, as tagged values. */
export type AgentError = { type: "busy"; message: string } | { type: "not_running"; message: string };

/** What `prompt`, `steer` and `followUp` accept. */
export type AgentInput = string | UserMessage;
