// stream-json lines: the init line, kernel events made into NDJSON objects, and the result line.
// Every line is plain JSON; text deltas are coalesced into one `message` line per message.
import { modelRef } from "@keel/ai";
import type { CodingAgent, CodingAgentEvent, RunSummary } from "@keel/coding-agent";

export interface InitLine {
  type: "init";
  sessionId: string;
  model: string;
  tools: string[];
  cwd: string;
}

export interface ResultLine {
  type: "result";
  text: string;
  usage: RunSummary["usage"];
  /** Total cost in USD (usage.cost.total). */
  cost: number;
  stopReason: RunSummary["stopReason"];
  turns: number;
  sessionId: string;
  durationMs: number;
  error?: { type: string; message: string };
  /** Child agents that ran during this run, each with its own usage (not in `usage`). */
  children?: { agentId: string; title: string; usage: RunSummary["usage"] }[];
  /** Every tool call the run did not make because it was blocked (a child agent's with its agentId). */
  permissionDenials: RunSummary["permissionDenials"];
}

export function initLine(agent: CodingAgent): InitLine {
  return {
    type: "init",
    sessionId: agent.sessionId,
    model: modelRef(agent.model()),
    tools: agent.toolNames(),
    cwd: agent.cwd,
  };
}

export function resultLine(summary: RunSummary, sessionId: string): ResultLine {
  return {
    type: "result",
    text: summary.text,
    usage: summary.usage,
    cost: summary.usage.cost.total,
    stopReason: summary.stopReason,
    turns: summary.turns,
    sessionId,
    durationMs: summary.durationMs,
    ...(summary.error ? { error: summary.error } : {}),
    ...(summary.children ? { children: summary.children } : {}),
    permissionDenials: summary.permissionDenials,
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

/** The NDJSON object for one kernel event, or undefined for events stream-json leaves out. */
export function eventLine(event: CodingAgentEvent): Record<string, unknown> | undefined {
  switch (event.type) {
    // Covered by the init and result lines.
    case "session_start":
    case "run_end":
    // Partial states: the complete message follows in its message_end.
    case "message_start":
    case "message_update":
    case "tool_update":
    // Diagnostics go to stderr; debug lines too, with --debug.
    case "diagnostic":
    case "debug":
      return undefined;
    case "message_end":
      return { type: "message", message: event.message };
    case "agent_event": {
      // A child's own events, marked with its id; its partial states are left out like ours.
      const inner = eventLine(event.event);
      return inner ? { ...inner, agentId: event.agentId, agentTitle: event.title } : undefined;
    }
    default:
      return { ...event };
  }
}
