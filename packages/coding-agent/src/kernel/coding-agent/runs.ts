// Runs: a prompt (or a notice's wake) becomes one run of the loop, one at a time, from its hooks
// and @-mentions to its summary; steering and follow-ups join it or start the next; a denial may
// stop it; abort() reaches it. Everything the run journals goes through the seams (../seams.ts).
import type { RunResult } from "@keel/agent";
import { addUsage, type Message, modelRef, type UserMessage } from "@keel/ai";
import type { Diagnostic, Mention } from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";
import { checkRule } from "../../permissions/rules.js";
import type { CompactionOutcome } from "../compactor.js";
import { readOnlyRefusal } from "../journal-guard.js";
import { expandPrompt, promptParts } from "../mentions.js";
import type {
  CodingAgentError,
  CodingAgentEvent,
  CompactionReason,
  PromptInput,
  RunSummary,
} from "../types.js";
import type { RunDenials } from "./run-denials.js";
import type { KernelState } from "./state.js";
import type { KernelUsage } from "./usage.js";

const STOPPED_BATCH = "Not run: the user denied an earlier call of this batch and stopped the run.";

export interface RunDeps {
  emit: (event: CodingAgentEvent) => void;
  report: (level: Diagnostic["level"], message: string) => void;
  denials: RunDenials;
  usage: KernelUsage;
  /** Puts a prompt's own model in place for its run; returns what puts the session's back. */
  modelForRun: (ref: string | undefined) => () => void;
  compactWith: (reason: CompactionReason) => Promise<Result<CompactionOutcome, CodingAgentError>>;
  /** After a run: notices left after its last request are delivered. */
  deliverIfIdle: () => void;
}

export class Runs {
  /** Steering and follow-ups that came after the loop of the current run had ended. */
  private readonly lateMessages: string[] = [];
  /** The current run's abort, from its first await on: abort() before the loop starts must count. */
  private runAbort: AbortController | undefined;
  /** A denial asked to stop: the run ends after the current tool batch. */
  private stopRequested = false;
  private stoppedByDenial = false;

  constructor(
    private readonly state: KernelState,
    private readonly deps: RunDeps,
  ) {}

  async prompt(input: string | PromptInput): Promise<Result<RunSummary, CodingAgentError>> {
    return this.run(typeof input === "string" ? { text: input } : input);
  }

  steer(text: string): void {
    if (this.state.agent.steer(text).isErr()) this.promptOrKeep(text);
  }

  followUp(text: string): void {
    if (this.state.agent.followUp(text).isErr()) this.promptOrKeep(text);
  }

  /** Stops the run going on, also before its loop has started. */
  abort(): void {
    this.runAbort?.abort();
    this.state.agent.abort();
  }

  /** A denial asked to stop the run: it ends once the current tool batch is done. */
  requestStop(): void {
    this.stopRequested = true;
  }

  /** Why the rest of a batch does not run after such a denial (undefined: it runs). */
  stopping(): string | undefined {
    return this.stopRequested ? STOPPED_BATCH : undefined;
  }

  /** A turn ended: a denial that asked to stop ends the run now (its results are journaled). */
  turnEnded(): void {
    if (!this.stopRequested) return;
    this.stoppedByDenial = true;
    this.state.agent.abort();
  }

  /**
   * A run from `text`, or (null) from the history as it is — how a run starts that a notice woke
   * (a background agent finished while the session was idle).
   */
  async run(input: PromptInput | null): Promise<Result<RunSummary, CodingAgentError>> {
    const state = this.state;
    if (state.closed) return err({ type: "closed", message: "This agent is closed." });
    if (state.agent.isRunning || state.inRun)
      return err({ type: "busy", message: "A run is in progress: steer() or followUp() it, or abort() it." });
    const readOnly = readOnlyRefusal(state.session);
    if (readOnly) return err(readOnly);
    const running = this.runOnce(input);
    state.runs.add(running);
    try {
      return await running;
    } finally {
      state.runs.delete(running);
      // Messages sent after the loop ended but before the run returned (its runEnd hooks) start
      // the next run; else notices left after the run's last request are delivered (a wake starts
      // a run from them). Either after this run's caller has its result.
      const late = this.lateMessages.splice(0);
      if (late.length > 0) setImmediate(() => void this.prompt(late.join("\n\n")));
      else setImmediate(() => this.deps.deliverIfIdle());
    }
  }

  /** The loop took no message: a new run from it, or, while a run is still ending, the next one. */
  private promptOrKeep(text: string): void {
    if (this.state.inRun) this.lateMessages.push(text);
    else void this.prompt(text);
  }

  /** The user message a prompt becomes: admitted by the extensions, its @-mentions expanded. */
  private async admit(
    input: PromptInput,
    signal: AbortSignal,
  ): Promise<Result<{ prompt: string; message: UserMessage }, CodingAgentError>> {
    const { state, deps } = this;
    const admitted = await state.host.beforeAgentStart(input.text);
    if (admitted.isErr()) return err(admitted.error);
    const prompt = admitted.value;
    const mentions = state.ownHost && !state.ownHost.mentions.isEmpty ? state.ownHost.mentions : undefined;
    const expanded = await expandPrompt(
      { ...input, text: prompt },
      {
        cwd: state.parts.cwd,
        denied: (path) => state.parts.permission.deniedRead(path),
        supportsImages: state.model.input.includes("image"),
        modelName: modelRef(state.model),
        ...(mentions
          ? {
              extensions: {
                answers: (prefix: string) => mentions.answers(prefix),
                resolve: (mention: Mention) => mentions.resolve(mention, signal),
              },
            }
          : {}),
      },
    );
    if (expanded.isErr()) return err({ type: "config", message: expanded.error.message });
    for (const note of expanded.value.notes) deps.report("info", note);
    return ok({ prompt, message: { role: "user", content: expanded.value.content, timestamp: Date.now() } });
  }

  /** This prompt's own allow rules (a command file's), in force until its run ends. */
  private allowForRun(input: PromptInput | null): string[] {
    const allow = (input?.allow ?? []).filter((rule) => {
      const problem = checkRule(rule);
      if (problem) this.deps.report("warning", `${problem}; not allowed for this run`);
      return problem === undefined;
    });
    if (allow.length > 0) {
      this.state.parts.permission.allowForRun(allow);
      this.deps.report(
        "info",
        `Allowed until this run ends (the command's allowed-tools): ${allow.join(", ")}`,
      );
    }
    return allow;
  }

  private async runOnce(input: PromptInput | null): Promise<Result<RunSummary, CodingAgentError>> {
    const { state, deps } = this;
    const { agent, parts } = state;
    const text = input === null ? null : input.text;
    const aborter = new AbortController();
    this.runAbort = aborter;
    const started = Date.now();
    state.journal.begin();
    let prompt = "";
    let message: UserMessage | undefined;
    if (input !== null) {
      const admitted = await this.admit(input, aborter.signal);
      if (admitted.isErr()) return err(admitted.error);
      ({ prompt, message } = admitted.value);
    }
    await state.notices.flush();
    agent.replaceMessages(state.session.context());
    // Where the conversation stood before this prompt: a prompt the model never answers goes back there.
    const before = state.session.headId;
    await state.host.notify("runStart", { prompt });
    deps.emit({ type: "run_start", prompt });
    deps.usage.startRun();
    this.stopRequested = false;
    this.stoppedByDenial = false;
    deps.denials.reset();

    // This prompt's own model and allow rules (a command file's), for this run only.
    const restoreModel = deps.modelForRun(input?.model);
    const allow = this.allowForRun(input);
    let run: RunResult;
    try {
      const first = await agent.prompt(message === undefined ? [] : [message], {
        signal: aborter.signal,
      });
      if (first.isErr()) return err({ type: "busy", message: first.error.message });
      run = first.value;
      if (run.stopReason === "context_overflow") {
        // Overflow: compact, then retry the run once from the compacted history.
        const compacted = await deps.compactWith("overflow");
        if (compacted.isOk()) {
          const retry = await agent.prompt([], { signal: aborter.signal });
          if (retry.isOk()) run = mergeRuns(run, retry.value);
        }
      }
    } finally {
      restoreModel();
      if (allow.length > 0) parts.permission.endRun();
    }
    if (this.runAbort === aborter) this.runAbort = undefined;
    await state.session.sync();
    parts.permission.endRun();
    const settled = state.journal.settle(run, (messages) => agent.replaceMessages(messages));
    run = settled.run;
    deps.usage.addRun(run.usage);
    const lastAssistant = [...run.messages].reverse().find((m) => m.role === "assistant");
    const error = settled.error;
    // The model never answered (a bad key, a refused request): the prompt leaves the
    // conversation again, so sending it once more does not put it there twice.
    const withdrawn =
      text !== null &&
      run.stopReason === "error" &&
      error?.type !== "journal" &&
      !run.messages.some(
        (m) => (m.role === "assistant" && m.content.length > 0) || m.role === "toolResult",
      ) &&
      (await state.session.branch(before)).isOk();
    if (withdrawn) agent.replaceMessages(state.session.context());
    const stoppedByDenial = this.stoppedByDenial;
    this.stopRequested = false;
    this.stoppedByDenial = false;
    const children = deps.usage.runChildren();
    const summary: RunSummary = {
      stopReason: run.stopReason,
      turns: run.turns,
      usage: deps.usage.ofRun(run.usage),
      text: textOf(lastAssistant),
      durationMs: Date.now() - started,
      ...(error ? { error } : {}),
      unsent: [...(withdrawn ? [text] : []), ...run.unsent.map(userText)],
      ...(children.length > 0 ? { children } : {}),
      ...(stoppedByDenial ? { stoppedBy: "denial" as const } : {}),
      ...(withdrawn ? { promptWithdrawn: true } : {}),
      permissionDenials: deps.denials.all(),
    };
    if (error) await state.host.notify("runError", { error, stopReason: run.stopReason });
    await state.host.notify("runEnd", {
      stopReason: run.stopReason,
      turns: run.turns,
      usage: summary.usage,
      durationMs: summary.durationMs,
      ...(error ? { error } : {}),
    });
    deps.emit({ type: "run_end", summary });
    return ok(summary);
  }
}

function textOf(message: Message | undefined): string {
  if (!message || message.role === "user") return "";
  return message.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("");
}

function userText(message: Message): string {
  return message.role === "user" ? promptParts(message.content).text : "";
}

function mergeRuns(a: RunResult, b: RunResult): RunResult {
  return {
    ...b,
    turns: a.turns + b.turns,
    usage: addUsage(a.usage, b.usage),
    messages: [...a.messages, ...b.messages],
    unsent: [...a.unsent, ...b.unsent],
  };
}
