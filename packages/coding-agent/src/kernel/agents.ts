// Child agents (runAgent on the tool context): the supervisor checks a start (who may start one,
// its id, the cap on children running at once), reserves it while it is set up, and settles or
// stops the running ones. Each child is a real kernel agent with its own journal, the parent's
// tools it was allowed and the parent's permission gate (never more): what it may use is in
// agent-tools.ts, its run in agent-run.ts, its place in the journals in agent-journal.ts.
import type { AgentTool } from "@keel/agent";
import type { Model, StreamOptions } from "@keel/ai";
import type { AgentRecord, AgentRunResult, RunAgentOptions, RunAgentOutcome } from "@keel/extension-sdk";
import type { Result } from "neverthrow";
import type { CompactionSettings } from "../compaction/policy.js";
import type { ExtensionHost } from "../host/extension-host.js";
import type { Caller } from "../host/runtime.js";
import type { CommandSandbox } from "../sandbox/runtime.js";
import { agentRecords, settleInterrupted } from "./agent-journal.js";
import { type LiveChild, launchChild } from "./agent-run.js";
import { childTools } from "./agent-tools.js";
import type { KernelAgent } from "./coding-agent.js";
import type { KernelPermission } from "./permission.js";
import type { CodingAgentError } from "./types.js";

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

export class AgentSupervisor {
  private readonly live = new Map<string, LiveChild>();
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

  /** Answers the SDK's RunAgentOutcome (agents.runAgent's contract), so its `{ ok }` shape stays. */
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

    const { view, tools, systemPrompt, prompt, shares } = childTools(d, options, agent, model);

    // Reserved from here until it is live or failed, so starts made at once each count against
    // the cap and the id; stopAll waits for reserved starts before it stops the live ones.
    this.reserved.set(agentId, title);
    const setup = launchChild(
      d,
      { options, caller, agent, model, view, tools, systemPrompt, prompt, shares },
      {
        closed: () => this.closed,
        live: (child) => {
          this.reserved.delete(agentId);
          this.live.set(agentId, child);
        },
        ended: (id) => this.live.delete(id),
      },
    ).finally(() => this.reserved.delete(agentId));
    this.setups.add(setup);
    try {
      return await setup;
    } finally {
      this.setups.delete(setup);
    }
  }

  /** Every child the journal knows, with the live ones' current status; a child that was running when the process died is "interrupted". */
  records(): AgentRecord[] {
    return agentRecords(this.deps.parent, this.live, this.interruptedText);
  }

  /**
   * After a resume: a child the journal saw start but never end was running when the process
   * died. Its end is journaled now as "interrupted", with the last text its own journal holds.
   */
  settleInterrupted(): Promise<void> {
    return settleInterrupted(this.deps.parent, (agentId) => this.live.has(agentId), this.interruptedText);
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
