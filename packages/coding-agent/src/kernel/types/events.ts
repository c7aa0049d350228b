// The events a UI renders (agent-loop events pass through with their own `type`), JSON-safe.
import type { AiError, AssistantMessageEvent, Message, Usage } from "@keel/ai";
import type { Diagnostic, ToolAccess } from "@keel/extension-sdk";
import type { PermissionDenialSource, RunSummary } from "./runs.js";

/** What a front end shows of a tool call: its one line, and what it may do (absent: undeclared). */
export interface ToolCallInfo {
  summary: string;
  access?: ToolAccess;
}

export type CompactionReason = "threshold" | "overflow" | "manual";

/** Events a UI renders. Agent-loop events pass through with their own `type`. */
export type CodingAgentEvent =
  | { type: "session_start"; sessionId: string; sessionFile?: string; model: string; tools: string[] }
  | { type: "run_start"; prompt: string }
  | { type: "turn_start"; turn: number }
  | { type: "message_start"; message: Message }
  | { type: "message_update"; message: Message; event: AssistantMessageEvent }
  | { type: "message_end"; message: Message }
  /**
   * A tool call starts: `summary` is its one line as the tool describes it, `access` what it
   * may do as declared (absent: undeclared).
   */
  | {
      type: "tool_start";
      toolCallId: string;
      toolName: string;
      args: Record<string, unknown>;
      summary: string;
      access?: ToolAccess;
    }
  /** A tool's progress: what it has so far (`text`), and its structured details when it gives any. */
  | { type: "tool_update"; toolCallId: string; toolName: string; text: string; details?: unknown }
  | {
      type: "tool_end";
      toolCallId: string;
      toolName: string;
      isError: boolean;
      text: string;
      details?: unknown;
    }
  | { type: "turn_end"; turn: number }
  | { type: "run_end"; summary: RunSummary }
  | { type: "compaction_start"; reason: CompactionReason; tokensBefore: number }
  | {
      type: "compaction_end";
      reason: CompactionReason;
      tokensBefore: number;
      tokensAfter: number;
      ok: boolean;
      error?: string;
    }
  | { type: "capability_notice"; text: string }
  | { type: "recovery"; text: string }
  | { type: "diagnostic"; diagnostic: Diagnostic }
  | { type: "status"; key: string; text: string | undefined }
  | { type: "widget"; key: string; lines: string[] | undefined }
  | { type: "notify"; message: string; level: "info" | "warning" | "error" }
  /** A model request failed and is retried after `delayMs` (attempt N of at most `maxRetries`). */
  | { type: "retry"; attempt: number; maxRetries: number; delayMs: number; message: string; error: AiError }
  /** A tool call blocked by the permission gate or an extension's policy (it did not run). */
  | {
      type: "permission_denied";
      toolCallId: string;
      toolName: string;
      input: string;
      reason: string;
      by: PermissionDenialSource;
    }
  /** A child agent's own event, as it happens (its tool calls, text, approvals asked). */
  | { type: "agent_event"; agentId: string; title: string; event: CodingAgentEvent }
  /** A child agent started or ended; `toolCallId`: the parent's call that started it, when one did. */
  | {
      type: "agent_start";
      agentId: string;
      title: string;
      sessionId: string;
      sessionFile?: string;
      background: boolean;
      toolCallId?: string;
    }
  | { type: "agent_end"; agentId: string; title: string; status: string; usage: Usage; turns: number }
  /** A line of an extension's (or the kernel's) debug log. */
  | { type: "debug"; source: string; message: string };
