// What the model and the user read about a child: its result (bounded, with where the rest is),
// the completion notice (~2,000 characters), a still-running answer, and the widget's lines.
import type { AgentRunResult } from "@keel/extension-sdk";

/** The SDK's usage shape (input, output, cache, cost), as a child's result carries it. */
export type Usage = AgentRunResult["usage"];

export function tokensOf(usage: Usage): number {
  return usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

export function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function money(usd: number): string {
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/** How it ended, as a phrase after the agent's name. */
export function ending(result: Pick<AgentRunResult, "status" | "turns" | "error">): string {
  switch (result.status) {
    case "completed":
      return "finished";
    case "failed":
      return `failed: ${result.error?.message ?? "unknown error"}`;
    case "aborted":
      return "was stopped before it finished";
    case "budget":
      return "stopped at its token/cost budget";
    case "max_turns":
      return `stopped at its turn limit (${result.turns} turns)`;
    case "interrupted":
      return `was interrupted: ${result.error?.message ?? "Keel stopped while it was running"}`;
  }
}

/** One line of figures: turns, tokens, cost, time. */
export function figures(result: Pick<AgentRunResult, "turns" | "usage" | "durationMs" | "model">): string {
  const parts = [
    `${result.turns} turn${result.turns === 1 ? "" : "s"}`,
    `${compact(tokensOf(result.usage))} tokens`,
    money(result.usage.cost.total),
  ];
  if (result.durationMs > 0) parts.push(`${(result.durationMs / 1000).toFixed(1)} s`);
  if (result.model) parts.push(result.model);
  return parts.join(", ");
}

export function transcriptPointer(result: Pick<AgentRunResult, "sessionId" | "sessionFile">): string {
  return result.sessionFile
    ? `Full transcript: keel -r ${result.sessionId} (read-only), file ${result.sessionFile}`
    : "No transcript was kept (the session is not journaled).";
}

/** `text` cut to `max` characters, saying how much was left out and where it is. */
export function bounded(text: string, max: number, whereTheRestIs: string): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… (${text.length - max} more characters; ${whereTheRestIs})`;
}

const PARTIAL = new Set(["aborted", "budget", "max_turns", "interrupted", "failed"]);

/** The whole answer: a foreground SpawnAgent's result, or GetAgentResult's. */
export function resultText(result: AgentRunResult, maxChars: number): string {
  const head = `Agent ${result.agentId} (${result.title}) ${ending(result)}. ${figures(result)}.`;
  const label = PARTIAL.has(result.status) ? "Its work so far" : "Its final message";
  const body = result.text.trim()
    ? `${label}:\n${bounded(result.text.trim(), maxChars, "the transcript has it all")}`
    : `${label}: (no text)`;
  return `${head}\n${body}\n${transcriptPointer(result)}`;
}

/** The persisted notice for a background child: bounded, pointing at the full result. */
export function noticeText(result: AgentRunResult, maxChars: number): string {
  const head = `Background agent ${result.agentId} (${result.title}) ${ending(result)}. ${figures(result)}.`;
  const tail = `GetAgentResult { "agent_id": "${result.agentId}" } returns the whole result. ${transcriptPointer(result)}`;
  const room = Math.max(200, maxChars - head.length - tail.length - 40);
  const text = result.text.trim();
  const body = text
    ? `${PARTIAL.has(result.status) ? "Work so far" : "Result"}:\n${bounded(text, room, "GetAgentResult has the rest")}`
    : "It left no text.";
  return `${head}\n${body}\n${tail}`;
}

export interface Activity {
  agentId: string;
  title: string;
  background: boolean;
  turns: number;
  tool?: string;
  usage?: Usage;
  startedAt: number;
}

/** The widget: one line per running child. */
export function widgetLines(running: readonly Activity[]): string[] | undefined {
  if (running.length === 0) return undefined;
  return running.map((a) => {
    const parts = [
      `${a.background ? "◇" : "◆"} ${a.title}`,
      a.tool ? `▸ ${a.tool}` : "working",
      `turn ${Math.max(a.turns, 1)}`,
      `${compact(a.usage ? tokensOf(a.usage) : 0)} tok`,
      money(a.usage?.cost.total ?? 0),
    ];
    return parts.join(" · ");
  });
}

/** GetAgentResult's answer while the child still runs. */
export function stillRunningText(a: Activity, waitedMs: number): string {
  const elapsed = ((Date.now() - a.startedAt) / 1000).toFixed(0);
  const doing = a.tool ? `running ${a.tool}` : "working";
  const waited = waitedMs > 0 ? ` after waiting ${(waitedMs / 1000).toFixed(1)} s` : "";
  return (
    `Agent ${a.agentId} (${a.title}) is still running${waited}: turn ${Math.max(a.turns, 1)}, ${doing}, ${elapsed} s so far, ` +
    `${compact(a.usage ? tokensOf(a.usage) : 0)} tokens. Its result will arrive as a notice when it ends; ` +
    "call GetAgentResult again with wait_ms to wait for it, or go on with other work."
  );
}
