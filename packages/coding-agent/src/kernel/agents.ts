// Child agents (runAgent on the tool context): each is a real kernel agent with its own journal
// (a child session linked both ways), the parent's tools it was allowed, the parent's permission
// gate (never more), approvals routed to the parent's UI under its name, aborted with the parent,
// its usage counted in the parent's, and no more running at once than the cap.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentTool } from "@keel/agent";
import {
  type AssistantMessage,
  addUsage,
  emptyUsage,
  type Model,
  type StreamOptions,
  type Usage,
} from "@keel/ai";
import type {
  AgentActivity,
  AgentRecord,
  AgentRun,
  AgentRunResult,
  AgentRunStatus,
  RunAgentOptions,
  RunAgentOutcome,
} from "@keel/extension-sdk";
import { type AgentRunOutcome, createSession, openSession, type Session } from "@keel/session";
import type { Result } from "neverthrow";
import type { CompactionSettings } from "../compaction/policy.js";
import { EXECUTE_TOOL, type IndexedEntry, SEARCH_TOOLS } from "../host/catalogs.js";
import type { ExtensionHost, HostView } from "../host/extension-host.js";
import type { Caller } from "../host/runtime.js";
import type { CommandSandbox } from "../sandbox/runtime.js";
import { KernelAgent } from "./coding-agent.js";
import type { KernelPermission } from "./permission.js";
import type { CodingAgentError, CodingAgentEvent } from "./types.js";

/** What the parent's journal keeps of a child's final text; the whole transcript is in its own journal. */
const KEPT_TEXT_CHARS = 20_000;
const AGENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface SupervisorDeps {
  parent: KernelAgent;
  host: ExtensionHost;
  /** Children running at once, background ones included. */
  cap: number;
  /** Where child journals go; undefined: the parent is ephemeral, so are its children. */
  childrenDir(): string | undefined;
  cwd: string;
  projectRoot: string;
  home: string;
  resolveModel(ref: Model | string): Result<{ model: Model; warning?: string }, CodingAgentError>;
  builtinTools: AgentTool[];
  streamOptions: StreamOptions;
  compaction: CompactionSettings;
  permission: KernelPermission;
  systemPromptFor(toolNames: string[], instructions: string | undefined): string;
  /** The parent's sandbox: children run commands under the same policy and scrub the same secrets. */
  sandbox?: CommandSandbox;
  /** Told of each child kernel once it is set up (path-scoped rules listen to its calls too). */
  onChild?(kernel: KernelAgent): void;
}

interface Live {
  run: AgentRun;
  kernel: KernelAgent;
  record: AgentRecord;
}

function lastText(messages: readonly { role: string }[]): string {
  const last = [...messages].reverse().find((m) => m.role === "assistant") as AssistantMessage | undefined;
  return last ? last.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("") : "";
}

function statusOf(stopReason: string, budget: boolean): Exclude<AgentRunStatus, "running"> {
  if (budget) return "budget";
  if (stopReason === "error") return "failed";
  if (stopReason === "aborted") return "aborted";
  if (stopReason === "max_turns") return "max_turns";
  return "completed";
}

/**
 * A parent's tool the child may not use, kept in its list (same name and schema, so the prefix
 * stays the parent's) and refused when called.
 */
function refused(tool: AgentTool): AgentTool {
  return {
    name: tool.name,
    ...(tool.label ? { label: tool.label } : {}),
    description: tool.description,
    parameters: tool.parameters,
    execute: async () => ({
      content: [
        {
          type: "text",
          text: `${tool.name} is not available to this sub-agent; do the work with the tools it has.`,
        },
      ],
      isError: true,
    }),
  };
}

/** Whether a child may use an entry or tool, by its allow / exclude lists (names, refs or groups). */
function listed(list: readonly string[] | undefined, ...names: string[]): boolean {
  return list !== undefined && names.some((n) => list.includes(n));
}

export class AgentSupervisor {
  private readonly live = new Map<string, Live>();
  /** Agent ids whose start is being set up (child session, journal): counted like live ones. */
  private readonly reserved = new Map<string, string>();
  private readonly setups = new Set<Promise<RunAgentOutcome>>();
  private readonly interruptedText = new Map<string, string>();
  private closed = false;

  constructor(private readonly deps: SupervisorDeps) {}

  get running(): { agentId: string; title: string }[] {
    return [
      ...[...this.live.values()].map((l) => ({ agentId: l.run.agentId, title: l.run.title })),
      ...[...this.reserved].map(([agentId, title]) => ({ agentId, title })),
    ];
  }

  async run(options: RunAgentOptions, caller: Caller): Promise<RunAgentOutcome> {
    const d = this.deps;
    if (this.closed) return { ok: false, error: { type: "closed", message: "The session is closing." } };
    if (caller.agent)
      return {
        ok: false,
        error: { type: "not_allowed", message: "A child agent cannot start agents of its own." },
      };
    if (typeof options?.prompt !== "string" || !options.prompt.trim())
      return { ok: false, error: { type: "invalid", message: "runAgent needs a non-empty prompt." } };
    if (this.running.length >= d.cap) {
      const running = this.running;
      return {
        ok: false,
        error: {
          type: "capacity",
          limit: d.cap,
          running,
          message: `${running.length} agents are running (the limit is ${d.cap}): ${running.map((r) => `${r.agentId} (${r.title})`).join(", ")}. Wait for one to finish, then try again.`,
        },
      };
    }
    const known = d.parent.session.fold().agents;
    const agentId = options.agentId ?? `agent-${Math.random().toString(36).slice(2, 10)}`;
    if (!AGENT_ID.test(agentId))
      return {
        ok: false,
        error: { type: "invalid", message: `agentId "${agentId}" must be 1-64 letters, digits, _ or -.` },
      };
    if (known[agentId] || this.live.has(agentId) || this.reserved.has(agentId))
      return {
        ok: false,
        error: { type: "invalid", message: `An agent "${agentId}" already exists in this session.` },
      };
    let model = d.parent.model();
    if (options.model) {
      const resolved = d.resolveModel(options.model);
      if (resolved.isErr()) return { ok: false, error: { type: "invalid", message: resolved.error.message } };
      model = resolved.value.model;
      if (resolved.value.warning) d.parent.report("warning", resolved.value.warning);
    }
    const title = (options.title ?? options.prompt).replace(/\s+/g, " ").trim().slice(0, 80);
    const agent = { agentId, title };

    // The child's tools: the parent's, narrowed by the allow / exclude lists.
    const { allow, exclude } = options.tools ?? {};
    // A bare name allows an entry only where it stands for that entry alone (as in permission
    // rules): a built-in's name is the built-in, not another group's entry that borrows it. Exclusion
    // by name is always honoured.
    const allowsEntry = (e: IndexedEntry) =>
      (allow === undefined || listed(allow, e.ref, e.group) || (e.bareName && listed(allow, e.name))) &&
      !listed(exclude, e.ref, e.group, e.name);
    const catalogs = d.host.catalogs.narrow(allowsEntry);
    const catalogReachable =
      !d.host.registry.isEmpty &&
      (allow === undefined ||
        allow.some(
          (n) =>
            n === SEARCH_TOOLS ||
            n === EXECUTE_TOOL ||
            n.includes(":") ||
            d.host.registry.groups().includes(n) ||
            d.host.registry.resolve(n) !== undefined,
        ));
    const allowTool = (name: string) => {
      if (listed(exclude, name)) return false;
      if (name === SEARCH_TOOLS || name === EXECUTE_TOOL) return catalogReachable;
      return allow === undefined || allow.includes(name);
    };
    const view = d.host.childView({ agent }, allowTool, catalogs);
    let tools = [...d.builtinTools.filter((t) => allowTool(t.name)), ...view.tools()];
    // A child on the parent's model whose tools are the parent's minus some (no allow list) may
    // start from the parent's exact system prompt and tools: the parent's cached prefix serves
    // it. The tools it may not use stay listed and are refused; its instructions open its prompt.
    const parentModel = d.parent.model();
    const shares =
      options.shareParentPrefix === true &&
      allow === undefined &&
      model.provider === parentModel.provider &&
      model.id === parentModel.id;
    let systemPrompt: string;
    let prompt = options.prompt;
    if (shares) {
      const prefix = d.parent.requestPrefix();
      const own = new Map(tools.map((t) => [t.name, t]));
      tools = prefix.tools.map((t) => own.get(t.name) ?? refused(t));
      systemPrompt = prefix.systemPrompt;
      if (options.instructions?.trim())
        prompt = `<agent-instructions>\n${options.instructions.trim()}\n</agent-instructions>\n\n${options.prompt}`;
    } else {
      systemPrompt = d.systemPromptFor(
        tools.map((t) => t.name),
        options.instructions,
      );
    }

    // Reserved from here until it is live or failed, so starts made at once each count against
    // the cap and the id; stopAll waits for reserved starts before it stops the live ones.
    this.reserved.set(agentId, title);
    const setup = this.launch({
      options,
      caller,
      agent,
      model,
      view,
      tools,
      systemPrompt,
      prompt,
      shares,
    }).finally(() => this.reserved.delete(agentId));
    this.setups.add(setup);
    try {
      return await setup;
    } finally {
      this.setups.delete(setup);
    }
  }

  private async launch(p: {
    options: RunAgentOptions;
    caller: Caller;
    agent: { agentId: string; title: string };
    model: Model;
    view: HostView;
    tools: AgentTool[];
    systemPrompt: string;
    prompt: string;
    shares: boolean;
  }): Promise<RunAgentOutcome> {
    const d = this.deps;
    const { options, caller, agent, model, view, tools, systemPrompt, prompt, shares } = p;
    const { agentId, title } = agent;
    const session = await this.openChildSession(agent, caller);
    if (!session.ok) return { ok: false, error: { type: "invalid", message: session.message } };
    if (this.closed) {
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
    this.reserved.delete(agentId);
    this.live.set(agentId, { run, kernel, record });

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
      const interrupted = this.closed && stopReason === "aborted" && !budgetHit;
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
      await this.journalEnd(agent, session.session.id, session.file, ended);
      await kernel.close();
      session.cleanup();
      this.live.delete(agentId);
      d.parent.emit({ type: "agent_end", agentId, title, status, usage, turns: ended.turns });
      finish(ended);
    })();
    return { ok: true, run };
  }

  private async openChildSession(
    agent: { agentId: string },
    caller: Caller,
  ): Promise<
    | { ok: true; session: Session; file: string | undefined; cleanup: () => void }
    | { ok: false; message: string }
  > {
    const parent = this.deps.parent;
    const persistent = this.deps.childrenDir();
    const dir = persistent ?? mkdtempSync(join(tmpdir(), "keel-child-"));
    const created = await createSession({
      dir,
      cwd: this.deps.cwd,
      // The parent's: a child's prompt says what the parent's says.
      environment: parent.session.environment,
      fsync: persistent ? "turn" : "never",
      syncCreate: false,
      spawnedBy: {
        sessionId: parent.sessionId,
        ...(parent.sessionFile ? { path: parent.sessionFile } : {}),
        agentId: agent.agentId,
        ...(caller.toolCallId ? { toolCallId: caller.toolCallId } : {}),
      },
    });
    if (created.isErr())
      return { ok: false, message: `Could not create the child's journal: ${created.error.message}` };
    return {
      ok: true,
      session: created.value,
      file: persistent ? created.value.path : undefined,
      cleanup: () => {
        if (!persistent) rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  private async journalEnd(
    agent: { agentId: string; title: string },
    sessionId: string,
    sessionFile: string | undefined,
    result: AgentRunResult,
  ): Promise<void> {
    const outcome: AgentRunOutcome = {
      status: result.status,
      stopReason: result.stopReason,
      text: result.text.length > KEPT_TEXT_CHARS ? `${result.text.slice(0, KEPT_TEXT_CHARS)}…` : result.text,
      turns: result.turns,
      usage: result.usage,
      durationMs: result.durationMs,
      model: result.model,
      ...(result.error ? { error: result.error } : {}),
    };
    const appended = await this.deps.parent.session.appendEntry({
      type: "agent_run",
      agentId: agent.agentId,
      phase: "end",
      title: agent.title,
      sessionId,
      ...(sessionFile ? { sessionFile } : {}),
      outcome,
    });
    if (appended.isErr())
      this.deps.parent.report(
        "error",
        `Could not journal how agent ${agent.agentId} ended: ${appended.error.message}`,
      );
  }

  /** Every child the journal knows, with the live ones' current status; a child that was running when the process died is "interrupted". */
  records(): AgentRecord[] {
    const folded = this.deps.parent.session.fold().agents;
    return Object.values(folded).map((a) => {
      const live = this.live.get(a.agentId);
      if (live) return { ...live.record, status: live.run.status() };
      const base: AgentRecord = {
        agentId: a.agentId,
        title: a.title,
        sessionId: a.sessionId,
        ...(a.sessionFile ? { sessionFile: a.sessionFile } : {}),
        ...(a.toolCallId ? { toolCallId: a.toolCallId } : {}),
        startedAt: a.startedAt,
        status: a.outcome?.status ?? "interrupted",
      };
      const outcome = a.outcome;
      const result: AgentRunResult = {
        agentId: a.agentId,
        title: a.title,
        status: outcome?.status ?? "interrupted",
        stopReason: (outcome?.stopReason ?? "interrupted") as AgentRunResult["stopReason"],
        text: outcome?.text ?? this.textOfInterrupted(a.agentId),
        turns: outcome?.turns ?? 0,
        usage: outcome?.usage ?? emptyUsage(),
        durationMs: outcome?.durationMs ?? 0,
        model: outcome?.model ?? "",
        sessionId: a.sessionId,
        ...(a.sessionFile ? { sessionFile: a.sessionFile } : {}),
        ...(outcome?.error ? { error: outcome.error } : {}),
      };
      return { ...base, result };
    });
  }

  private textOfInterrupted(agentId: string): string {
    return this.interruptedText.get(agentId) ?? "";
  }

  /**
   * After a resume: a child the journal saw start but never end was running when the process
   * died. Its end is journaled now as "interrupted", with the last text its own journal holds.
   */
  async settleInterrupted(): Promise<void> {
    for (const a of Object.values(this.deps.parent.session.fold().agents)) {
      if (a.outcome || this.live.has(a.agentId)) continue;
      let text = "";
      let turns = 0;
      let usage = emptyUsage();
      if (a.sessionFile) {
        const opened = await openSession(a.sessionFile, { readOnly: true });
        if (opened.isOk()) {
          const messages = opened.value.context();
          text = lastText(messages);
          for (const m of messages)
            if (m.role === "assistant") {
              turns++;
              usage = addUsage(usage, (m as AssistantMessage).usage);
            }
          await opened.value.close();
        }
      }
      this.interruptedText.set(a.agentId, text);
      await this.journalEnd(a, a.sessionId, a.sessionFile, {
        agentId: a.agentId,
        title: a.title,
        status: "interrupted",
        stopReason: "interrupted",
        text,
        turns,
        usage,
        durationMs: 0,
        model: "",
        sessionId: a.sessionId,
        error: { type: "interrupted", message: "Keel stopped while this agent was running." },
      });
    }
  }

  /**
   * Waits for the running children to end, at most `timeoutMs` (never past `signal`), then stops
   * those still running. Each child that was running, in the order they ended.
   */
  async settle(
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ result: AgentRunResult; stopped: boolean }[]> {
    await Promise.allSettled([...this.setups]);
    const running = [...this.live.values()].map((l) => l.run);
    if (running.length === 0) return [];
    const ended: { result: AgentRunResult; stopped: boolean }[] = [];
    const stopped = new Set<string>();
    const all = Promise.all(
      running.map((run) =>
        run.result.then((result) => {
          ended.push({ result, stopped: stopped.has(run.agentId) });
        }),
      ),
    );
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      all,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        onAbort = resolve;
        if (signal?.aborted) resolve();
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    for (const run of running)
      if (run.status() === "running") {
        stopped.add(run.agentId);
        run.abort();
      }
    await all;
    return ended;
  }

  /** Stops every running child (the session closes); each is journaled as interrupted. */
  async stopAll(): Promise<void> {
    this.closed = true;
    // A start under way either gives up (closed) or goes live, and is then stopped below.
    await Promise.allSettled([...this.setups]);
    const running = [...this.live.values()];
    for (const live of running) live.run.abort();
    await Promise.all(running.map((l) => l.run.result));
  }
}
