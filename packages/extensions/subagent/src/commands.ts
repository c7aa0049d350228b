// /agents: the session's children (running, then ended, with their session ids), the agents that
// can be started, `/agents <id>` for one child's result and transcript, `/agents stop <id>`.
import type { AgentRecord, CommandResult } from "@keel/extension-sdk";
import type { SubagentRuntime } from "./children.js";
import { bounded, compact, ending, figures, money, tokensOf, transcriptPointer } from "./report.js";

const DETAIL_CHARS = 2_000;

function runningLine(record: AgentRecord, runtime: SubagentRuntime): string {
  const live = runtime.instance.live.get(record.agentId)?.activity;
  if (!live) return `  ${record.agentId}  ${record.title} · running elsewhere · session ${record.sessionId}`;
  return [
    `  ${record.agentId}  ${record.title}`,
    live.background ? "background" : "foreground",
    live.tool ? `▸ ${live.tool}` : "working",
    `turn ${Math.max(live.turns, 1)}`,
    `${compact(live.usage ? tokensOf(live.usage) : 0)} tok`,
    money(live.usage?.cost.total ?? 0),
    `session ${record.sessionId}`,
  ].join(" · ");
}

function endedLine(record: AgentRecord): string {
  const r = record.result;
  const how = r
    ? `${record.status}, ${figures({ ...r, model: "", durationMs: r.durationMs })}`
    : record.status;
  return `  ${record.agentId}  ${record.title} · ${how} · session ${record.sessionId}`;
}

function overview(runtime: SubagentRuntime): string {
  const records = runtime.agents();
  const running = records.filter((r) => r.status === "running");
  const ended = records.filter((r) => r.status !== "running");
  const { agents, problems, replaced } = runtime.instance.files.set;
  const lines: string[] = [];
  lines.push(running.length > 0 ? "Running:" : "No agents running.");
  for (const r of running) lines.push(runningLine(r, runtime));
  if (ended.length > 0) lines.push("Ended:", ...ended.map(endedLine));
  lines.push("Agents:");
  for (const a of agents.values()) {
    const where = a.path ? ` (${a.source}: ${a.path})` : " (built-in)";
    lines.push(`  ${a.name}${where} — ${a.description}`);
    for (const note of a.notes) lines.push(`      note: ${note}`);
  }
  for (const a of replaced)
    lines.push(`  (${a.name} from ${a.path ?? "built-in"} is replaced by a later definition)`);
  for (const p of problems) lines.push(`  not used: ${p.path}: ${p.message}`);
  if (!runtime.workspace.trusted)
    lines.push("  (this project is not trusted: its .keel/agents and .claude/agents are not read)");
  lines.push(
    "/agents <id> shows one; /agents stop <id> stops a running one; keel -r <session id> opens a transcript.",
  );
  return lines.join("\n");
}

function detail(record: AgentRecord, runtime: SubagentRuntime): string {
  if (record.status === "running")
    return `${runningLine(record, runtime).trim()}\nStarted ${record.startedAt}. ${transcriptPointer(record)}`;
  const r = record.result;
  if (!r) return `${record.agentId} (${record.title}): ${record.status}. ${transcriptPointer(record)}`;
  const text = r.text.trim()
    ? bounded(r.text.trim(), DETAIL_CHARS, "the transcript has it all")
    : "(no text)";
  return `${r.agentId} (${r.title}) ${ending(r)}. ${figures(r)}.\n${text}\n${transcriptPointer(r)}`;
}

export function agentsCommand(args: string, runtime: SubagentRuntime): CommandResult {
  const [first, second] = args.trim().split(/\s+/).filter(Boolean);
  if (!first) return { message: overview(runtime) };
  const records = runtime.agents();
  const find = (id: string) => records.find((r) => r.agentId === id || r.sessionId === id);
  if (first === "stop") {
    if (!second) return { message: "Usage: /agents stop <agent id>" };
    const live = runtime.instance.live.get(find(second)?.agentId ?? second);
    if (live?.run.status() !== "running") return { message: `No running agent ${second}.` };
    live.run.abort();
    return { message: `Stopping ${live.run.agentId} (${live.run.title}).` };
  }
  const record = find(first);
  return {
    message: record ? detail(record, runtime) : `No agent ${first} in this session. /agents lists them.`,
  };
}
