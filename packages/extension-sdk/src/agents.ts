// Child agents a tool can run (subagents): what to ask for, the handle that comes back, and the
// result, which is plain JSON so it can be journaled and sent across processes.
import type { Usage } from "@keel/protocol";
import type { RunStopReason } from "./hooks.js";

export interface RunAgentOptions {
  /** The child's task: its first user message. */
  prompt: string;
  /** Added to the child's system prompt (an agent definition's body). */
  instructions?: string;
  /**
   * Which of the parent's tools the child gets. `allow`: only these (names, catalog toolRefs or
   * groups); `exclude`: all but these. The host always removes tools the child must not have.
   */
  tools?: { allow?: string[]; exclude?: string[] };
  /** `provider/id`; default the parent's model. */
  model?: string;
  /** Shown in the UI and in approval dialogs ("reviewer: check the diff"). */
  title?: string;
  /** A stable id for the child (letters, digits, `-`, `_`); the host makes one when absent. */
  agentId?: string;
  /**
   * Background: the child is not aborted with the tool call that started it, only with the
   * session (or its own `abort()`). Default false.
   */
  detached?: boolean;
  /** Turn limit; the child stops and returns its partial work, saying so. */
  maxTurns?: number;
  /** Token / cost budget over the child's whole run; same stopping rule as `maxTurns`. */
  budget?: { maxTokens?: number; maxCostUsd?: number };
  /** Called with what the child is doing (for widgets and progress updates). */
  onActivity?: (activity: AgentActivity) => void;
  /**
   * Start from the parent's exact system prompt and tool list, so the parent's cached prefix
   * serves the child's first request: `instructions` then open the child's first message instead
   * of ending its system prompt, and the tools it may not use stay listed but are refused when
   * called. Honoured when the child runs on the parent's model with no `tools.allow` list (a
   * narrowed list, or another model, cannot share the prefix); `AgentRun.sharesParentPrefix`
   * says whether it was.
   */
  shareParentPrefix?: boolean;
}

export type AgentActivity =
  | { type: "turn_start"; turn: number }
  | { type: "tool_start"; toolName: string; summary: string }
  | { type: "tool_end"; toolName: string; isError: boolean }
  | { type: "text"; text: string }
  | { type: "usage"; usage: Usage; turns: number };

/**
 * How a child ended. `budget` and `max_turns`: stopped at its limit with partial work;
 * `interrupted`: it was running when its session closed, or when the parent process died (seen
 * after a resume). `aborted`: stopped on purpose (Esc, `run.abort()`).
 */
export type AgentRunStatus =
  | "running"
  | "completed"
  | "failed"
  | "aborted"
  | "budget"
  | "max_turns"
  | "interrupted";

export interface AgentRunResult {
  agentId: string;
  title: string;
  status: Exclude<AgentRunStatus, "running">;
  stopReason: RunStopReason | "budget" | "interrupted";
  /** The child's final text (its last assistant message), whole. */
  text: string;
  turns: number;
  usage: Usage;
  durationMs: number;
  model: string;
  sessionId: string;
  /** The child's journal; undefined for ephemeral sessions. */
  sessionFile?: string;
  error?: { type: string; message: string };
}

export interface AgentRun {
  readonly agentId: string;
  readonly title: string;
  readonly sessionId: string;
  readonly sessionFile: string | undefined;
  /** The child started from the parent's exact system prompt and tools (see `shareParentPrefix`). */
  readonly sharesParentPrefix: boolean;
  status(): AgentRunStatus;
  /** Settles when the child ends, however it ends; never rejects. */
  readonly result: Promise<AgentRunResult>;
  abort(): void;
}

export type RunAgentError =
  /** The host's concurrency cap is reached; `running` says what runs now. */
  | { type: "capacity"; message: string; limit: number; running: { agentId: string; title: string }[] }
  | { type: "invalid"; message: string }
  | { type: "not_allowed"; message: string }
  | { type: "closed"; message: string };

export type RunAgentOutcome = { ok: true; run: AgentRun } | { ok: false; error: RunAgentError };

/** What the parent's journal knows of a child (also after a resume). */
export interface AgentRecord {
  agentId: string;
  title: string;
  sessionId: string;
  sessionFile?: string;
  /** The tool call that started it. */
  toolCallId?: string;
  startedAt: string;
  status: AgentRunStatus;
  /** Set once it ended. */
  result?: AgentRunResult;
}
