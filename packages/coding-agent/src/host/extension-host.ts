// Hosts extensions: validates every declaration before anything runs, activates each one alone
// (a failure rolls back that extension only), and dispatches each hook kind through one path with
// a deadline and a signal. The kernel and its child agents reach extensions only through here.
// The parts live beside it: validation.ts, activation.ts (with rollback), hooks.ts (dispatch),
// tool-context.ts (what a tool call gets), trust-answers.ts, runtime.ts, catalogs.
import type { ToolExecutionContext } from "@keel/agent";
import {
  type AfterToolCallEvent,
  type ExtensionDefinition,
  type ExtensionRuntime,
  type HookName,
  listTools,
  type ToolCallContext,
  type ToolCallEvent,
} from "@keel/extension-sdk";
import { ok, type Result } from "neverthrow";
import type { CommandRegistry } from "../commands/registry.js";
import type { DeclaredTool } from "../tools/declarations.js";
import { type ActivationContext, activateExtension, deactivateExtension } from "./activation.js";
import { CatalogView } from "./catalog-tools.js";
import { CatalogRegistry, EXECUTE_TOOL, SEARCH_TOOLS } from "./catalogs.js";
import { extensionCommandRefusal } from "./commands.js";
import type { ExtensionConfigLayers } from "./config.js";
import { HookDispatch, type PromptRefused } from "./hooks.js";
import { MentionTable } from "./mentions.js";
import type { Caller, HostServices, MutableRuntime } from "./runtime.js";
import { extensionTools, toolCallContext } from "./tool-context.js";
import { type ProjectPlace, trustApprovals, trustPreviews } from "./trust-answers.js";
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

/** What the kernel needs of a host; the session's own is the ExtensionHost, a child agent gets a narrower view. */
export interface HostView {
  readonly catalogs: CatalogView;
  /** Resident extension tools, then the catalog pair when any catalog exists. */
  tools(): DeclaredTool[];
  notify(hook: HookName, event: object): Promise<void>;
  beforeAgentStart(prompt: string): Promise<Result<string, PromptRefused>>;
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
  private readonly hooks: HookDispatch;
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
    this.hooks = new HookDispatch(
      () => this.active,
      this.deadline,
      (id, level, message) => this.reportOnce(id, level, message),
    );
  }

  /** Validates, then activates each extension alone; never throws. */
  static async start(options: ExtensionHostOptions, services: HostServices): Promise<ExtensionHost> {
    const host = new ExtensionHost(services, options);
    const accepted = host.validate();
    // A rule or a child's allow list naming a resident tool means that tool, never an entry.
    host.registry.reserveResident(accepted.flatMap((a) => listTools(a.source.definition).map((t) => t.name)));
    for (const item of accepted) {
      const active = await activateExtension(host.activation(), item);
      if (active) host.active.push(active);
    }
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

  /** What activating and deactivating an extension registers into and reports to. */
  private activation(): ActivationContext {
    return {
      services: this.services,
      commands: this.commands,
      registry: this.registry,
      mentions: this.mentions,
      deadlineMs: this.deadline,
      report: (id, level, message) => this.reportOnce(id, level, message),
      fail: (source, message) => this.fail(source, message),
    };
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
    return toolCallContext(this.services, extensionId, loop, caller);
  }

  /** Resident tools for the session's agent (no caller) or a child agent (its caller). */
  toolsFor(caller: Caller = {}, view: CatalogView = this.catalogs): DeclaredTool[] {
    const contextFor = (extensionId: string, loop: ToolExecutionContext) =>
      this.contextFor(extensionId, loop, caller);
    const tools = extensionTools(this.active, contextFor);
    if (!this.registry.isEmpty) tools.push(...view.residentTools(contextFor));
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

  /** Observer hooks: every handler runs; a failure is reported once and the run goes on. */
  notify(hook: HookName, event: object): Promise<void> {
    return this.hooks.notify(hook, event);
  }

  /** beforeAgentStart: a prompt transform chain; a failure refuses the run. */
  beforeAgentStart(prompt: string): Promise<Result<string, PromptRefused>> {
    return this.hooks.beforeAgentStart(prompt);
  }

  /** beforeModelCall: contexts of all extensions for this one request; a failing one contributes nothing. */
  beforeModelCall(turn: number): Promise<string | undefined> {
    return this.hooks.beforeModelCall(turn);
  }

  /** beforeToolCall: a policy chain; a throw or a missed deadline blocks (fail closed). */
  beforeToolCall(event: ToolCallEvent): Promise<ToolCallDecision> {
    return this.hooks.beforeToolCall(event);
  }

  /** afterToolCall: observers that may patch the result; a failure keeps the result as it was. */
  afterToolCall(event: AfterToolCallEvent): Promise<AfterToolCallEvent["result"]> {
    return this.hooks.afterToolCall(event);
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
      beforeAgentStart: async (prompt) => ok(prompt),
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
    for (const active of [...this.active].reverse()) await deactivateExtension(this.activation(), active);
    this.active = [];
  }

  /**
   * What each extension says it would read or run from the project once trusted (its
   * trustPreview), one deadline each; a failing one says so instead of its lines.
   */
  trustPreviews(project: ProjectPlace): Promise<{ extensionId: string; lines: string[] }[]> {
    return trustPreviews(this.active, project, this.deadline);
  }

  /**
   * What each extension would honour from the project that widens what runs unasked (its
   * trustApprovals), by extension id, one deadline each. One that fails contributes nothing, so
   * nothing of it is approved.
   */
  trustApprovals(project: ProjectPlace): Promise<Record<string, Record<string, string>>> {
    return trustApprovals(this.active, project, this.deadline);
  }

  /** The runtime of an active extension (tests, the kernel's own services). */
  runtimeOf(extensionId: string): ExtensionRuntime | undefined {
    return this.active.find((a) => a.definition.id === extensionId)?.runtime;
  }
}
