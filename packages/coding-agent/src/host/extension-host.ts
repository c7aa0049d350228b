// Hosts extensions: validates every declaration before anything runs, activates each one alone
// (a failure rolls back that extension only), and dispatches each hook kind through one path with
// a deadline and a signal. The kernel and its child agents reach extensions only through here.
import type { AgentTool, AgentToolResult, ToolExecutionContext } from "@keel/agent";
import {
  type AfterToolCallEvent,
  type ExtensionCommand,
  type ExtensionDefinition,
  type ExtensionRuntime,
  type HookName,
  listTools,
  type ToolCallContext,
  type ToolCallEvent,
} from "@keel/extension-sdk";
import type { CommandRegistry } from "../commands/registry.js";
import { errnoMessage } from "../fs/errno.js";
import { type DeclaredTool, declarationOf } from "../tools/declarations.js";
import { CatalogView } from "./catalog-tools.js";
import { CatalogRegistry, EXECUTE_TOOL, SEARCH_TOOLS } from "./catalogs.js";
import { addExtensionCommand, extensionCommandRefusal, extensionRegistrant } from "./commands.js";
import type { ExtensionConfigLayers } from "./config.js";
import { withDeadline } from "./deadline.js";
import { MentionTable } from "./mentions.js";
import { type Caller, createRuntime, type HostServices, type MutableRuntime } from "./runtime.js";
import { type Accepted, validateDeclarations } from "./validation.js";

export interface ExtensionSource {
  definition: ExtensionDefinition;
  /** Where it came from (a path, or a package name), for diagnostics. */
  source: string;
  /** The user asked for it by name (`-e`): failing to load it fails the start. */
  explicit?: boolean;
  /** The folder relative paths of the definition (its `skills`) are resolved against. */
  root?: string;
}

export interface ExtensionHostOptions {
  extensions: ExtensionSource[];
  /** Built-in tool names; extensions may not take them. */
  reservedTools: readonly string[];
  /** The session's command registry, holding the built-in and the front end's commands already. */
  commands: CommandRegistry;
  config: ExtensionConfigLayers;
  /** Extension ids marked `required` in config: failing to load them fails the start. */
  required?: ReadonlySet<string>;
  /** Per-hook deadline; activation gets twice this. Default 5 s. */
  hookDeadlineMs?: number;
}

/** An extension that is not running, and why; `required` ones make the start fail. */
export interface LoadFailure {
  extensionId: string;
  source: string;
  message: string;
  required: boolean;
}

export interface Active {
  definition: ExtensionDefinition;
  runtime: MutableRuntime;
  source: string;
  root?: string;
  /** The resident tools it offers this session, listed once after activation. */
  tools: ExtensionTool[];
}

type ExtensionTool = ReturnType<typeof listTools>[number];

export type ToolCallDecision =
  | { action: "continue"; args: Record<string, unknown> }
  | { action: "block"; reason: string };

type HookFn = (event: unknown, runtime: unknown, context: { signal: AbortSignal }) => unknown;

/** What the kernel needs of a host; the session's own is the ExtensionHost, a child agent gets a narrower view. */
export interface HostView {
  readonly catalogs: CatalogView;
  /** Resident extension tools, then the catalog pair when any catalog exists. */
  tools(): DeclaredTool[];
  notify(hook: HookName, event: object): Promise<void>;
  beforeAgentStart(prompt: string): Promise<{ ok: true; prompt: string } | { ok: false; reason: string }>;
  beforeModelCall(turn: number): Promise<string | undefined>;
  beforeToolCall(event: ToolCallEvent): Promise<ToolCallDecision>;
  afterToolCall(event: AfterToolCallEvent): Promise<AfterToolCallEvent["result"]>;
  /** How a resident tool wants approvals: "extension" tools ask by themselves. */
  approvalOf(toolName: string): "kernel" | "extension";
}

export class ExtensionHost implements HostView {
  private active: Active[] = [];
  readonly registry: CatalogRegistry;
  readonly catalogs: CatalogView;
  /** The session's command registry, which this host registers extensions' commands into. */
  readonly commands: CommandRegistry;
  /** `@<prefix>:<ref>` sources of the session's extensions (a child agent has no prompt input). */
  readonly mentions: MentionTable;
  private readonly reported = new Set<string>();
  private readonly deadline: number;
  readonly failures: LoadFailure[] = [];

  private constructor(
    private readonly services: HostServices,
    private readonly options: ExtensionHostOptions,
  ) {
    this.deadline = options.hookDeadlineMs ?? 5000;
    const reservedTools = new Set([...options.reservedTools, SEARCH_TOOLS, EXECUTE_TOOL]);
    this.registry = new CatalogRegistry(
      (id, message) => this.reportOnce(id, "error", message),
      reservedTools,
    );
    this.catalogs = new CatalogView(this.registry);
    this.commands = options.commands;
    this.mentions = new MentionTable((id, message) => this.reportOnce(id, "warning", message));
  }

  /** Validates, then activates each extension alone; never throws. */
  static async start(options: ExtensionHostOptions, services: HostServices): Promise<ExtensionHost> {
    const host = new ExtensionHost(services, options);
    const accepted = host.validate();
    // A rule or a child's allow list naming a resident tool means that tool, never an entry.
    host.registry.reserveResident(accepted.flatMap((a) => listTools(a.source.definition).map((t) => t.name)));
    for (const item of accepted) await host.activateOne(item);
    return host;
  }

  private reportOnce(extensionId: string, level: "info" | "warning" | "error", message: string): void {
    const key = `${extensionId}\0${message}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.services.report({ extensionId, level, message });
  }

  private fail(source: ExtensionSource, message: string): void {
    const id = source.definition.id;
    const required = source.explicit === true || this.options.required?.has(id) === true;
    this.failures.push({ extensionId: id, source: source.source, message, required });
    this.reportOnce(id, "error", `${message} (${source.source}); not loaded`);
  }

  /** Drops (with one diagnostic each) extensions whose declaration cannot be honoured whole. */
  private validate(): Accepted[] {
    return validateDeclarations(this.options, {
      commandRefusal: (command, id) => extensionCommandRefusal(this.commands, id, command),
      groupRefusal: (group) => this.registry.refusal(group),
      reject: (source, message) => this.fail(source, message),
      warn: (source, message) => this.reportOnce(source.definition.id, "warning", message),
    });
  }

  /**
   * Activates one extension. Commands and catalogs it adds while activating are held back and
   * registered only when activation succeeds, so a failure leaves nothing of it behind.
   */
  private async activateOne(item: { source: ExtensionSource; config: Accepted["config"] }): Promise<void> {
    const { definition, source: where, root } = item.source;
    const id = definition.id;
    let live = false;
    const staged: (() => void)[] = [];
    const runtime: MutableRuntime = createRuntime(definition, item.config.control, this.services, {
      commands: {
        add: (command) => {
          if (live) return this.addCommand(id, command, runtime);
          const refused = extensionCommandRefusal(this.commands, id, command);
          if (refused) return { ok: false, message: refused };
          staged.push(() => {
            const added = this.addCommand(id, command, runtime);
            if (!added.ok) this.reportOnce(id, "error", added.message);
          });
          return { ok: true };
        },
        remove: (name) => this.commands.remove(name, extensionRegistrant(id)),
      },
      catalogs: {
        add: (catalog) => {
          // Checked here: a staged bad catalog would otherwise throw out of the host's start.
          if (typeof catalog?.id !== "string" || typeof catalog.discover !== "function")
            return { ok: false, message: "a catalog needs an id (a string) and a discover function" };
          const group = CatalogRegistry.groupFor(id, catalog, -1);
          if (live) {
            const refused = this.registry.add(id, catalog, runtime, group);
            return refused ? { ok: false, message: refused } : { ok: true };
          }
          const refused = this.registry.refusal(group);
          if (refused) return { ok: false, message: refused };
          staged.push(() => {
            const problem = this.registry.add(id, catalog, runtime, group);
            if (problem) this.reportOnce(id, "error", problem);
          });
          return { ok: true };
        },
        remove: (catalogId) => this.registry.remove(id, catalogId),
      },
      mentions: {
        add: (source) => {
          if (live) return this.mentions.add(id, source);
          staged.push(() => {
            const added = this.mentions.add(id, source);
            if (!added.ok) this.reportOnce(id, "error", added.message);
          });
          return { ok: true };
        },
        remove: (sourceId) => this.mentions.remove(id, sourceId),
      },
    });
    const activate = definition.lifecycle?.activate;
    if (activate) {
      let activation: Promise<unknown> | undefined;
      const outcome = await withDeadline((signal) => {
        activation = Promise.resolve(
          activate(Object.assign(Object.create(runtime) as object, { signal }) as never),
        );
        return activation;
      }, this.deadline * 2);
      if (!outcome.ok) {
        this.fail(
          item.source,
          `activation ${outcome.reason === "timeout" ? "timed out" : "failed"}: ${outcome.message}`,
        );
        // One that ignored its signal and finishes later has opened what it meant to (connections,
        // watchers): it is deactivated then, so nothing of it is left running.
        if (outcome.reason === "timeout")
          void activation?.then(
            (instance) => {
              runtime.instance = instance;
              return this.deactivateOne({ definition, runtime, source: where, tools: [] });
            },
            () => undefined,
          );
        return;
      }
      runtime.instance = outcome.value;
    }
    // The session's tool list, fixed now: only declared tools (their names were checked), and a
    // tools() that throws given the runtime rolls this extension back like a failed activation.
    const tools: ExtensionTool[] = [];
    try {
      const declared = new Set(listTools(definition).map((t) => t.name));
      for (const tool of listTools(definition, runtime as never)) {
        if (declared.has(tool.name)) tools.push(tool);
        else
          this.reportOnce(
            id,
            "error",
            `tool "${tool.name}" is offered but was not declared (return every tool you may offer when tools() gets no runtime); left out`,
          );
      }
    } catch (e) {
      this.fail(item.source, `tools could not be listed: ${errnoMessage(e)}`);
      await this.deactivateOne({ definition, runtime, source: where, tools: [] });
      return;
    }
    live = true;
    for (const c of definition.commands ?? []) {
      const added = this.addCommand(id, c as ExtensionCommand, runtime);
      if (!added.ok) this.reportOnce(id, "error", added.message);
    }
    (definition.catalogs ?? []).forEach((catalog, i) => {
      const problem = this.registry.add(id, catalog, runtime, CatalogRegistry.groupFor(id, catalog, i));
      if (problem) this.reportOnce(id, "error", problem);
    });
    for (const register of staged) register();
    this.active.push({ definition, runtime, source: where, ...(root ? { root } : {}), tools });
  }

  private async deactivateOne(active: Active): Promise<void> {
    this.commands.removeAll(extensionRegistrant(active.definition.id));
    this.mentions.removeAll(active.definition.id);
    this.registry.removeAll(active.definition.id);
    const deactivate = active.definition.lifecycle?.deactivate;
    if (!deactivate) return;
    const outcome = await withDeadline(() => deactivate(active.runtime as never), this.deadline);
    if (!outcome.ok)
      this.reportOnce(active.definition.id, "warning", `deactivate ${outcome.reason}: ${outcome.message}`);
  }

  get extensionIds(): string[] {
    return this.active.map((a) => a.definition.id);
  }

  get activeExtensions(): readonly Active[] {
    return this.active;
  }

  /** Fixed system-prompt text from extensions, in load order. */
  systemPromptText(): string[] {
    return this.active.flatMap((a) => (a.definition.systemPrompt ? [a.definition.systemPrompt] : []));
  }

  /** The full tool-call context for a tool of `extensionId`, made by `caller`. */
  contextFor(extensionId: string, loop: ToolExecutionContext, caller: Caller = {}): ToolCallContext {
    const who: Caller = {
      toolCallId: loop.toolCallId,
      signal: loop.signal,
      ...(caller.agent ? { agent: caller.agent } : {}),
    };
    return {
      signal: loop.signal,
      toolCallId: loop.toolCallId,
      onUpdate: loop.onUpdate,
      runAgent: (options) => this.services.runAgent(extensionId, options, who),
      agents: () => this.services.agents(),
      approve: (request) =>
        this.services.approve(extensionId, request, { ...who, signal: request.signal ?? loop.signal }),
      // Ended with the call, or sooner by the extension's own signal.
      exec: (file, args, options) =>
        this.services.exec(
          extensionId,
          file,
          args,
          {
            ...options,
            signal: options?.signal ? AbortSignal.any([options.signal, loop.signal]) : loop.signal,
          },
          who,
        ),
      ...(caller.agent ? { agent: caller.agent } : {}),
    };
  }

  /** Resident tools for the session's agent (no caller) or a child agent (its caller). */
  toolsFor(caller: Caller = {}, view: CatalogView = this.catalogs): DeclaredTool[] {
    const tools: DeclaredTool[] = [];
    for (const a of this.active) {
      for (const tool of a.tools) {
        tools.push({
          name: tool.name,
          ...(tool.label ? { label: tool.label } : {}),
          description: tool.description,
          parameters: tool.parameters as AgentTool["parameters"],
          ...(tool.executionMode ? { executionMode: tool.executionMode } : {}),
          // What it declares travels with it: the kernel judges, journals and shows it by that.
          ...declarationOf(tool),
          execute: (args, context) =>
            tool.execute(
              args as never,
              this.contextFor(a.definition.id, context, caller),
              a.runtime,
            ) as Promise<AgentToolResult>,
        });
      }
    }
    if (!this.registry.isEmpty)
      tools.push(...view.residentTools((extensionId, loop) => this.contextFor(extensionId, loop, caller)));
    return tools;
  }

  tools(): DeclaredTool[] {
    return this.toolsFor();
  }

  /** The `approval` a resident tool declares ("extension": it asks by itself). */
  approvalOf(toolName: string): "kernel" | "extension" {
    for (const a of this.active)
      for (const tool of a.tools) if (tool.name === toolName) return tool.approval ?? "kernel";
    return "kernel";
  }

  private addCommand(extensionId: string, command: ExtensionCommand, runtime: MutableRuntime) {
    return addExtensionCommand(this.commands, extensionId, command, runtime as never, (id, message) =>
      this.reportOnce(id, "error", message),
    );
  }

  private handlers(hook: HookName): { active: Active; fn: HookFn }[] {
    const list: { active: Active; fn: HookFn }[] = [];
    for (const active of this.active) {
      const fn = active.definition.hooks?.[hook] as HookFn | undefined;
      if (fn) list.push({ active, fn: fn.bind(active.definition.hooks) as HookFn });
    }
    return list;
  }

  private call(entry: { active: Active; fn: HookFn }, event: object) {
    return withDeadline((signal) => entry.fn(event, entry.active.runtime, { signal }), this.deadline);
  }

  /** Observer hooks: every handler runs; a failure is reported once and the run goes on. */
  async notify(hook: HookName, event: object): Promise<void> {
    for (const entry of this.handlers(hook)) {
      const outcome = await this.call(entry, event);
      if (!outcome.ok)
        this.reportOnce(
          entry.active.definition.id,
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
    for (const entry of this.handlers("beforeAgentStart")) {
      const outcome = await this.call(entry, { prompt: current });
      if (!outcome.ok) {
        const reason = `extension ${entry.active.definition.id}: beforeAgentStart ${outcome.reason}: ${outcome.message}`;
        this.reportOnce(entry.active.definition.id, "error", reason);
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
        this.reportOnce(
          entry.active.definition.id,
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
    for (const entry of this.handlers("beforeToolCall")) {
      const id = entry.active.definition.id;
      const outcome = await this.call(entry, { ...event, args });
      if (!outcome.ok) {
        this.reportOnce(id, "error", `beforeToolCall ${outcome.reason}: ${outcome.message}`);
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
        this.reportOnce(
          entry.active.definition.id,
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

  /** A child agent's view: its own tools and catalog subset; only the policy hooks apply to it. */
  childView(
    caller: Required<Pick<Caller, "agent">>,
    allowTool: (name: string) => boolean,
    catalogs: CatalogView,
  ): HostView {
    const agent = caller.agent;
    return {
      catalogs,
      tools: () => this.toolsFor(caller, catalogs).filter((t) => allowTool(t.name)),
      notify: async () => {},
      beforeAgentStart: async (prompt) => ({ ok: true, prompt }),
      beforeModelCall: async () => undefined,
      beforeToolCall: (event) => this.beforeToolCall({ ...event, agent }),
      afterToolCall: (event) => this.afterToolCall({ ...event, agent }),
      approvalOf: (name) => this.approvalOf(name),
    };
  }

  /** sessionShutdown to all with its reason; on exit and reload, deactivation in reverse order too. */
  async shutdown(reason: "exit" | "reload" | "fork" | "switch"): Promise<void> {
    await this.notify("sessionShutdown", { reason });
    if (reason === "fork") return;
    this.registry.close();
    for (const active of [...this.active].reverse()) await this.deactivateOne(active);
    this.active = [];
  }

  /**
   * What each extension says it would read or run from the project once trusted (its
   * trustPreview), one deadline each; a failing one says so instead of its lines.
   */
  async trustPreviews(project: {
    cwd: string;
    projectRoot: string;
  }): Promise<{ extensionId: string; lines: string[] }[]> {
    const out: { extensionId: string; lines: string[] }[] = [];
    for (const a of this.active) {
      const preview = a.definition.trustPreview;
      if (!preview) continue;
      const outcome = await withDeadline(
        (signal) => preview.call(a.definition, project, { signal }),
        this.deadline,
      );
      const lines = outcome.ok
        ? (Array.isArray(outcome.value) ? outcome.value : []).filter(
            (l): l is string => typeof l === "string",
          )
        : [`(could not be listed: ${outcome.message})`];
      if (lines.length > 0) out.push({ extensionId: a.definition.id, lines });
    }
    return out;
  }

  /**
   * What each extension would honour from the project that widens what runs unasked (its
   * trustApprovals), by extension id, one deadline each. One that fails contributes nothing, so
   * nothing of it is approved.
   */
  async trustApprovals(project: {
    cwd: string;
    projectRoot: string;
  }): Promise<Record<string, Record<string, string>>> {
    const out: Record<string, Record<string, string>> = {};
    for (const a of this.active) {
      const approvals = a.definition.trustApprovals;
      if (!approvals) continue;
      const outcome = await withDeadline(
        (signal) => approvals.call(a.definition, project, { signal }),
        this.deadline,
      );
      if (!outcome.ok || typeof outcome.value !== "object" || outcome.value === null) continue;
      const entries = Object.entries(outcome.value).filter(
        (e): e is [string, string] => typeof e[1] === "string",
      );
      if (entries.length > 0) out[a.definition.id] = Object.fromEntries(entries);
    }
    return out;
  }

  /** The runtime of an active extension (tests, the kernel's own services). */
  runtimeOf(extensionId: string): ExtensionRuntime | undefined {
    return this.active.find((a) => a.definition.id === extensionId)?.runtime;
  }
}
