// The hook vocabulary. Naming states the composition rule: `before*` hooks are policies or
// transforms (run in order, each sees the previous one's output; a throw or a missed deadline
// blocks); every other hook observes (a throw is reported once and the run goes on).
import type { AssistantMessage, Message, Usage } from "@keel/protocol";
import type { ToolResult } from "./tools.js";

export type RunStopReason = "stop" | "length" | "max_turns" | "aborted" | "error" | "context_overflow";

export interface SessionStartEvent {
  /** "branch": the head moved (rewind, /tree); session state may differ, redraw from it. */
  reason: "new" | "resume" | "fork" | "branch";
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
export interface ModelResponseStartEvent {
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
  /**
   * The tool that runs: a resident tool's name, or for a catalog entry reached through
   * ExecuteTool its identity `group:name` (and `args` are the entry's own arguments).
   */
  toolName: string;
  args: Record<string, unknown>;
  /** Set when the call goes through ExecuteTool to a catalog entry. */
  via?: "ExecuteTool";
  /** Set when a child agent makes the call. */
  agent?: { agentId: string; title: string };
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
export interface CompactionEvent {
  reason: "threshold" | "overflow" | "manual";
  tokensBefore: number;
  tokensAfter: number;
}
export interface SessionShutdownEvent {
  /** exit: the process ends; fork / switch: another session takes over; reload: extensions reload. */
  reason: "exit" | "reload" | "fork" | "switch";
}

/** The third argument of every hook: aborted when the host stops waiting (deadline, abort, shutdown). */
export interface HookContext {
  signal: AbortSignal;
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

// Methods, not function-typed properties: a definition typed by its own schemas must still be
// assignable to the general ExtensionDefinition the host takes.
export interface Hooks<Rt> {
  sessionStart?(event: SessionStartEvent, runtime: Rt, context: HookContext): void | Promise<void>;
  beforeAgentStart?(
    event: BeforeAgentStartEvent,
    runtime: Rt,
    context: HookContext,
  ): BeforeAgentStartResult | void | Promise<BeforeAgentStartResult | void>;
  runStart?(event: RunStartEvent, runtime: Rt, context: HookContext): void | Promise<void>;
  turnStart?(event: TurnStartEvent, runtime: Rt, context: HookContext): void | Promise<void>;
  beforeModelCall?(
    event: BeforeModelCallEvent,
    runtime: Rt,
    context: HookContext,
  ): BeforeModelCallResult | void | Promise<BeforeModelCallResult | void>;
  /**
   * The model's response began to arrive (so its request is out): work that must not delay a
   * request — loading a client, starting servers — can start here. Once per model call.
   */
  modelResponseStart?(
    event: ModelResponseStartEvent,
    runtime: Rt,
    context: HookContext,
  ): void | Promise<void>;
  afterModelCall?(event: AfterModelCallEvent, runtime: Rt, context: HookContext): void | Promise<void>;
  messageEnd?(event: MessageEndEvent, runtime: Rt, context: HookContext): void | Promise<void>;
  beforeToolCall?(
    event: ToolCallEvent,
    runtime: Rt,
    context: HookContext,
  ): BeforeToolCallResult | void | Promise<BeforeToolCallResult | void>;
  afterToolCall?(
    event: AfterToolCallEvent,
    runtime: Rt,
    context: HookContext,
  ): AfterToolCallResult | void | Promise<AfterToolCallResult | void>;
  turnEnd?(event: TurnEndEvent, runtime: Rt, context: HookContext): void | Promise<void>;
  runEnd?(event: RunEndEvent, runtime: Rt, context: HookContext): void | Promise<void>;
  runError?(event: RunErrorEvent, runtime: Rt, context: HookContext): void | Promise<void>;
  /** After the history was compacted (a notice persisted now follows the summary). */
  compaction?(event: CompactionEvent, runtime: Rt, context: HookContext): void | Promise<void>;
  sessionShutdown?(event: SessionShutdownEvent, runtime: Rt, context: HookContext): void | Promise<void>;
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
  "modelResponseStart",
  "afterModelCall",
  "messageEnd",
  "beforeToolCall",
  "afterToolCall",
  "turnEnd",
  "runEnd",
  "runError",
  "compaction",
  "sessionShutdown",
];
