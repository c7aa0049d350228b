// The kernel's compaction entry points: a manual one (`compact()`), and the one the seams ask
// for at the threshold or a run asks for on overflow. compactor.ts does the work; this part
// tells the user, the extensions and the loop about it.
import type { Usage } from "@keel/ai";
import { err, ok, type Result } from "neverthrow";
import { type DeclaredTool, declarationOf } from "../../tools/declarations.js";
import { type CompactionOutcome, planCompaction, runCompaction } from "../compactor.js";
import { contextTokens } from "../context-size.js";
import type { CodingAgentError, CodingAgentEvent, CompactionReason } from "../types.js";
import type { KernelState } from "./state.js";

export interface CompactionDeps {
  emit: (event: CodingAgentEvent) => void;
  /** The summary's usage: the session's own, and the run's if one goes on. */
  addOwnUsage: (usage: Usage) => void;
  /** Delivers the notices left meanwhile, on an idle session. */
  deliverNotices: () => void;
}

export class Compaction {
  constructor(
    private readonly state: KernelState,
    private readonly deps: CompactionDeps,
  ) {}

  async compact(
    instructions?: string,
  ): Promise<Result<{ tokensBefore: number; tokensAfter: number }, CodingAgentError>> {
    const idle = this.state.idle();
    if (idle.isErr()) return err(idle.error);
    return this.compactWith("manual", instructions);
  }

  async compactWith(
    reason: CompactionReason,
    instructions?: string,
    signal?: AbortSignal,
  ): Promise<Result<CompactionOutcome, CodingAgentError>> {
    const state = this.state;
    const { parts, agent } = state;
    const declared = (name: string) =>
      declarationOf(agent.config.tools?.find((t) => t.name === name) as DeclaredTool | undefined);
    const scope = {
      session: state.session,
      model: state.model,
      settings: parts.compaction,
      reason,
      declarationOf: declared,
    };
    // Too short to shrink: said by the result alone; no compaction started, no model asked.
    const plan = planCompaction(scope);
    if (plan.isErr()) return err(plan.error);
    const before = contextTokens(state.session, state.fixedTokens, state.model);
    this.deps.emit({ type: "compaction_start", reason, tokensBefore: before });
    state.maintenance = new AbortController();
    const abort = () => state.maintenance?.abort();
    signal?.addEventListener("abort", abort, { once: true });
    const config = agent.config;
    const outcome = await runCompaction(
      {
        ...scope,
        streamOptions: { ...parts.streamOptions, sessionId: state.session.id },
        fixedTokens: state.fixedTokens,
        ...(instructions ? { instructions } : {}),
        signal: state.maintenance.signal,
        // The summary is asked at the end of the conversation as the model last saw it (same
        // system prompt, tools, cache key and thinking), so its cached prefix serves the request.
        conversation: {
          systemPrompt: config.systemPrompt ?? "",
          tools: (config.tools ?? []).map((t) => ({
            name: t.name,
            description: t.description,
            parameters: t.parameters,
          })),
          streamOptions: state.requestOptions(state.session.id),
        },
      },
      plan.value,
    );
    signal?.removeEventListener("abort", abort);
    state.maintenance = undefined;
    const spent = outcome.isOk() ? outcome.value.usage : outcome.error.usage;
    if (spent) this.deps.addOwnUsage(spent);
    // A manual compaction held back what was left meanwhile; a run's own compaction leaves it to the run.
    const idle = !state.inRun;
    if (outcome.isOk()) {
      agent.replaceMessages(state.session.context());
      await state.host.notify("compaction", {
        reason,
        tokensBefore: before,
        tokensAfter: outcome.value.tokensAfter,
      });
      // What an extension persisted from the hook (a loaded skill's body) follows the summary.
      if ((await state.notices.flush()) > 0) agent.replaceMessages(state.session.context());
    }
    this.deps.emit({
      type: "compaction_end",
      reason,
      tokensBefore: before,
      tokensAfter: outcome.isOk() ? outcome.value.tokensAfter : before,
      ok: outcome.isOk(),
      ...(outcome.isErr() ? { error: outcome.error.message } : {}),
    });
    if (idle) this.deps.deliverNotices();
    if (outcome.isErr()) {
      const { usage: _counted, ...error } = outcome.error;
      return err(error as CodingAgentError);
    }
    return ok(outcome.value);
  }
}
