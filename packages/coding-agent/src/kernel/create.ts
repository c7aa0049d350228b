// createCodingAgent: resolves trust, configuration, model and session, loads extensions, builds
// the system prompt once, and hands a ready CodingAgent back. Never throws.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { preconnect } from "@keel/ai";
import { type Diagnostic, type ExtensionUI, headlessUI } from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";
import { DEFAULT_COMPACTION } from "../compaction/policy.js";
import { loadConfig } from "../config/load.js";
import { resolveKeelHome } from "../config/paths.js";
import { ExtensionHost, type ExtensionSource } from "../host/extension-host.js";
import { loadExtensions } from "../loader/load-extensions.js";
import { loadContextFiles } from "../prompt/context-files.js";
import { buildSystemPrompt } from "../prompt/system-prompt.js";
import { BUILTIN_TOOL_NAMES, createBuiltinTools } from "../tools/builtin.js";
import { TRUSTED_ROOT_FILES } from "../trust/hash.js";
import { findProjectRoot } from "../trust/root.js";
import { trustStatus } from "../trust/store.js";
import { KernelAgent } from "./coding-agent.js";
import { BUILTIN_COMMAND_NAMES } from "./commands.js";
import { configHooksExtension } from "./config-hooks.js";
import { chooseModel, modelRegistry, resolveModelRef } from "./model-choice.js";
import { createToolPermission } from "./permission.js";
import { defaultSessionDir, openChosenSession } from "./session-open.js";
import type { CodingAgent, CodingAgentError, CodingAgentEvent, CodingAgentOptions, HostUI } from "./types.js";

/** The UI extensions see: the host's where it has one, and every display also as an event. */
function hostUI(ui: HostUI | undefined, emit: (event: CodingAgentEvent) => void): ExtensionUI {
  const fallback = headlessUI();
  return {
    supports: ui?.supports ?? { ...fallback.supports, status: true, widget: true, notify: true },
    setStatus: (key, text) => {
      ui?.setStatus?.(key, text);
      emit({ type: "status", key, text });
    },
    setWidget: (key, lines) => {
      ui?.setWidget?.(key, lines);
      emit({ type: "widget", key, lines });
    },
    notify: (message, level = "info") => {
      ui?.notify?.(message, level);
      emit({ type: "notify", message, level });
    },
    confirm: ui?.confirm ?? fallback.confirm,
    select: ui?.select ?? fallback.select,
    input: ui?.input ?? fallback.input,
  };
}

export async function createCodingAgent(
  options: CodingAgentOptions,
): Promise<Result<CodingAgent, CodingAgentError>> {
  const cwd = options.cwd;
  const home = options.home ?? resolveKeelHome();
  const diagnostics: Diagnostic[] = [];
  const note = (level: Diagnostic["level"], message: string) =>
    diagnostics.push({ extensionId: "kernel", level, message });

  // Trust before anything from the project is read.
  const projectRoot = findProjectRoot(cwd, home);
  const trust = trustStatus(projectRoot, { home });
  const trusted = trust.isOk() && trust.value === "trusted";
  if (trust.isErr()) note("error", trust.error.message);
  else if (trust.value === "changed")
    note(
      "warning",
      `${projectRoot} changed since you trusted it; its config, extensions and hooks are ignored until you /trust it again.`,
    );
  else if (trust.value === "untrusted") {
    // Said only when something is being ignored (a stat each, nothing is read).
    const ignored = [".keel", ...TRUSTED_ROOT_FILES]
      .filter((name) => existsSync(join(projectRoot, name)))
      .map((name) => (name === ".keel" ? ".keel/ (config, extensions, hooks)" : name));
    if (ignored.length > 0) {
      note(
        "info",
        `${projectRoot} is not trusted, so its ${ignored.join(", ")} ${ignored.length === 1 ? "is" : "are"} ignored. Trust it with /trust (or keel -p /trust).`,
      );
    }
  }

  const loaded = loadConfig({ cwd, home, trusted, reportUntrusted: false });
  if (loaded.isErr()) return err({ type: "config", message: loaded.error.message });
  const { config } = loaded.value;
  for (const d of loaded.value.diagnostics) note(d.level, d.message);

  const registry = modelRegistry(config.providers);
  if (registry.isErr()) return err(registry.error);

  const opened = await openChosenSession(
    options.session ?? { mode: "new" },
    options.sessionDir ?? defaultSessionDir(home, cwd),
    cwd,
  );
  if (opened.isErr()) return err(opened.error);
  const { session, reason, temporaryDir } = opened.value;
  for (const notice of session.notices) note("warning", notice.message);
  const fail = async (e: CodingAgentError) => {
    await session.close();
    return err(e);
  };

  const folded = session.fold().model;
  const model = chooseModel(registry.value, [
    options.model,
    folded ? `${folded.provider}/${folded.modelId}` : undefined,
    config.model,
  ]);
  if (model.isErr()) return fail(model.error);
  // The first request's handshakes overlap the rest of the setup.
  preconnect(model.value, options.streamOptions);

  const mode = options.permissionMode ?? config.permissions?.mode ?? "default";
  const permission = createToolPermission({
    mode,
    rules: loaded.value.rules,
    workspace: projectRoot,
    cwd,
    keelHome: home,
    userHome: homedir(),
    trusted,
    ui: options.ui,
    report: (message) => kernel.report("info", message),
  });
  const builtinTools = createBuiltinTools({
    cwd,
    supportsImages: () => kernel.model().input.includes("image"),
    // The checker judges `cd name` as ./name: CDPATH (from a profile) must not send it elsewhere.
    bash: { env: { CDPATH: undefined } },
    grep: { guard: permission.readGuard },
    glob: { guard: permission.readGuard },
    ls: { guard: permission.readGuard },
  });

  const kernel: KernelAgent = new KernelAgent({
    cwd,
    projectRoot,
    home,
    session,
    ...(temporaryDir ? { temporaryDir } : {}),
    model: model.value,
    resolveModel: (ref) => resolveModelRef(registry.value, ref),
    systemPrompt: "",
    builtinTools,
    streamOptions: options.streamOptions ?? {},
    ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
    compaction: {
      ...DEFAULT_COMPACTION,
      ...(config.compaction?.threshold ? { threshold: config.compaction.threshold } : {}),
    },
    permission,
    diagnostics,
  });

  if (options.onEvent) kernel.subscribe(options.onEvent);
  for (const d of diagnostics) options.onEvent?.({ type: "diagnostic", diagnostic: d });
  // Recovery before anything else is journaled: a later entry would supersede a crashed
  // reply's checkpoint, and the user would lose text they already read.
  await kernel.recover();

  // Extensions: composed ones, then -e paths, then user and (trusted) project folders.
  const enabled = (id: string) => config.extensions?.[id]?.enabled !== false;
  const sources: ExtensionSource[] = (options.extensions ?? []).map((definition) => ({
    definition,
    source: "built-in",
  }));
  if (config.hooks && Object.keys(config.hooks).length > 0) {
    sources.push({ definition: configHooksExtension(config.hooks, cwd), source: "config hooks" });
  }
  const discover = options.discoverExtensions !== false;
  const userLoaded = await loadExtensions({
    cwd,
    paths: options.extensionPaths ?? [],
    directories: discover
      ? [join(home, "extensions"), ...(trusted ? [join(projectRoot, ".keel", "extensions")] : [])]
      : [],
  });
  for (const d of userLoaded.diagnostics) kernel.report(d.level, d.message, d.extensionId);
  sources.push(...userLoaded.extensions);

  const extensionConfig = (layer: Record<string, unknown> | undefined) =>
    Object.fromEntries(
      Object.entries((layer?.extensions as Record<string, { config?: unknown }> | undefined) ?? {}).map(
        ([id, v]) => [id, v?.config],
      ),
    );
  const host = await ExtensionHost.start(
    {
      extensions: sources.filter((s) => enabled(s.definition.id)),
      reservedTools: BUILTIN_TOOL_NAMES,
      reservedCommands: BUILTIN_COMMAND_NAMES,
      ...(options.hookDeadlineMs !== undefined ? { hookDeadlineMs: options.hookDeadlineMs } : {}),
      config: {
        user: extensionConfig(loaded.value.layers.user),
        project: trusted
          ? extensionConfig({
              extensions: {
                ...loaded.value.layers.project?.extensions,
                ...loaded.value.layers.projectLocal?.extensions,
              },
            })
          : undefined,
        userFile: join(home, "config.json"),
        projectFile: join(projectRoot, ".keel", "config.json"),
      },
    },
    {
      cwd,
      session: { id: session.id, cwd, persistent: temporaryDir === undefined },
      ui: hostUI(options.ui, (e) => kernel.emit(e)),
      model: () => kernel.model(),
      sendMessage: (text, o) => {
        if (o?.deliverAs === "followUp") kernel.followUp(text);
        else kernel.steer(text);
      },
      readState: (id) => kernel.session.fold().extensionStates[id],
      writeState: (id, state) => {
        void kernel.session.appendEntry({ type: "app_state", extensionId: id, state }).then((r) => {
          if (r.isErr()) kernel.report("error", `Could not journal ${id}'s state: ${r.error.message}`, id);
        });
      },
      report: (d) => kernel.report(d.level, d.message, d.extensionId),
    },
  );

  const toolNames = [...builtinTools, ...host.tools()].map((t) => t.name);
  const systemPrompt = buildSystemPrompt({
    cwd,
    date: new Date().toISOString().slice(0, 10),
    platform: `${process.platform} ${process.arch}`,
    toolNames,
    contextFiles: loadContextFiles({
      cwd,
      home,
      projectRoot,
      trusted,
      report: (message) => kernel.report("warning", message),
    }),
    extensionText: host.systemPromptText(),
    ...(options.appendSystemPrompt ? { append: options.appendSystemPrompt } : {}),
  });
  kernel.attachHost(host, systemPrompt);

  if (!folded || folded.provider !== model.value.provider || folded.modelId !== model.value.id) {
    const journaled = await session.appendEntry({
      type: "model_change",
      provider: model.value.provider,
      modelId: model.value.id,
    });
    // Like setModel: a resumed session would otherwise silently come back on another model.
    if (journaled.isErr())
      kernel.report("error", `Could not journal the model choice: ${journaled.error.message}`);
  }
  await host.notify("sessionStart", { reason, sessionId: session.id });
  kernel.emit({
    type: "session_start",
    sessionId: session.id,
    ...(kernel.sessionFile ? { sessionFile: kernel.sessionFile } : {}),
    model: `${model.value.provider}/${model.value.id}`,
    tools: toolNames,
  });
  return ok(kernel);
}
