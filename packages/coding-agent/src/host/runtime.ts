// Builds the runtime an extension sees: typed config (rewritable in the user layer), journaled
// session state, workspace and models, and the services the kernel provides (approvals, notices,
// child agents, usage, data dir, debug log, network). Everything the kernel does for it goes through here.

import { createNet } from "@keel/ai";
import type {
  AgentRecord,
  ApprovalDecision,
  ApprovalRequest,
  Diagnostic,
  ExecOptions,
  ExecOutcome,
  ExtensionDefinition,
  ExtensionRuntime,
  ExtensionUI,
  ExternalUsage,
  ModelsAccess,
  NoticeOptions,
  ProtectedSecret,
  Registration,
  RunAgentOptions,
  RunAgentOutcome,
  RuntimeNet,
  SessionInfo,
  StateHandle,
  WorkspaceInfo,
} from "@keel/extension-sdk";
import { Value } from "@sinclair/typebox/value";
import type { Result } from "neverthrow";
import { errnoMessage } from "../fs/errno.js";
import type { ExtensionConfigError } from "./config.js";

/**
 * The network as the model's requests see it (@keel/ai's proxy rules), shared by every extension:
 * it holds no state of its own, and the proxy variables are read at each request.
 */
const net: RuntimeNet = createNet();

/** Who makes a call: the session's own agent, or a child agent. */
export interface Caller {
  toolCallId?: string;
  agent?: { agentId: string; title: string };
  signal?: AbortSignal;
}

/** What the kernel provides to every extension runtime. */
export interface HostServices {
  /** The workspace; each extension's runtime adds what it had approved (`approved`). */
  workspace: Omit<WorkspaceInfo, "approved">;
  /** What each extension recorded as approved when the project was trusted, by extension id. */
  approvals: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The session now (a fork changes it). */
  session(): SessionInfo;
  ui: ExtensionUI;
  models: ModelsAccess;
  sendMessage(text: string, options?: { deliverAs?: "steer" | "followUp" | "prompt" }): void;
  persistNotice(extensionId: string, text: string, options?: NoticeOptions): void;
  /** The extension's state on the current branch (undefined → its default). */
  readState(extensionId: string): unknown;
  /** Journals a new state (an app_state entry). */
  writeState(extensionId: string, state: unknown): void;
  report(diagnostic: Diagnostic): void;
  debug(extensionId: string, message: string): void;
  dataDir(extensionId: string): string;
  /** Writes `extensions.<id>.config` in the user's config file (atomically); an error message otherwise. */
  writeUserConfig(extensionId: string, value: unknown): string | undefined;
  approve(extensionId: string, request: ApprovalRequest, caller: Caller): Promise<ApprovalDecision>;
  runAgent(extensionId: string, options: RunAgentOptions, caller: Caller): Promise<RunAgentOutcome>;
  agents(): AgentRecord[];
  recordUsage(extensionId: string, usage: ExternalUsage): void;
  allowForRun(extensionId: string, rules: string[], reason: string): Registration;
  extensionSkills(): { extensionId: string; path: string }[];
  /** Runs a program under the sandbox (see @keel/extension-sdk's Exec). */
  exec(
    extensionId: string,
    file: string,
    args: readonly string[],
    options: ExecOptions | undefined,
    caller: Caller,
  ): Promise<ExecOutcome>;
  protectSecret(extensionId: string, secret: ProtectedSecret): void;
}

/** What the host keeps per extension so the runtime can re-resolve its config after a write. */
export interface ConfigControl {
  current(): unknown;
  /** The user layer with defaults, as `updateConfig` hands it to the extension. */
  userBase(): unknown;
  /**
   * Validates a new user layer, then `write`s it (an error message when that fails) and only then
   * adopts it; returns the resolved config or why not.
   */
  adopt(userLayer: unknown, write: () => string | undefined): Result<unknown, ExtensionConfigError>;
}

export interface RuntimeRegistries {
  commands: ExtensionRuntime["commands"];
  catalogs: ExtensionRuntime["catalogs"];
  mentions: ExtensionRuntime["mentions"];
}

export interface MutableRuntime extends ExtensionRuntime {
  instance: unknown;
}

function stateHandle(definition: ExtensionDefinition, services: HostServices): StateHandle<unknown> {
  const spec = definition.sessionState;
  const get = (): unknown => {
    const stored = services.readState(definition.id);
    if (stored !== undefined) return structuredClone(stored);
    return spec ? structuredClone(spec.default) : undefined;
  };
  const set = (next: unknown): void => {
    if (!spec) throw new Error(`extension ${definition.id} declares no sessionState; add one to keep state`);
    if (!Value.Check(spec.schema, next)) {
      const first = [...Value.Errors(spec.schema, next)][0];
      throw new Error(
        `extension ${definition.id}: state ${first?.path || "/"} ${first?.message ?? "does not match its schema"}`,
      );
    }
    services.writeState(definition.id, structuredClone(next));
  };
  return { get, set, update: (fn) => set(fn(get())) };
}

export function createRuntime(
  definition: ExtensionDefinition,
  config: ConfigControl,
  services: HostServices,
  registries: RuntimeRegistries,
): MutableRuntime {
  const id = definition.id;
  const runtime: MutableRuntime = {
    id,
    get config() {
      return config.current();
    },
    state: stateHandle(definition, services),
    instance: undefined,
    ui: services.ui,
    get session() {
      return services.session();
    },
    workspace: { ...services.workspace, approved: services.approvals[id] ?? {} },
    cwd: services.workspace.cwd,
    models: services.models,
    model: () => services.models.current(),
    dataDir: () => services.dataDir(id),
    debug: (message) => services.debug(id, message),
    report: (level, message) => services.report({ extensionId: id, level, message }),
    sendMessage: (text, options) => services.sendMessage(text, options),
    persistNotice: (text, options) => services.persistNotice(id, text, options),
    // Answers the SDK's ConfigUpdate (runtime.updateConfig's contract), so its `{ ok }` shape stays.
    updateConfig: (scope, update) => {
      if (scope !== "user")
        return { ok: false, message: `only the user scope can be written (got "${scope}")` };
      if (definition.configuration?.scope === "project")
        return {
          ok: false,
          message: `${id}'s configuration is project-scoped; there is no user layer to write`,
        };
      let next: unknown;
      try {
        next = update(structuredClone(config.userBase()) as never);
      } catch (e) {
        return { ok: false, message: `the update threw: ${errnoMessage(e)}` };
      }
      const adopted = config.adopt(next, () => services.writeUserConfig(id, next));
      return adopted.isOk()
        ? { ok: true, config: adopted.value as never }
        : { ok: false, message: adopted.error.message };
    },
    approve: (request) => services.approve(id, request, {}),
    recordUsage: (usage) => services.recordUsage(id, usage),
    allowForRun: (rules, reason) => services.allowForRun(id, rules, reason),
    commands: registries.commands,
    catalogs: registries.catalogs,
    mentions: registries.mentions,
    agents: () => services.agents(),
    extensionSkills: () => services.extensionSkills(),
    exec: (file, args, options) => services.exec(id, file, args, options, {}),
    protectSecret: (secret) => services.protectSecret(id, secret),
    net,
  };
  return runtime;
}
