// One child agent's run: its kernel on the parent's gate and sandbox, its events relayed to the
// parent (usage counted there, activity to the caller, the budget enforced), abort with the
// parent's call, and its end journaled and delivered once.
import type { AgentTool } from "@keel/agent";
import { addUsage, emptyUsage, type Model, type Usage } from "@keel/ai";
import type {
  AgentActivity,
  AgentRecord,
  AgentRun,
  AgentRunResult,
  AgentRunStatus,
  RunAgentOptions,
  RunAgentOutcome,
} from "@keel/extension-sdk";
import type { HostView } from "../host/extension-host.js";
import type { Caller } from "../host/runtime.js";
import { journalEnd, lastText, openChildSession } from "./agent-journal.js";
import type { SupervisorDeps } from "./agents.js";
import { KernelAgent } from "./coding-agent.js";
import type { CodingAgentEvent } from "./types.js";

export interface LiveChild {
  run: AgentRun;
  kernel: KernelAgent;
  record: AgentRecord;
}

/** What the supervisor learns of a launch, and what it tells it. */
export interface LaunchHooks {
  /** The session is closing: a start gives up, and a run cut off by it ends "interrupted". */
  closed(): boolean;
  /** The child's run exists: from here it is live, no longer reserved. */
  live(child: LiveChild): void;
  /** The child's end is journaled and its kernel closed. */
  ended(agentId: string): void;
}

export interface Launch {
  options: RunAgentOptions;
  caller: Caller;
  agent: { agentId: string; title: string };
  model: Model;
  view: HostView;
  tools: AgentTool[];
  systemPrompt: string;
  prompt: string;
  shares: boolean;
}

function statusOf(stopReason: string, budget: boolean): Exclude<AgentRunStatus, "running"> {
  if (budget) return "budget";
  if (stopReason === "error") return "failed";
  if (stopReason === "aborted") return "aborted";
  if (stopReason === "max_turns") return "max_turns";
  return "completed";
}

// Answers the SDK's RunAgentOutcome (agents.runAgent's contract), so its `{ ok }` shape stays.
export async function launchChild(
  d: SupervisorDeps,
  p: Launch,
  hooks: LaunchHooks,
): Promise<RunAgentOutcome> {
  const { options, caller, agent, model, view, tools, systemPrompt, prompt, shares } = p;
  const { agentId, title } = agent;
  const opened = await openChildSession(d, agent, caller);
  if (opened.isErr()) return { ok: false, error: { type: "invalid", message: opened.error.message } };
  const session = opened.value;
  if (hooks.closed()) {
    await session.session.close();
    session.cleanup();
    return { ok: false, error: { type: "closed", message: "The session is closing." } };
  }
  const start = await d.parent.session.appendEntry({
    type: "agent_run",
    agentId,
    phase: "start",
    title,
    sessionId: session.session.id,
    ...(session.file ? { sessionFile: session.file } : {}),
    ...(caller.toolCallId ? { toolCallId: caller.toolCallId } : {}),
  });
  if (start.isErr()) {
    await session.session.close();
    session.cleanup();
    return {
      ok: false,
      error: { type: "invalid", message: `The session journal failed: ${start.error.message}` },
    };
  }

  const kernel = new KernelAgent({
    cwd: d.cwd,
    projectRoot: d.projectRoot,
    home: d.home,
    session: session.session,
    model,
    resolveModel: (ref) => d.resolveModel(ref),
    systemPrompt: "",
    builtinTools: d.builtinTools,
    streamOptions: d.streamOptions,
    ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
    compaction: d.compaction,
    // The parent's gate: the child's calls are judged by the same mode and rules, never more.
    permission: {
      ...d.permission,
      allowForRun: () => {},
      endRun: () => {},
      readGuard: d.permission.readGuard,
    },
    diagnostics: [],
    agent,
    ...(shares ? { cacheKey: d.parent.sessionId } : {}),
    ...(d.sandbox ? { sandbox: d.sandbox } : {}),
  });
  kernel.attachHost(view, systemPrompt, undefined, tools);
  d.onChild?.(kernel);
  void kernel.session.appendEntry({ type: "model_change", provider: model.provider, modelId: model.id });

  const startedAt = Date.now();
  let status: AgentRunStatus = "running";
  let budgetHit = false;
  let usage: Usage = emptyUsage();
  let turns = 0;
  const activity = (a: AgentActivity) => {
    try {
      options.onActivity?.(a);
    } catch {
      // An observer's failure must not stop the child.
    }
  };
  kernel.subscribe((event: CodingAgentEvent) => {
    d.parent.emit({ type: "agent_event", agentId, title, event });
    if (event.type === "turn_start") {
      turns = event.turn;
      activity({ type: "turn_start", turn: event.turn });
    } else if (event.type === "tool_start") {
      activity({
        type: "tool_start",
        toolName: event.toolName,
        summary: event.summary.slice(0, 120),
      });
    } else if (event.type === "tool_end") {
      activity({ type: "tool_end", toolName: event.toolName, isError: event.isError });
    } else if (event.type === "message_end" && event.message.role === "assistant") {
      usage = addUsage(usage, event.message.usage);
      d.parent.addChildUsage(agent, event.message.usage);
      const text = lastText([event.message]);
      if (text) activity({ type: "text", text });
      activity({ type: "usage", usage, turns });
      const budget = options.budget;
      const tokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
      if (
        budget &&
        ((budget.maxTokens !== undefined && tokens >= budget.maxTokens) ||
          (budget.maxCostUsd !== undefined && usage.cost.total >= budget.maxCostUsd))
      ) {
        budgetHit = true;
        kernel.abort();
      }
    }
  });

  const controller = new AbortController();
  const abort = () => {
    controller.abort();
    kernel.abort();
  };
  if (!options.detached) {
    if (caller.signal?.aborted) abort();
    caller.signal?.addEventListener("abort", abort, { once: true });
  }
  d.parent.emit({
    type: "agent_start",
    agentId,
    title,
    sessionId: session.session.id,
    ...(session.file ? { sessionFile: session.file } : {}),
    background: options.detached === true,
    ...(caller.toolCallId ? { toolCallId: caller.toolCallId } : {}),
  });

  let finish!: (result: AgentRunResult) => void;
  const result = new Promise<AgentRunResult>((resolve) => {
    finish = resolve;
  });
  const record: AgentRecord = {
    agentId,
    title,
    sessionId: session.session.id,
    ...(session.file ? { sessionFile: session.file } : {}),
    ...(caller.toolCallId ? { toolCallId: caller.toolCallId } : {}),
    startedAt: new Date(startedAt).toISOString(),
    status: "running",
  };
  const run: AgentRun = {
    agentId,
    title,
    sessionId: session.session.id,
    sessionFile: session.file,
    sharesParentPrefix: shares,
    status: () => status,
    result,
    abort,
  };
  hooks.live({ run, kernel, record });

  void (async () => {
    const pending = kernel.prompt(prompt);
    // Aborted before the child's run existed (the tool's signal during setup, stopAll): the
    // run, now started, stops at once.
    if (controller.signal.aborted) kernel.abort();
    const summary = await pending;
    const stopReason = summary.isOk() ? summary.value.stopReason : "error";
    const error = summary.isOk()
      ? summary.value.error
      : { type: summary.error.type, message: summary.error.message };
    // Cut off because the session closes (exit, /new, /resume): like a crash, not a choice.
    const interrupted = hooks.closed() && stopReason === "aborted" && !budgetHit;
    status = interrupted ? "interrupted" : statusOf(stopReason, budgetHit);
    const ended: AgentRunResult = {
      agentId,
      title,
      status,
      stopReason: budgetHit ? "budget" : interrupted ? "interrupted" : stopReason,
      text: summary.isOk() ? summary.value.text : "",
      turns: summary.isOk() ? summary.value.turns : turns,
      usage,
      durationMs: Date.now() - startedAt,
      model: `${model.provider}/${model.id}`,
      sessionId: session.session.id,
      ...(session.file ? { sessionFile: session.file } : {}),
      ...(interrupted
        ? { error: { type: "interrupted", message: "The session closed while this agent was running." } }
        : error && status !== "budget"
          ? { error }
          : {}),
    };
    caller.signal?.removeEventListener("abort", abort);
    await journalEnd(d.parent, agent, session.session.id, session.file, ended);
    await kernel.close();
    session.cleanup();
    hooks.ended(agentId);
    d.parent.emit({ type: "agent_end", agentId, title, status, usage, turns: ended.turns });
    finish(ended);
  })();
  return { ok: true, run };
}
