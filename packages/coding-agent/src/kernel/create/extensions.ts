// Creation's extension step: what loads — composed modules, then config hooks, -e paths, user and
// (trusted) project folders and installed packages — and whether a required one is missing.
// Nothing here activates: that is the host's (host.ts).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { err, ok, type Result } from "neverthrow";
import type { LoadedConfig } from "../../config/load.js";
import type { ExtensionSource } from "../../host/extension-host.js";
import { loadComposed } from "../../loader/composed.js";
import { loadExtensions } from "../../loader/load-extensions.js";
import { packagesDir } from "../../loader/packages.js";
import type { Attention } from "../claude-hooks.js";
import type { KernelAgent } from "../coding-agent.js";
import { configHooksExtension } from "../config-hooks.js";
import type { KernelPermission } from "../permission.js";
import type { CodingAgentError, CodingAgentOptions } from "../types.js";

export interface GatheredExtensions {
  /** In load order; those config turned off are filtered out when the host starts. */
  sources: ExtensionSource[];
  /** Ids config marks `required`. */
  required: Set<string>;
  /** Whether config leaves an extension on. */
  enabled: (id: string) => boolean;
}

export interface GatherInput {
  options: CodingAgentOptions;
  cwd: string;
  home: string;
  projectRoot: string;
  trusted: boolean;
  loaded: LoadedConfig;
  permission: KernelPermission;
  attention: Set<(a: Attention) => void>;
  kernel: KernelAgent;
}

/** Loads every extension's definition; a required or explicitly named one that cannot load is an error. */
export async function gatherExtensions(
  input: GatherInput,
): Promise<Result<GatheredExtensions, CodingAgentError>> {
  const { options, cwd, home, projectRoot, trusted, loaded, permission, attention, kernel } = input;
  const config = loaded.config;
  const enabled = (id: string) => config.extensions?.[id]?.enabled !== false;
  // Composed modules load (the enabled ones) while user extensions are found and imported.
  const composing = loadComposed(options.extensions ?? [], enabled);
  const sources: ExtensionSource[] = [];
  if (config.hooks && Object.keys(config.hooks).length > 0) {
    // In the project root, wherever keel started: a hook's paths then name the files trust hashed.
    sources.push({
      definition: configHooksExtension(config.hooks, projectRoot, {
        mode: () => permission.mode(),
        sessionFile: () => kernel.sessionFile,
        env: config.env ?? {},
        onAttention: (listener) => {
          attention.add(listener);
          return () => attention.delete(listener);
        },
        report: (message) => kernel.report("warning", message),
      }),
      source: "config hooks",
    });
  }
  const discover = options.discoverExtensions !== false;
  const where = { keelHome: home, projectRoot };
  const installed = discover
    ? [
        ...(loaded.layers.user?.packages ?? []).map((p) =>
          join(packagesDir("user", where), "node_modules", p.name),
        ),
        ...(trusted ? (loaded.layers.project?.packages ?? []) : []).flatMap((p) => {
          const path = join(packagesDir("project", where), "node_modules", p.name);
          if (existsSync(path)) return [path];
          kernel.report(
            "warning",
            `This project declares the extension package ${p.name}@${p.version}; install it with: keel install --project`,
          );
          return [];
        }),
      ]
    : [];
  const userLoaded = await loadExtensions({
    cwd,
    paths: options.extensionPaths ?? [],
    directories: discover
      ? [join(home, "extensions"), ...(trusted ? [join(projectRoot, ".keel", "extensions")] : [])]
      : [],
    folders: installed,
    typescriptCache: join(home, "cache", "typescript"),
  });
  const composed = await composing;
  for (const f of composed.failures) kernel.report("error", `${f.message}; not loaded`, f.extensionId);
  for (const d of userLoaded.diagnostics) kernel.report(d.level, d.message, d.extensionId);
  sources.unshift(...composed.sources);
  sources.push(...userLoaded.extensions);
  const required = new Set(
    Object.entries(config.extensions ?? {}).flatMap(([id, v]) => (v?.required === true ? [id] : [])),
  );
  const failures = [...composed.failures, ...userLoaded.failures];
  // Composed ones config turned off were not loaded, yet they are there.
  const composedIds = new Set((options.extensions ?? []).map((e) => e.id));
  // A required or explicitly named extension that could not even be loaded fails the start.
  const unloadable = [
    ...failures.filter((f) => f.explicit || required.has(f.extensionId)),
    ...[...required]
      .filter(
        (id) =>
          !composedIds.has(id) &&
          !sources.some((s) => s.definition.id === id) &&
          !failures.some((f) => f.extensionId === id),
      )
      .map((id) => ({
        extensionId: id,
        message: `extension "${id}" is marked required in config but was not found`,
        explicit: false,
      })),
  ];
  if (unloadable.length > 0)
    return err({
      type: "extension",
      message: `Required extension${unloadable.length > 1 ? "s" : ""} could not be loaded: ${unloadable.map((f) => f.message).join("; ")}`,
    });
  return ok({ sources, required, enabled });
}
