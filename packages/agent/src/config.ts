// The loop's configuration and its three seams: the only places a host reaches into a run.
// Seams are awaited; one that throws fails only the request or tool call it was asked about.
import type {
  AssistantMessage,
  AssistantMessageEvent,
  Context,
  Model,
  StreamOptions,
  ToolCall,
} from "@keel/ai";
import type { AgentTool, AgentToolResult } from "./types.js";

/** Anything that streams one assistant message like @keel/ai `stream` (which never throws). */
export type AgentStreamFn = (
  model: Model,
  context: Context,
  options: StreamOptions,
) => AsyncIterable<AssistantMessageEvent> & { result(): Promise<AssistantMessage> };

export interface PrepareRequestInfo {
  turn: number;
  signal: AbortSignal;
}

/**
 * Returns the context to send for this one request. It gets a fresh copy (its own `messages`
 * array): append to it freely. What it returns is sent but never added to the history.
 * Message objects are shared with the history: replace them, do not mutate them.
 */
export type PrepareRequest = (context: Context, info: PrepareRequestInfo) => Promise<Context> | Context;

export interface ToolCallInfo {
  turn: number;
  tool: AgentTool;
  signal: AbortSignal;
}

export type BeforeToolCallDecision =
  | {
      action: "continue" /** Replacement arguments; validated again against the schema. */;
      args?: Record<string, unknown>;
    }
  | { action: "block" /** Sent to the model as the error result. */; reason: string };

/** Runs after validation, before the tool; sees the validated arguments (schema defaults filled in). */
export type BeforeToolCall = (
  call: ToolCall,
  info: ToolCallInfo,
) => Promise<BeforeToolCallDecision> | BeforeToolCallDecision;

/**
 * Runs after a tool executed (also when it failed or was aborted while running); not for calls
 * that never ran. `call.arguments` are the arguments it ran with. Return a result to replace it.
 */
export type AfterToolCall = (
  call: ToolCall,
  result: AgentToolResult,
  info: ToolCallInfo,
) => Promise<AgentToolResult | undefined> | AgentToolResult | undefined;

export interface AgentLoopConfig {
  model: Model;
  systemPrompt?: string;
  tools?: readonly AgentTool[];
  /** Default: @keel/ai `stream`. */
  streamFn?: AgentStreamFn;
  /** Passed to every model call; the loop adds its own abort signal. */
  streamOptions?: Omit<StreamOptions, "signal">;
  /** Turns per run; reaching it ends the run with `max_turns`. Default: no limit. */
  maxTurns?: number;
  /**
   * After an abort, how long a running tool may take to return before the loop records an aborted
   * result for it and moves on (a tool that ignores its signal must not hang the run). Default 5000.
   */
  toolAbortGraceMs?: number;
  prepareRequest?: PrepareRequest;
  beforeToolCall?: BeforeToolCall;
  afterToolCall?: AfterToolCall;
}
