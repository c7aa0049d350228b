// defineExtension: the declarative contract. Tools, state, configuration, hooks and commands are
// visible before activation, so the host can validate, reserve names and roll back.
import type { Model } from "@keel/ai";
import type { Static, TSchema } from "@sinclair/typebox";
import type { Hooks } from "./hooks.js";
import type { CatalogEntry, ExtensionTool } from "./tools.js";
import type { ExtensionUI } from "./ui.js";

export interface ConfigLayers<T> {
  user: T | undefined;
  /** Always undefined unless the workspace is trusted. */
  project: T | undefined;
}

export type ConfigurationSpec<S extends TSchema> =
  | { scope: "user" | "project"; schema: S; default: Static<S> }
  | {
      scope: "layered";
      schema: S;
      default: Static<S>;
      resolve?(layers: ConfigLayers<Static<S>>): Static<S>;
    };

export interface SessionStateSpec<S extends TSchema> {
  schema: S;
  default: Static<S>;
}

/** Session state: persisted as app_state journal entries, so it follows branches, rewinds and forks. */
export interface StateHandle<T> {
  get(): T;
  /** Replaces the state (validated against the schema) and journals it. */
  set(next: T): void;
  update(fn: (current: T) => T): void;
}

export interface SessionInfo {
  id: string;
  cwd: string;
  /** False for ephemeral (unjournaled) sessions. */
  persistent: boolean;
}

export interface Diagnostic {
  extensionId: string;
  level: "info" | "warning" | "error";
  message: string;
}

export interface ExtensionRuntime<Config = unknown, State = unknown, Instance = unknown> {
  readonly id: string;
  readonly config: Config;
  readonly state: StateHandle<State>;
  /** What `lifecycle.activate` returned. */
  readonly instance: Instance;
  readonly ui: ExtensionUI;
  readonly session: SessionInfo;
  readonly cwd: string;
  /** The model in use now. */
  model(): Model;
  /** Reports one diagnostic line to the user. */
  report(level: Diagnostic["level"], message: string): void;
  /** Queues a message for the model: steering while a run is going, otherwise a new run. */
  sendMessage(text: string, options?: { deliverAs?: "steer" | "followUp" | "prompt" }): void;
}

/** What `activate` sees: everything of the runtime except the instance it is about to create. */
export type ActivationContext<Config, State> = Omit<ExtensionRuntime<Config, State, never>, "instance">;

export interface Lifecycle<Config, State, Instance> {
  activate?(context: ActivationContext<Config, State>): Instance | Promise<Instance>;
  deactivate?(runtime: ExtensionRuntime<Config, State, Instance>): void | Promise<void>;
}

export interface ToolCatalog<Rt = ExtensionRuntime> {
  /** Unique within the extension; notices group tools by it. */
  id: string;
  label?: string;
  /** The current inventory. Called when the host first needs it and after each invalidation. */
  discover(runtime: Rt): CatalogEntry[] | Promise<CatalogEntry[]>;
  /** Calls `invalidate` whenever the inventory may have changed; returns an unsubscribe function. */
  subscribe?(invalidate: () => void, runtime: Rt): (() => void) | undefined;
}

export interface CommandResult {
  /** Shown to the user. */
  message?: string;
  /** Sent to the agent as a prompt. */
  prompt?: string;
}

export interface ExtensionCommand<Rt = ExtensionRuntime> {
  /** Without the slash: `/name args`. */
  name: string;
  description: string;
  /** Shown in completion, e.g. "<task>". */
  argumentHint?: string;
  run(args: string, runtime: Rt): CommandResult | void | Promise<CommandResult | void>;
}

/** Builds a resident tool whose argument types follow its schema (see `tools` below). */
export type ToolBuilder<Rt> = <TParams extends TSchema, TDetails = unknown>(
  tool: ExtensionToolFor<Rt, TParams, TDetails>,
) => ExtensionToolFor<Rt>;

export interface ExtensionDefinition<
  ConfigSchema extends TSchema = TSchema,
  StateSchema extends TSchema = TSchema,
  Instance = unknown,
> {
  /** Stable id: lowercase letters, digits and dashes. Names state, config and diagnostics. */
  id: string;
  description?: string;
  configuration?: ConfigurationSpec<ConfigSchema>;
  sessionState?: SessionStateSpec<StateSchema>;
  lifecycle?: Lifecycle<Static<ConfigSchema>, Static<StateSchema>, Instance>;
  hooks?: Hooks<ExtensionRuntime<Static<ConfigSchema>, Static<StateSchema>, Instance>>;
  /**
   * Resident tools: sent every request, so keep them few. Written as `(tool) => [tool({...})]` so
   * each tool's `execute` gets arguments typed from its own schema and the typed runtime.
   */
  tools?: (
    tool: ToolBuilder<ExtensionRuntime<Static<ConfigSchema>, Static<StateSchema>, Instance>>,
  ) => ExtensionToolFor<ExtensionRuntime<Static<ConfigSchema>, Static<StateSchema>, Instance>>[];
  catalogs?: ToolCatalog<ExtensionRuntime<Static<ConfigSchema>, Static<StateSchema>, Instance>>[];
  commands?: ExtensionCommand<ExtensionRuntime<Static<ConfigSchema>, Static<StateSchema>, Instance>>[];
  /** Fixed text added to the system prompt when a session starts (never mid-session). */
  systemPrompt?: string;
}

/** A resident tool whose execute also receives the extension runtime. */
export interface ExtensionToolFor<Rt, TParams extends TSchema = TSchema, TDetails = unknown>
  extends Omit<ExtensionTool<TParams, TDetails>, "execute"> {
  execute(
    args: Static<TParams>,
    context: Parameters<ExtensionTool<TParams, TDetails>["execute"]>[1],
    runtime: Rt,
  ): ReturnType<ExtensionTool<TParams, TDetails>["execute"]>;
}

export const EXTENSION_ID_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;

/** Declares an extension. Types of config and state flow from their schemas into every hook. */
export function defineExtension<
  ConfigSchema extends TSchema = TSchema,
  StateSchema extends TSchema = TSchema,
  Instance = undefined,
>(
  definition: ExtensionDefinition<ConfigSchema, StateSchema, Instance>,
): ExtensionDefinition<ConfigSchema, StateSchema, Instance> {
  return definition;
}

/** The identity builder the host passes to `tools`; exported so tests and hosts can list tools. */
export function listTools<Rt>(definition: {
  tools?: (tool: ToolBuilder<Rt>) => ExtensionToolFor<Rt>[];
}): ExtensionToolFor<Rt>[] {
  const identity = ((tool: unknown) => tool) as ToolBuilder<Rt>;
  return definition.tools ? definition.tools(identity) : [];
}

/** Marker so loaders can tell a definition from a factory without running anything. */
export function isExtensionDefinition(value: unknown): value is ExtensionDefinition {
  return typeof value === "object" && value !== null && typeof (value as { id?: unknown }).id === "string";
}
