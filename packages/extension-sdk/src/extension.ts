// defineExtension: the declarative contract. Tools, state, configuration, hooks and commands are
// visible before activation, so the host can validate, reserve names and roll back.
import type { Static, TSchema } from "@sinclair/typebox";
import type { ToolCatalog } from "./catalogs.js";
import type { ExtensionCliCommand } from "./cli.js";
import type { ExtensionCommand } from "./commands.js";
import type { Hooks } from "./hooks.js";
import type { ActivationContext, ExtensionRuntime } from "./runtime.js";
import type { ExtensionTool, ToolParameters } from "./tools.js";

export interface ConfigLayers<T> {
  user: T | undefined;
  /** Always undefined unless the workspace is trusted. */
  project: T | undefined;
  /**
   * This session's own layer, from the host that started it (an editor's MCP servers over the
   * Agent Client Protocol): over the project, for this session only, never written. The user
   * chose it in their host, so it is read whether or not the workspace is trusted.
   */
  session?: T | undefined;
}

export type ConfigurationSpec<S extends TSchema> =
  | { scope: "user" | "project"; schema: S; default: Static<S> }
  | {
      scope: "layered";
      /** The resolved configuration. */
      schema: S;
      default: Static<S>;
      /**
       * What one file may hold (usually a partial of `schema`); each layer is validated against
       * it as written, before any default is applied. Default: `schema` with every property optional.
       */
      layerSchema?: TSchema;
      /**
       * Combines the raw layers (no defaults applied yet); the result is merged over `default`
       * and validated against `schema`. Without it, layers merge by Keel's one rule: objects
       * merge key by key (deeply), anything else in a later layer replaces the earlier value.
       */
      resolve?(layers: ConfigLayers<Partial<Static<S>>>): Partial<Static<S>>;
    };

/** The project a trust preview is about. */
export interface TrustPreviewProject {
  cwd: string;
  /** The root trust would apply to. */
  projectRoot: string;
}

export interface SessionStateSpec<S extends TSchema> {
  schema: S;
  default: Static<S>;
}

export interface Lifecycle<Config, State, Instance> {
  activate?(context: ActivationContext<Config, State>): Instance | Promise<Instance>;
  deactivate?(runtime: ExtensionRuntime<Config, State, Instance>): void | Promise<void>;
}

/** A resident tool whose execute also receives the extension runtime. */
export interface ExtensionToolFor<Rt, TParams extends ToolParameters = TSchema, TDetails = unknown>
  extends Omit<ExtensionTool<TParams, TDetails>, "execute"> {
  execute(
    args: Parameters<ExtensionTool<TParams, TDetails>["execute"]>[0],
    context: Parameters<ExtensionTool<TParams, TDetails>["execute"]>[1],
    runtime: Rt,
  ): ReturnType<ExtensionTool<TParams, TDetails>["execute"]>;
}

/** Builds a resident tool whose argument types follow its schema (see `tools` below). */
export type ToolBuilder<Rt> = <TParams extends ToolParameters, TDetails = unknown>(
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
   *
   * The host calls it twice. Without a runtime, when it validates the declaration: return every
   * tool the extension may offer, so their names are reserved and checked. With the activated
   * runtime, once, when the session's tool list is fixed: return the ones this session offers (a
   * subset of the first list), e.g. no search tool when no provider key is configured. The list
   * then stays as it is for the whole session (the cached prefix never changes); a config change
   * takes effect in the next session.
   */
  // A method, so a definition typed by its own schemas stays assignable to the general one.
  tools?(
    tool: ToolBuilder<ExtensionRuntime<Static<ConfigSchema>, Static<StateSchema>, Instance>>,
    runtime?: ExtensionRuntime<Static<ConfigSchema>, Static<StateSchema>, Instance>,
  ): ExtensionToolFor<ExtensionRuntime<Static<ConfigSchema>, Static<StateSchema>, Instance>>[];
  catalogs?: ToolCatalog<ExtensionRuntime<Static<ConfigSchema>, Static<StateSchema>, Instance>>[];
  commands?: ExtensionCommand<ExtensionRuntime<Static<ConfigSchema>, Static<StateSchema>, Instance>>[];
  /** Fixed text added to the system prompt when a session starts (never mid-session). */
  systemPrompt?: string;
  /**
   * Skill folders this package ships (absolute paths, or relative to the package's own folder);
   * the skills extension lists them like the user's.
   */
  skills?: string[];
  /**
   * What this extension would read or run from the project once it is trusted (its skills and
   * the tools they pre-approve, its MCP servers), one line each, for the trust dialog to show
   * before the user decides. Called only when the user is about to trust the project: it may
   * read the project's files for that, and must never run anything from them.
   */
  trustPreview?(project: TrustPreviewProject, context: { signal: AbortSignal }): string[] | Promise<string[]>;
  /**
   * What this extension would honour from the project that widens what runs unasked (a skill's
   * `allowed-tools`), as key → value (both shown to the user). The kernel records it when the user
   * trusts the project, shows what changed since in /trust, and hands the recorded entries back as
   * `workspace.approved`. Same rules as trustPreview: it may read the project, never run it.
   */
  trustApprovals?(
    project: TrustPreviewProject,
    context: { signal: AbortSignal },
  ): Record<string, string> | Promise<Record<string, string>>;
  /** `keel <name> …` subcommands (for official extensions the CLI composes). */
  cli?: ExtensionCliCommand[];
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

/**
 * The identity builder the host passes to `tools`; exported so tests and hosts can list tools.
 * Without `runtime`: every tool the extension may offer; with it: the ones that runtime offers.
 */
export function listTools<Rt>(
  definition: { tools?(tool: ToolBuilder<Rt>, runtime?: Rt): ExtensionToolFor<Rt>[] },
  runtime?: Rt,
): ExtensionToolFor<Rt>[] {
  const identity = ((tool: unknown) => tool) as ToolBuilder<Rt>;
  if (!definition.tools) return [];
  return runtime === undefined ? definition.tools(identity) : definition.tools(identity, runtime);
}

/** Marker so loaders can tell a definition from a factory without running anything. */
export function isExtensionDefinition(value: unknown): value is ExtensionDefinition {
  return typeof value === "object" && value !== null && typeof (value as { id?: unknown }).id === "string";
}
