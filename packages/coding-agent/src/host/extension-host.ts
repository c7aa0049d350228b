// Hosts extensions: validates every declaration before anything runs, activates in order with
// reverse rollback, and dispatches each hook kind through one path with a deadline.
import type { AgentTool, AgentToolResult } from "@keel/agent";
import {
  type AfterToolCallEvent,
  type CommandResult,
  EXTENSION_ID_PATTERN,
  type ExtensionCommand,
  type ExtensionDefinition,
  type HookName,
  listTools,
  type ToolCallEvent,
} from "@keel/extension-sdk";
import { TypeGuard } from "@sinclair/typebox";
import { CatalogRegistry, EXECUTE_TOOL, SEARCH_TOOLS } from "./catalogs.js";
import { type ExtensionConfigLayers, resolveExtensionConfig } from "./config.js";
import { withDeadline } from "./deadline.js";
import { createRuntime, type HostServices, type MutableRuntime } from "./runtime.js";

export interface ExtensionSource {
  definition: ExtensionDefinition;
  /** Where it came from (a path, or a package name), for diagnostics. */
  source: string;
}

export interface ExtensionHostOptions {
  extensions: ExtensionSource[];
  /** Built-in tool names; extensions may not take them. */
  reservedTools: readonly string[];
  /** Built-in command names. */
  reservedCommands: readonly string[];
  config: ExtensionConfigLayers;
  /** Per-hook deadline; activation gets twice this. Default 5 s. */
  hookDeadlineMs?: number;
}

export interface HostedCommand {
  name: string;
  description: string;
  argumentHint?: string;
  source: string;
  run(args: string): Promise<CommandResult | undefined>;
}

interface Active {
  definition: ExtensionDefinition;
  runtime: MutableRuntime;
  source: string;
}

type ToolCallDecision =
  | { action: "continue"; args: Record<string, unknown> }
  | { action: "block"; reason: string };

export class ExtensionHost {
  private active: Active[] = [];
  readonly catalogs: CatalogRegistry;
  private readonly reported = new Set<string>();
  private readonly deadline: number;

  private constructor(
    private readonly services: HostServices,
    deadlineMs: number,
  ) {
    this.deadline = deadlineMs;
    this.catalogs = new CatalogRegistry((extensionId, message) =>
      this.reportOnce(extensionId, "error", message),
    );
  }

  /** Validates, then activates as one transaction; never throws. */
  static async start(options: ExtensionHostOptions, services: HostServices): Promise<ExtensionHost> {
    const host = new ExtensionHost(services, options.hookDeadlineMs ?? 5000);
    const accepted = host.validate(options);
    await host.activate(accepted);
    return host;
  }

  private reportOnce(extensionId: string, level: "info" | "warning" | "error", message: string): void {
    const key = `${extensionId}\0${message}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.services.report({ extensionId, level, message });
  }

  /** Drops (with one diagnostic each) extensions whose declaration cannot be honoured whole. */
  private validate(options: ExtensionHostOptions): { source: ExtensionSource; config: unknown }[] {
    const toolOwners = new Map<string, string>(options.reservedTools.map((n) => [n, "built-in"]));
    toolOwners.set(SEARCH_TOOLS, "built-in");
    toolOwners.set(EXECUTE_TOOL, "built-in");
    const commandOwners = new Map<string, string>(options.reservedCommands.map((n) => [n, "built-in"]));
    const ids = new Set<string>();
    const accepted: { source: ExtensionSource; config: unknown }[] = [];
    for (const source of options.extensions) {
      const { definition } = source;
      const id = definition.id;
      const reject = (message: string) =>
        this.reportOnce(id, "error", `${message} (${source.source}); not loaded`);
      if (!EXTENSION_ID_PATTERN.test(id)) {
        reject(`invalid extension id "${id}": use lowercase letters, digits and dashes`);
        continue;
      }
      if (ids.has(id)) {
        reject(`duplicate extension id "${id}"`);
        continue;
      }
      const tools = safeList(() => listTools(definition));
      if (!tools.ok) {
        reject(`tools could not be listed: ${tools.message}`);
        continue;
      }
      const toolClash = tools.value.find((t) => toolOwners.has(t.name));
      if (toolClash) {
        reject(`tool "${toolClash.name}" is already provided by ${toolOwners.get(toolClash.name)}`);
        continue;
      }
      // A plain JSON Schema would be sent to the model and then fail every call at validation.
      const untyped = tools.value.find((t) => !TypeGuard.IsSchema(t.parameters));
      if (untyped) {
        reject(
          `tool "${untyped.name}": parameters are not a TypeBox schema (build them with Type from @keel/extension-sdk)`,
        );
        continue;
      }
      const commandClash = (definition.commands ?? []).find((c) => commandOwners.has(c.name));
      if (commandClash) {
        reject(
          `command "/${commandClash.name}" is already provided by ${commandOwners.get(commandClash.name)}`,
        );
        continue;
      }
      const config = resolveExtensionConfig(definition, options.config);
      if (!config.ok) {
        reject(config.message);
        continue;
      }
      ids.add(id);
      for (const t of tools.value) toolOwners.set(t.name, `extension ${id}`);
      for (const c of definition.commands ?? []) commandOwners.set(c.name, `extension ${id}`);
      accepted.push({ source, config: config.value });
    }
    return accepted;
  }

  /** Activation in order; a failure deactivates the already active ones in reverse and registers none. */
  private async activate(accepted: { source: ExtensionSource; config: unknown }[]): Promise<void> {
    const started: Active[] = [];
    for (const { source, config } of accepted) {
      const runtime = createRuntime(source.definition, config, this.services);
      const activate = source.definition.lifecycle?.activate;
      if (activate) {
        const outcome = await withDeadline(() => activate(runtime as never), this.deadline * 2);
        if (!outcome.ok) {
          for (const done of [...started].reverse()) await this.deactivateOne(done);
          this.services.report({
            extensionId: source.definition.id,
            level: "error",
            message: `activation failed: ${outcome.message}; no extension of this set was loaded (${started.length} rolled back)`,
          });
          return;
        }
        runtime.instance = outcome.value;
      }
      started.push({ definition: source.definition, runtime, source: source.source });
    }
    this.active = started;
    for (const a of this.active)
      for (const catalog of a.definition.catalogs ?? [])
        this.catalogs.add(a.definition.id, catalog, a.runtime);
    this.catalogs.subscribeAll();
  }

  private async deactivateOne(active: Active): Promise<void> {
    const deactivate = active.definition.lifecycle?.deactivate;
    if (!deactivate) return;
    const outcome = await withDeadline(() => deactivate(active.runtime as never), this.deadline);
    if (!outcome.ok)
      this.reportOnce(active.definition.id, "warning", `deactivate ${outcome.reason}: ${outcome.message}`);
  }

  get extensionIds(): string[] {
    return this.active.map((a) => a.definition.id);
  }

  /** Fixed system-prompt text from extensions, in load order. */
  systemPromptText(): string[] {
    return this.active.flatMap((a) => (a.definition.systemPrompt ? [a.definition.systemPrompt] : []));
  }

  /** Resident extension tools, then the catalog pair when any catalog exists. */
  tools(): AgentTool[] {
    const tools: AgentTool[] = [];
    for (const a of this.active) {
      for (const tool of listTools(a.definition)) {
        tools.push({
          name: tool.name,
          ...(tool.label ? { label: tool.label } : {}),
          description: tool.description,
          parameters: tool.parameters,
          ...(tool.executionMode ? { executionMode: tool.executionMode } : {}),
          ...(tool.sideEffects ? { sideEffects: tool.sideEffects } : {}),
          execute: (args, context) =>
            tool.execute(args as never, context, a.runtime) as Promise<AgentToolResult>,
        });
      }
    }
    if (!this.catalogs.isEmpty) tools.push(...this.catalogs.residentTools());
    return tools;
  }

  commands(): HostedCommand[] {
    return this.active.flatMap((a) =>
      (a.definition.commands ?? []).map((c: ExtensionCommand) => ({
        name: c.name,
        description: c.description,
        ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}),
        source: a.definition.id,
        run: async (args: string) => {
          const outcome = await withDeadline(() => c.run(args, a.runtime as never), 60_000);
          if (!outcome.ok) {
            this.reportOnce(a.definition.id, "error", `/${c.name} ${outcome.reason}: ${outcome.message}`);
            return { message: `/${c.name} failed: ${outcome.message}` };
          }
          return outcome.value ?? undefined;
        },
      })),
    );
  }

  private handlers<K extends HookName>(
    hook: K,
  ): { active: Active; fn: (event: unknown, runtime: unknown) => unknown }[] {
    const list: { active: Active; fn: (event: unknown, runtime: unknown) => unknown }[] = [];
    for (const active of this.active) {
      const fn = active.definition.hooks?.[hook] as
        | ((event: unknown, runtime: unknown) => unknown)
        | undefined;
      if (fn) list.push({ active, fn });
    }
    return list;
  }

  /** Observer hooks: every handler runs; a failure is reported once and the run goes on. */
  async notify(hook: HookName, event: object): Promise<void> {
    for (const { active, fn } of this.handlers(hook)) {
      const outcome = await withDeadline(() => fn(event, active.runtime), this.deadline);
      if (!outcome.ok)
        this.reportOnce(
          active.definition.id,
          "warning",
          `${hook} hook ${outcome.reason}: ${outcome.message}`,
        );
    }
  }

  /** beforeAgentStart: a prompt transform chain; a failure refuses the run. */
  async beforeAgentStart(
    prompt: string,
  ): Promise<{ ok: true; prompt: string } | { ok: false; reason: string }> {
    let current = prompt;
    for (const { active, fn } of this.handlers("beforeAgentStart")) {
      const outcome = await withDeadline(() => fn({ prompt: current }, active.runtime), this.deadline);
      if (!outcome.ok) {
        const reason = `extension ${active.definition.id}: beforeAgentStart ${outcome.reason}: ${outcome.message}`;
        this.reportOnce(active.definition.id, "error", reason);
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
    for (const { active, fn } of this.handlers("beforeModelCall")) {
      const outcome = await withDeadline(() => fn({ turn }, active.runtime), this.deadline);
      if (!outcome.ok) {
        this.reportOnce(
          active.definition.id,
          "warning",
          `beforeModelCall hook ${outcome.reason}: ${outcome.message}`,
        );
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
    for (const { active, fn } of this.handlers("beforeToolCall")) {
      const outcome = await withDeadline(() => fn({ ...event, args }, active.runtime), this.deadline);
      if (!outcome.ok) {
        const reason = `Blocked: extension ${active.definition.id}'s policy ${outcome.reason === "timeout" ? "timed out" : "failed"} (${outcome.message}).`;
        this.reportOnce(
          active.definition.id,
          "error",
          `beforeToolCall ${outcome.reason}: ${outcome.message}`,
        );
        return { action: "block", reason };
      }
      const value = outcome.value as { action?: string; reason?: unknown; args?: unknown } | undefined;
      if (value?.action === "block") {
        return {
          action: "block",
          reason: typeof value.reason === "string" ? value.reason : `Blocked by ${active.definition.id}.`,
        };
      }
      if (value?.action === "continue" && value.args && typeof value.args === "object")
        args = value.args as Record<string, unknown>;
    }
    return { action: "continue", args };
  }

  /** afterToolCall: observers that may patch the result; a failure keeps the result as it was. */
  async afterToolCall(event: AfterToolCallEvent): Promise<AfterToolCallEvent["result"]> {
    let result = event.result;
    for (const { active, fn } of this.handlers("afterToolCall")) {
      const outcome = await withDeadline(() => fn({ ...event, result }, active.runtime), this.deadline);
      if (!outcome.ok) {
        this.reportOnce(
          active.definition.id,
          "warning",
          `afterToolCall hook ${outcome.reason}: ${outcome.message}`,
        );
        continue;
      }
      const patched = (outcome.value as { result?: AfterToolCallEvent["result"] } | undefined)?.result;
      if (patched) result = patched;
    }
    return result;
  }

  /** sessionShutdown to all, then deactivation in reverse order. */
  async shutdown(reason: "exit" | "reload" | "switch"): Promise<void> {
    await this.notify("sessionShutdown", { reason });
    this.catalogs.close();
    for (const active of [...this.active].reverse()) await this.deactivateOne(active);
    this.active = [];
  }
}

function safeList<T>(fn: () => T): { ok: true; value: T } | { ok: false; message: string } {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}
