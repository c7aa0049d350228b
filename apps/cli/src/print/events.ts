// stream-json lines: the init line, kernel events made into NDJSON objects, and the result line,
// each typed by the schema (schema.ts) and carrying the session id. Text deltas are coalesced
// into one `message` line per message unless partial messages were asked for.
import { modelRef } from "@keel/ai";
import type { CodingAgent, CodingAgentEvent, RunSummary } from "@keel/coding-agent";
import type { AgentRunResult, ExternalUsage } from "@keel/extension-sdk";
import type { CommandLine, InitLine, OUTCOMES, ResultLine, StreamLine } from "./schema.js";
import { PRINT_SCHEMA_VERSION } from "./version.js";

export type { CommandLine, InitLine, ResultLine, StreamLine } from "./schema.js";

export interface LineOptions {
  /** --include-partial-messages: text and thinking deltas as lines of their own. */
  partial?: boolean;
}

/** The session id lines carry: null with --no-session, where nothing is saved to resume. */
export function printedSessionId(agent: CodingAgent): string | null {
  return agent.sessionFile ? agent.sessionId : null;
}

export function initLine(agent: CodingAgent): InitLine {
  return {
    type: "init",
    sessionId: printedSessionId(agent),
    schemaVersion: PRINT_SCHEMA_VERSION,
    model: modelRef(agent.model()),
    tools: agent.toolNames(),
    cwd: agent.cwd,
  };
}

export function commandLine(sessionId: string | null, name: string, message: string): CommandLine {
  return { type: "command", sessionId, name, message };
}

type Outcome = (typeof OUTCOMES)[number];

/** The run's outcome for scripts: a run that ended at the output limit still finished. */
function outcomeOf(stopReason: RunSummary["stopReason"]): Outcome {
  return stopReason === "stop" || stopReason === "length" ? "success" : stopReason;
}

/** External usage the run added: `after` minus `before`, per source (usageBreakdown is cumulative). */
export function externalSince(
  before: readonly ExternalUsage[],
  after: readonly ExternalUsage[],
): ExternalUsage[] {
  const earlier = new Map(before.map((u) => [u.source, u]));
  const out: ExternalUsage[] = [];
  for (const now of after) {
    const was = earlier.get(now.source);
    const delta: ExternalUsage = { source: now.source };
    for (const key of ["requests", "credits", "costUsd"] as const) {
      const d = (now[key] ?? 0) - (was?.[key] ?? 0);
      if (now[key] !== undefined && d !== 0) delta[key] = d;
    }
    if (Object.keys(delta).length > 1) out.push(delta);
  }
  return out;
}

/** A background agent as the end of a run reports it. */
export type BackgroundAgent = Omit<Extract<StreamLine, { type: "agent_result" }>, "type" | "sessionId">;

/** Keeps this much of a tool's progress text per line (the whole output comes with tool_end). */
const PROGRESS_CHARS = 4_000;

export function backgroundAgent(result: AgentRunResult, stopped: boolean): BackgroundAgent {
  return {
    agentId: result.agentId,
    agentTitle: result.title,
    status: result.status,
    text: result.text,
    stopped,
    agentSessionId: result.sessionId,
    ...(result.error ? { error: { type: result.error.type, message: result.error.message } } : {}),
  };
}

export function agentResultLine(sessionId: string | null, agent: BackgroundAgent): StreamLine {
  return { type: "agent_result", sessionId, ...agent };
}

export function resultLine(
  summary: RunSummary,
  sessionId: string | null,
  external: readonly ExternalUsage[] = [],
  backgroundAgents: readonly BackgroundAgent[] = [],
): ResultLine {
  const outcome = outcomeOf(summary.stopReason);
  const childCost = (summary.children ?? []).reduce((s, c) => s + c.usage.cost.total, 0);
  const externalCost = external.reduce((s, e) => s + (e.costUsd ?? 0), 0);
  return {
    type: "result",
    sessionId,
    schemaVersion: PRINT_SCHEMA_VERSION,
    isError: outcome !== "success",
    outcome,
    stopReason: summary.stopReason,
    text: summary.text,
    turns: summary.turns,
    durationMs: summary.durationMs,
    usage: summary.usage,
    cost: summary.usage.cost.total,
    totalCost: summary.usage.cost.total + childCost + externalCost,
    ...(summary.children && summary.children.length > 0 ? { children: summary.children } : {}),
    ...(external.length > 0 ? { external: [...external] } : {}),
    ...(backgroundAgents.length > 0 ? { backgroundAgents: [...backgroundAgents] } : {}),
    permissionDenials: summary.permissionDenials,
    ...(summary.error ? { error: summary.error } : {}),
  };
}

/** The stderr line for a blocked tool call (also a child agent's), or undefined for other events. */
export function deniedLine(event: CodingAgentEvent): string | undefined {
  const inner = event.type === "agent_event" ? event.event : event;
  if (inner.type !== "permission_denied") return undefined;
  const who = event.type === "agent_event" ? `agent ${event.title}: ` : "";
  return `${who}denied ${inner.toolName} (${inner.input}) by ${inner.by}: ${inner.reason}`;
}

const delay = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

/** The stderr line for a model request about to be retried (also a child agent's): the schedule, and why. */
export function retryLine(event: CodingAgentEvent): string | undefined {
  const inner = event.type === "agent_event" ? event.event : event;
  if (inner.type !== "retry") return undefined;
  const who = event.type === "agent_event" ? `agent ${event.title}: ` : "";
  return `${who}retry ${inner.attempt}/${inner.maxRetries} in ${delay(inner.delayMs)}: ${inner.message}`;
}

/** The stream-json line for one kernel event, or undefined for events stream-json leaves out. */
export function eventLine(
  event: CodingAgentEvent,
  sessionId: string | null,
  options: LineOptions = {},
): StreamLine | undefined {
  const s = { sessionId };
  switch (event.type) {
    // Covered by the init and result lines.
    case "session_start":
    case "run_end":
    // Partial states: the complete message follows in its message_end.
    case "message_start":
    // Diagnostics go to stderr; debug lines too, with --debug.
    case "diagnostic":
    case "debug":
      return undefined;
    case "message_update": {
      const e = event.event;
      if (!options.partial || (e.type !== "text_delta" && e.type !== "thinking_delta")) return undefined;
      return { type: e.type, ...s, contentIndex: e.contentIndex, delta: e.delta };
    }
    case "message_end":
      return { type: "message", ...s, message: event.message };
    case "run_start":
      return { type: "run_start", ...s, prompt: event.prompt };
    case "turn_start":
    case "turn_end":
      return { type: event.type, ...s, turn: event.turn };
    case "tool_start":
      return {
        type: "tool_start",
        ...s,
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        args: event.args,
        summary: event.summary,
        ...(event.access ? { access: event.access } : {}),
      };
    case "tool_update":
      return {
        type: "tool_progress",
        ...s,
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        text: event.text.length > PROGRESS_CHARS ? `…${event.text.slice(-PROGRESS_CHARS)}` : event.text,
        ...(event.details !== undefined ? { details: event.details } : {}),
      };
    case "tool_end":
      return {
        type: "tool_end",
        ...s,
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        isError: event.isError,
        text: event.text,
        ...(event.details !== undefined ? { details: event.details } : {}),
      };
    case "permission_denied":
      return {
        type: "permission_denied",
        ...s,
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        input: event.input,
        reason: event.reason,
        by: event.by,
      };
    case "retry":
      return {
        type: "retry",
        ...s,
        attempt: event.attempt,
        maxRetries: event.maxRetries,
        delayMs: event.delayMs,
        message: event.message,
        error: event.error,
      };
    case "compaction_start":
      return { type: "compaction_start", ...s, reason: event.reason, tokensBefore: event.tokensBefore };
    case "compaction_end":
      return {
        type: "compaction_end",
        ...s,
        reason: event.reason,
        tokensBefore: event.tokensBefore,
        tokensAfter: event.tokensAfter,
        ok: event.ok,
        ...(event.error !== undefined ? { error: event.error } : {}),
      };
    case "capability_notice":
    case "recovery":
      return { type: event.type, ...s, text: event.text };
    case "status":
      return {
        type: "status",
        ...s,
        key: event.key,
        ...(event.text !== undefined ? { text: event.text } : {}),
      };
    case "widget":
      return {
        type: "widget",
        ...s,
        key: event.key,
        ...(event.lines !== undefined ? { lines: event.lines } : {}),
      };
    case "notify":
      return { type: "notify", ...s, message: event.message, level: event.level };
    case "agent_start":
      return {
        type: "agent_start",
        ...s,
        agentId: event.agentId,
        agentTitle: event.title,
        agentSessionId: event.sessionId,
        ...(event.sessionFile !== undefined ? { agentSessionFile: event.sessionFile } : {}),
        background: event.background,
      };
    case "agent_end":
      return {
        type: "agent_end",
        ...s,
        agentId: event.agentId,
        agentTitle: event.title,
        status: event.status as Extract<StreamLine, { type: "agent_end" }>["status"],
        usage: event.usage,
        turns: event.turns,
      };
    case "agent_event": {
      // A child's own events, marked with its id, in the parent's session; its partial states
      // follow the same rule as ours. Children start no agents, so no agent line is nested.
      const inner = eventLine(event.event, sessionId, options);
      if (!inner || inner.type === "agent_start" || inner.type === "agent_end") return inner;
      return { ...inner, agentId: event.agentId, agentTitle: event.title } as StreamLine;
    }
  }
}
