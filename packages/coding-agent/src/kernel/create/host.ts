// Creation's host step: the services extensions get (runtime, UI, models, approvals, sandbox),
// their configuration by layer, and the ExtensionHost that activates them one by one.
import { join } from "node:path";
import type { ModelRegistry, StreamOptions } from "@keel/ai";
import type { LoadedConfig } from "../../config/load.js";
import { ExtensionHost } from "../../host/extension-host.js";
import type { CommandSandbox } from "../../sandbox/runtime.js";
import type { BuiltinTool } from "../../tools/shared.js";
import type { AgentSupervisor } from "../agents.js";
import type { KernelAgent } from "../coding-agent.js";
import type { KernelPermission } from "../permission.js";
import { createHostServices, hostUI } from "../services.js";
import type { CodingAgentError, CodingAgentOptions, PermissionModeName } from "../types.js";
import { extensionConfigOf, projectExtensionConfig } from "./config.js";
import type { GatheredExtensions } from "./extensions.js";
import type { ProjectTrust } from "./project-trust.js";

export interface HostInput {
  options: CodingAgentOptions;
  kernel: KernelAgent;
  cwd: string;
  home: string;
  project: ProjectTrust;
  /** Ephemeral sessions keep no extension data. */
  persistent: boolean;
  registry: ModelRegistry;
  streamOptions: StreamOptions;
  permission: KernelPermission;
  mode: PermissionModeName;
  sandbox: CommandSandbox;
  loaded: LoadedConfig;
  extensions: GatheredExtensions;
  builtinTools: readonly BuiltinTool[];
  /** Claude Code's user folder, when its files are read. */
  claudeHome: string | undefined;
  /** The session's child agents, there once the host has started. */
  supervisor: () => AgentSupervisor | undefined;
}

export async function startExtensionHost(input: HostInput): Promise<ExtensionHost> {
  const { options, kernel, cwd, home, loaded, extensions } = input;
  const { projectRoot, trusted, trust } = input.project;
  // Set once activation is over; services asked during activation see no host yet.
  let started: ExtensionHost | undefined;
  const ui = hostUI(options.ui, (e) => kernel.emit(e));
  const services = createHostServices({
    kernel,
    home,
    workspace: {
      cwd,
      projectRoot,
      trusted,
      keelHome: home,
      ...(input.claudeHome ? { claudeHome: input.claudeHome } : {}),
    },
    approvals: trust.isOk() && trusted ? (trust.value.approvals ?? {}) : {},
    persistent: input.persistent,
    ui,
    hostUi: options.ui,
    registry: input.registry,
    streamOptions: input.streamOptions,
    permission: input.permission,
    mode: () => input.mode,
    supervisor: input.supervisor,
    host: () => started,
    userConfigFile: join(home, "config.json"),
    sandbox: input.sandbox,
  });
  const host: ExtensionHost = await ExtensionHost.start(
    {
      extensions: extensions.sources.filter((s) => s.explicit || extensions.enabled(s.definition.id)),
      reservedTools: input.builtinTools.map((t) => t.name),
      commands: kernel.commands,
      required: extensions.required,
      ...(options.hookDeadlineMs !== undefined ? { hookDeadlineMs: options.hookDeadlineMs } : {}),
      config: {
        user: extensionConfigOf(loaded.layers.user),
        project: projectExtensionConfig(loaded, trusted),
        userFile: join(home, "config.json"),
        projectFile: join(projectRoot, ".keel", "config.json"),
        ...(options.extensionConfig ? { session: options.extensionConfig } : {}),
      },
    },
    services,
  );
  started = host;
  return host;
}

/** A required extension that failed to activate fails the start. */
export function requiredFailure(host: ExtensionHost): CodingAgentError | undefined {
  const failures = host.failures.filter((f) => f.required);
  if (failures.length === 0) return undefined;
  return {
    type: "extension",
    message: `Required extension${failures.length > 1 ? "s" : ""} failed to load: ${failures.map((f) => `${f.extensionId} (${f.source}): ${f.message}`).join("; ")}`,
  };
}
