// The one dispatch path per hook kind: observers (every handler runs, a failure is reported and
// the run goes on), transform chains (beforeAgentStart, beforeModelCall, afterToolCall) and the
// policy chain (beforeToolCall: a throw or a missed deadline blocks). Each call has a deadline
// and a signal; handlers run in load order.
import type { AfterToolCallEvent, HookName, ToolCallEvent } from "@keel/extension-sdk";
import { withDeadline } from "./deadline.js";
import type { Active, ToolCallDecision } from "./extension-host.js";

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

  /** A handler's failure the run goes on past: a warning under its extension's name. */
  private warn(entry: { active: Active }, message: string): void {
    this.report(entry.active.definition.id, "warning", message);
  }

  /** Observer hooks: every handler runs; a failure is reported once and the run goes on. */
  async notify(hook: HookName, event: object): Promise<void> {
    for (const entry of this.handlers(hook)) {
      const outcome = await this.call(entry, event);
      if (!outcome.ok) this.warn(entry, `${hook} hook ${outcome.reason}: ${outcome.message}`);
    }
  }

  /** beforeAgentStart: a prompt transform chain; a failure refuses the run. */
  async beforeAgentStart(
    prompt: string,
  ): Promise<{ ok: true; prompt: string } | { ok: false; reason: string }> {
    let current = prompt;
    for (const entry of this.handlers("beforeAgentStart")) {
      const outcome = await this.call(entry, { prompt: current });
      if (!outcome.ok) {
        const reason = `extension ${entry.active.definition.id}: beforeAgentStart ${outcome.reason}: ${outcome.message}`;
        this.report(entry.active.definition.id, "error", reason);
        return { ok: false, reason };
      }
      const value = outcome.value as { prompt?: unknown } | undefined;
      if (typeof value?.prompt === "string") current = value.prompt;
    }
    return { ok: true, prompt: current };
  }

  /** beforeModelCall: contexts of all extensions for this one request; a failing one contributes nothing. */
  async beforeModelCall(turn: number): Promise<string | undefined> {
    const parts: string[] = [];
    for (const entry of this.handlers("beforeModelCall")) {
      const outcome = await this.call(entry, { turn });
      if (!outcome.ok) {
        this.warn(entry, `beforeModelCall hook ${outcome.reason}: ${outcome.message}`);
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
      if (!outcome.ok) {
        this.report(id, "error", `beforeToolCall ${outcome.reason}: ${outcome.message}`);
        return {
          action: "block",
          reason: `Blocked: extension ${id}'s policy ${outcome.reason === "timeout" ? "timed out" : "failed"} (${outcome.message}).`,
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
      if (!outcome.ok) {
        this.warn(entry, `afterToolCall hook ${outcome.reason}: ${outcome.message}`);
        continue;
      }
      const patched = (outcome.value as { result?: AfterToolCallEvent["result"] } | undefined)?.result;
      if (patched) result = patched;
    }
    return result;
  }
}
