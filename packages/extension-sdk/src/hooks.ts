// The hook vocabulary. Naming states the composition rule: `before*` hooks are policies or
// transforms (run in order, each sees the previous one's output; a throw or a missed deadline
// blocks); every other hook observes (a throw is reported once and the run goes on).
import type { AssistantMessage, Message, Usage } from "@keel/ai";
import type { ToolResult } from "./tools.js";

export type RunStopReason = "stop" | "length" | "max_turns" | "aborted" | "error" | "context_overflow";

export interface SessionStartEvent {
  reason: "new" | "resume" | "fork";
  sessionId: string;
}
export interface BeforeAgentStartEvent {
  prompt: string;
}
export interface RunStartEvent {
  prompt: string;
}
export interface TurnStartEvent {
  turn: number;
}
export interface BeforeModelCallEvent {
  turn: number;
}
export interface AfterModelCallEvent {
  turn: number;
  message: AssistantMessage;
}
export interface MessageEndEvent {
  message: Message;
}
export interface ToolCallEvent {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
}
export interface AfterToolCallEvent extends ToolCallEvent {
  result: ToolResult;
}
export interface TurnEndEvent {
  turn: number;
  message: AssistantMessage;
}
export interface RunEndEvent {
  stopReason: RunStopReason;
  turns: number;
  usage: Usage;
  durationMs: number;
  /** JSON-safe description of the failure, when the run failed. */
  error?: { type: string; message: string };
}
export interface RunErrorEvent {
  error: { type: string; message: string };
  stopReason: RunStopReason;
}
export interface SessionShutdownEvent {
  reason: "exit" | "reload" | "switch";
}

/** beforeAgentStart may rewrite the prompt that starts a run. */
export type BeforeAgentStartResult = { prompt?: string } | undefined;
/** Text added for this one request only, as a trailing synthetic user message. Never persisted. */
export type BeforeModelCallResult = { context?: string } | undefined;
export type BeforeToolCallResult =
  | { action: "continue"; args?: Record<string, unknown> }
  | { action: "block"; reason: string }
  | undefined;
export type AfterToolCallResult = { result?: ToolResult } | undefined;

type Hook<E, R, Rt> = (event: E, runtime: Rt) => R | Promise<R>;

export interface Hooks<Rt> {
  sessionStart?: Hook<SessionStartEvent, void, Rt>;
  beforeAgentStart?: Hook<BeforeAgentStartEvent, BeforeAgentStartResult | void, Rt>;
  runStart?: Hook<RunStartEvent, void, Rt>;
  turnStart?: Hook<TurnStartEvent, void, Rt>;
  beforeModelCall?: Hook<BeforeModelCallEvent, BeforeModelCallResult | void, Rt>;
  afterModelCall?: Hook<AfterModelCallEvent, void, Rt>;
  messageEnd?: Hook<MessageEndEvent, void, Rt>;
  beforeToolCall?: Hook<ToolCallEvent, BeforeToolCallResult | void, Rt>;
  afterToolCall?: Hook<AfterToolCallEvent, AfterToolCallResult | void, Rt>;
  turnEnd?: Hook<TurnEndEvent, void, Rt>;
  runEnd?: Hook<RunEndEvent, void, Rt>;
  runError?: Hook<RunErrorEvent, void, Rt>;
  sessionShutdown?: Hook<SessionShutdownEvent, void, Rt>;
}

export type HookName = keyof Hooks<unknown>;

/**
 * Hooks whose failure blocks (fail closed): a throwing beforeToolCall blocks the call, a throwing
 * beforeAgentStart refuses the run. A failing beforeModelCall only loses its context for that
 * request (reported once): blocking the model call would turn a reminder bug into a dead session.
 */
export const POLICY_HOOKS: readonly HookName[] = ["beforeAgentStart", "beforeToolCall"];

export const HOOK_NAMES: readonly HookName[] = [
  "sessionStart",
  "beforeAgentStart",
  "runStart",
  "turnStart",
  "beforeModelCall",
  "afterModelCall",
  "messageEnd",
  "beforeToolCall",
  "afterToolCall",
  "turnEnd",
  "runEnd",
  "runError",
  "sessionShutdown",
];
