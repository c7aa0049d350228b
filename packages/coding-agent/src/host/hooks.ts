// The one dispatch path per hook kind: observers (every handler runs, a failure is reported and
// the run goes on), transform chains (beforeAgentStart, beforeModelCall, afterToolCall) and the
// policy chain (beforeToolCall: a throw or a missed deadline blocks). Each call has a deadline
// and a signal; handlers run in load order.
import type { AfterToolCallEvent, HookName, ToolCallEvent } from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";
import { type DeadlineError, withDeadline } from "./deadline.js";
import type { Active, ToolCallDecision } from "./extension-host.js";

/** A beforeAgentStart handler threw or missed its deadline, so the run is refused. */
export interface PromptRefused {
  type: "extension";
  message: string;
}

type HookFn = (event: unknown, runtime: unknown, context: { signal: AbortSignal }) => unknown;

export class HookDispatch {
  constructor(
    /** The active extensions, in load order (read at each dispatch). */
    private readonly active: () => readonly Active[],
    private readonly deadlineMs: number,
    private readonly report: (extensionId: string, level: "warning" | "error", message: string) => void,
  ) {}

  private handlers(hook: HookName): { active: Active; fn: HookFn }[] {
    const list: { active: Active; fn: HookFn }[] = [];
    for (const active of this.active()) {
      const fn = active.definition.hooks?.[hook] as HookFn | undefined;
      if (fn) list.push({ active, fn: fn.bind(active.definition.hooks) as HookFn });
    }
    return list;
  }

  private call(entry: { active: Active; fn: HookFn }, event: object) {
    return withDeadline((signal) => entry.fn(event, entry.active.runtime, { signal }), this.deadlineMs);
  }

  /** A hook whose failure does not stop the run: said once, as a warning. */
  private warn(entry: { active: Active }, hook: HookName, error: DeadlineError): void {
    this.report(entry.active.definition.id, "warning", `${hook} hook ${error.type}: ${error.message}`);
  }

  /** Observer hooks: every handler runs; a failure is reported once and the run goes on. */
  async notify(hook: HookName, event: object): Promise<void> {
    for (const entry of this.handlers(hook)) {
      const outcome = await this.call(entry, event);
      if (outcome.isErr()) this.warn(entry, hook, outcome.error);
    }
  }

  /** beforeAgentStart: a prompt transform chain; a failure refuses the run. */
  async beforeAgentStart(prompt: string): Promise<Result<string, PromptRefused>> {
    let current = prompt;
    for (const entry of this.handlers("beforeAgentStart")) {
      const outcome = await this.call(entry, { prompt: current });
      if (outcome.isErr()) {
        const reason = `extension ${entry.active.definition.id}: beforeAgentStart ${outcome.error.type}: ${outcome.error.message}`;
        this.report(entry.active.definition.id, "error", reason);
        return err({ type: "extension", message: reason });
      }
      const value = outcome.value as { prompt?: unknown } | undefined;
      if (typeof value?.prompt === "string") current = value.prompt;
    }
    return ok(current);
  }

  /** beforeModelCall: contexts of all extensions for this one request; a failing one contributes nothing. */
  async beforeModelCall(turn: number): Promise<string | undefined> {
    const parts: string[] = [];
    for (const entry of this.handlers("beforeModelCall")) {
      const outcome = await this.call(entry, { turn });
      if (outcome.isErr()) {
        this.warn(entry, "beforeModelCall", outcome.error);
        continue;
      }
      const context = (outcome.value as { context?: unknown } | undefined)?.context;
      if (typeof context === "string" && context.trim()) parts.push(context.trim());
    }
    return parts.length > 0 ? parts.join("\n\n") : undefined;
  }

  /** beforeToolCall: a policy chain; a throw or a missed deadline blocks (fail closed). */
  async beforeToolCall(event: ToolCallEvent): Promise<ToolCallDecision> {
    let args = event.args;
    for (const entry of this.handlers("beforeToolCall")) {
      const id = entry.active.definition.id;
      const outcome = await this.call(entry, { ...event, args });
      if (outcome.isErr()) {
        this.report(id, "error", `beforeToolCall ${outcome.error.type}: ${outcome.error.message}`);
        return {
          action: "block",
          reason: `Blocked: extension ${id}'s policy ${outcome.error.type === "timeout" ? "timed out" : "failed"} (${outcome.error.message}).`,
        };
      }
      const value = outcome.value as { action?: string; reason?: unknown; args?: unknown } | undefined;
      if (value?.action === "block")
        return {
          action: "block",
          reason: typeof value.reason === "string" ? value.reason : `Blocked by ${id}.`,
        };
      if (
        value?.action === "continue" &&
        value.args &&
        typeof value.args === "object" &&
        !Array.isArray(value.args)
      )
        args = value.args as Record<string, unknown>;
    }
    return { action: "continue", args };
  }

  /** afterToolCall: observers that may patch the result; a failure keeps the result as it was. */
  async afterToolCall(event: AfterToolCallEvent): Promise<AfterToolCallEvent["result"]> {
    let result = event.result;
    for (const entry of this.handlers("afterToolCall")) {
      const outcome = await this.call(entry, { ...event, result });
      if (outcome.isErr()) {
        this.warn(entry, "afterToolCall", outcome.error);
        continue;
      }
      const patched = (outcome.value as { result?: AfterToolCallEvent["result"] } | undefined)?.result;
      if (patched) result = patched;
    }
    return result;
  }
}
