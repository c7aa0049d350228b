// createCodingAgent: resolves trust, configuration, model and session, loads extensions, builds
// the system prompt once, and hands a ready CodingAgent back. Never throws.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { preconnect, type StreamOptions, type ThinkingLevel } from "@keel/ai";
import type { Diagnostic } from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";
import { commandRoots, discoverCommandFiles } from "../commands/files/discover.js";
import { registerCommandFiles } from "../commands/files/register.js";
import { DEFAULT_COMPACTION } from "../compaction/policy.js";
import { loadConfig } from "../config/load.js";
import { mergeLayers } from "../config/merge.js";
import { resolveKeelHome } from "../config/paths.js";
import type { KeelConfig } from "../config/schema.js";
import { realpathOrResolved } from "../fs/paths.js";
import { ExtensionHost, type ExtensionSource } from "../host/extension-host.js";
import { loadComposed } from "../loader/composed.js";
import { loadExtensions } from "../loader/load-extensions.js";
import { packagesDir } from "../loader/packages.js";
import { expandHome } from "../permissions/paths.js";
import { RULE_WORD } from "../permissions/rules.js";
import { buildSystemPrompt } from "../prompt/system-prompt.js";
import { CommandSandbox, sandboxNotice } from "../sandbox/runtime.js";
import { resolveSandboxSettings } from "../sandbox/settings.js";
import { createBuiltinTools } from "../tools/builtin.js";
import { TRUSTED_ROOT_FILES } from "../trust/hash.js";
import { findProjectRoot } from "../trust/root.js";
import { checkTrust, type TrustCheck } from "../trust/store.js";
import { changeLines } from "../trust/surface.js";
import { AgentSupervisor } from "./agents.js";
import type { Attention } from "./claude-hooks.js";
import { KernelAgent } from "./coding-agent.js";
import { configHooksExtension } from "./config-hooks.js";
import { createDebugLog } from "./debug-log.js";
import { createFileHistory } from "./file-history.js";
import { chooseModel, modelRegistry, resolveModelRef } from "./model-choice.js";
import { cachedEndpointModels } from "./model-discovery.js";
import { createToolPermission, type KernelPermission } from "./permission.js";
import { scopedRuleNotices } from "./scoped-rules.js";
import { createHostServices, hostUI } from "./services.js";
import { sessionContextFiles } from "./session-context.js";
import { childSessionDir, defaultSessionDir, openChosenSession } from "./session-open.js";
import { remapNote } from "./thinking.js";
import type { CodingAgent, CodingAgentError, CodingAgentOptions, ToolApprovalRequest } from "./types.js";

/** Children running at once unless config (`agents.maxConcurrent`) or options say otherwise. */
export const DEFAULT_MAX_CONCURRENT_AGENTS = 4;

/** `extensions.<id>.config` of one config layer, by extension id. */
function extensionConfigOf(layer: KeelConfig | undefined): Record<string, unknown> {
  const extensions = (layer?.extensions ?? {}) as Record<string, { config?: unknown }>;
  return Object.fromEntries(Object.entries(extensions).map(([id, v]) => [id, v?.config]));
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
  const trust = checkTrust(projectRoot, { home, cwd });
  const trusted = trust.isOk() && trust.value.status === "trusted";
  if (trust.isErr()) note("error", trust.error.message);
  else if (trust.value.status === "changed") note("warning", changedNotice(projectRoot, trust.value));
  else if (trust.value.status === "untrusted") {
    // Said only when something is being ignored (a stat each, nothing is read).
    const ignored = [".keel", ".claude", ...TRUSTED_ROOT_FILES]
      .filter((name) => existsSync(join(projectRoot, name)))
      .map((name) =>
        name === ".keel"
          ? ".keel/ (config, extensions, hooks)"
          : name === ".claude"
            ? ".claude/ (settings, hooks, commands, skills, agents)"
            : name,
      );
    if (ignored.length > 0) {
      note(
        "info",
        `${projectRoot} is not trusted, so its ${ignored.join(", ")} ${ignored.length === 1 ? "is" : "are"} ignored. Trust it with /trust (or keel -p /trust).`,
      );
    }
  }

  const userHome = options.userHome ?? homedir();
  const loaded = loadConfig({
    cwd,
    home,
    trusted,
    reportUntrusted: false,
    userHome,
    ...(options.settings ? { sessionSettings: options.settings } : {}),
  });
  if (loaded.isErr()) return err({ type: "config", message: loaded.error.message });
  const { config } = loaded.value;
  for (const d of loaded.value.diagnostics) note(d.level, d.message);

  const registry = modelRegistry(config.providers);
  if (registry.isErr()) return err(registry.error);

  const sessionDir = options.sessionDir ?? defaultSessionDir(home, cwd);
  const opened = await openChosenSession(options.session ?? { mode: "new" }, sessionDir, cwd);
  if (opened.isErr()) return err(opened.error);
  const { session, reason, temporaryDir } = opened.value;
  for (const notice of session.notices) note("warning", notice.message);
  const fail = async (e: CodingAgentError) => {
    await session.close();
    return err(e);
  };

  const folded = session.fold().model;
  // What providers' models endpoints listed (`keel models`), read from the cache: never waits.
  const endpoint = cachedEndpointModels(home, registry.value);
  const chosen = chooseModel(
    registry.value,
    [options.model, folded ? `${folded.provider}/${folded.modelId}` : undefined, config.model],
    process.env,
    endpoint,
    home,
  );
  if (chosen.isErr()) return fail(chosen.error);
  if (chosen.value.warning) note("warning", chosen.value.warning);
  const model = ok(chosen.value.model);
  // The first request's handshakes overlap the rest of the setup.
  preconnect(model.value, options.streamOptions);

  const mode = options.permissionMode ?? config.permissions?.mode ?? "default";
  // Extra folders (config, Claude Code's additionalDirectories, --add-dir): read and edited as the
  // project is, and writable inside the sandbox. Trust recorded the config's (trust/surface.ts).
  const extraDirs = [
    ...(config.additionalDirectories ?? []),
    ...(options.additionalDirectories ?? []),
  ].flatMap((d) => {
    const dir = realpathOrResolved(resolve(cwd, expandHome(d, userHome)));
    // The sandbox cannot bind a folder that is not there: said once, and left out.
    if (existsSync(dir)) return [dir];
    note("warning", `additional directory ${d} (${dir}) does not exist; ignored`);
    return [];
  });
  const rules = [
    ...loaded.value.rules,
    ...extraDirs.flatMap((d) =>
      ([RULE_WORD.read, RULE_WORD.edit] as const).map((word) => ({
        rule: `${word}(/${d}/**)`,
        behavior: "allow" as const,
        source: "cli" as const,
      })),
    ),
    ...(["allow", "ask", "deny"] as const).flatMap((behavior) =>
      (options.rules?.[behavior] ?? []).map((rule) => ({ rule, behavior, source: "cli" as const })),
    ),
  ];
  const sandboxConfig = resolveSandboxSettings(loaded.value.layers.user?.sandbox, [
    { file: join(projectRoot, ".keel", "config.json"), layer: loaded.value.layers.project?.sandbox },
    {
      file: join(projectRoot, ".keel", "config.local.json"),
      layer: loaded.value.layers.projectLocal?.sandbox,
    },
  ]);
  for (const line of sandboxConfig.ignored) note("warning", line);
  const sandbox = new CommandSandbox({
    workspace: projectRoot,
    cwd,
    userHome: realpathOrResolved(userHome),
    keelHome: realpathOrResolved(home),
    settings: {
      ...sandboxConfig.settings,
      allowWrite: [
        ...sandboxConfig.settings.allowWrite.map((p) =>
          realpathOrResolved(resolve(userHome, expandHome(p, userHome))),
        ),
        ...extraDirs,
      ],
    },
    mode: () => permission.mode(),
    rules: () => permission.rules(),
    ...(options.testing?.lookup ? { lookup: options.testing.lookup } : {}),
    report: (message) => kernel.report("warning", message),
  });
  // Who hears that the user's attention is wanted (Claude Code's Notification hooks).
  const attention = new Set<(a: Attention) => void>();
  const permissionUi = options.ui?.approve
    ? {
        ...options.ui,
        approve: (request: ToolApprovalRequest) => {
          for (const listener of attention)
            listener({
              sessionId: kernel.sessionId,
              message: `Keel needs your permission to use ${request.toolName}`,
              type: "permission_prompt",
            });
          return options.ui!.approve!(request);
        },
      }
    : options.ui;
  const permission: KernelPermission = createToolPermission({
    mode,
    rules,
    workspace: projectRoot,
    cwd,
    keelHome: home,
    userHome,
    trusted,
    ui: permissionUi,
    report: (message) => kernel.report("info", message),
    onAnswer: (answer) => {
      void kernel.session.appendEntry({ type: "approval", source: "permission", ...answer });
    },
    sandbox: (m) => sandbox.state(m),
    ...(options.testing?.forceParserAllow ? { forceParserAllow: true } : {}),
    ...(options.textFiles ? { textFiles: options.textFiles } : {}),
  });
  const builtinTools = createBuiltinTools({
    cwd,
    ...(options.textFiles ? { textFiles: options.textFiles } : {}),
    supportsImages: () => kernel.model().input.includes("image"),
    // The checker judges `cd name` as ./name: CDPATH (from a profile) must not send it elsewhere.
    // Config's env (Keel's and Claude Code's `env`) reaches every command; the sandbox still drops secrets.
    bash: { env: { ...config.env, CDPATH: undefined }, sandbox },
    grep: { guard: permission.readGuard },
    glob: { guard: permission.readGuard },
    ls: { guard: permission.readGuard },
  });
  if (options.testing?.builtinTools) builtinTools.push(...options.testing.builtinTools(cwd));

  // What the vendor SDKs would print goes to the debug log (and `keel --debug`), never the terminal.
  const writeDebug = createDebugLog(home);
  const streamOptions: StreamOptions = {
    onLog: (line) => {
      const text = `${line.level}: ${line.message}`;
      writeDebug(line.source, text);
      kernel.emit({ type: "debug", source: line.source, message: text });
    },
    ...withStreamConfig(config.stream, options.streamOptions ?? {}),
  };
  const compaction = {
    ...DEFAULT_COMPACTION,
    ...(config.compaction?.threshold ? { threshold: config.compaction.threshold } : {}),
  };
  // The thinking level: asked for now, else the session's last choice, else the host's default.
  const thinking = options.thinking ?? (folded?.thinking as ThinkingLevel | undefined);
  const kernel: KernelAgent = new KernelAgent({
    cwd,
    projectRoot,
    home,
    session,
    ...(thinking !== undefined ? { thinking } : {}),
    // Next to the session file, in the session's folder: kept with it, found again on resume.
    files: createFileHistory(cwd, () => join(dirname(kernel.session.path), "file-history")),
    ...(temporaryDir ? { temporaryDir } : {}),
    model: model.value,
    resolveModel: (ref) => resolveModelRef(registry.value, ref, endpoint),
    listModels: () => registry.value.list(),
    systemPrompt: "",
    builtinTools,
    streamOptions,
    ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
    compaction,
    permission,
    diagnostics,
    sandbox,
    ownsSandbox: true,
  });

  if (options.onEvent) kernel.subscribe(options.onEvent);
  for (const d of diagnostics) options.onEvent?.({ type: "diagnostic", diagnostic: d });
  // The front end's commands, before any extension loads: their names are reserved like built-in ones.
  if (options.commands) kernel.commands.registerCommands(options.commands);
  // Recovery before anything else is journaled: a later entry would supersede a crashed
  // reply's checkpoint, and the user would lose text they already read.
  await kernel.recover();

  // Extensions: composed ones, then -e paths, then user and (trusted) project folders.
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
        ...(loaded.value.layers.user?.packages ?? []).map((p) =>
          join(packagesDir("user", where), "node_modules", p.name),
        ),
        ...(trusted ? (loaded.value.layers.project?.packages ?? []) : []).flatMap((p) => {
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
  if (unloadable.length > 0) {
    await kernel.close();
    return err({
      type: "extension",
      message: `Required extension${unloadable.length > 1 ? "s" : ""} could not be loaded: ${unloadable.map((f) => f.message).join("; ")}`,
    });
  }

  let supervisor: AgentSupervisor | undefined;
  // Set once activation is over; services asked during activation see no host yet.
  let started: ExtensionHost | undefined;
  const ui = hostUI(options.ui, (e) => kernel.emit(e));
  // Claude Code's user files unless config `claude.userFiles` is false (config/load.ts decides).
  const claudeHome =
    loaded.value.sources.find((s) => s.layer === "claudeUser")?.status === "opted_out"
      ? undefined
      : join(userHome, ".claude");
  const services = createHostServices({
    kernel,
    home,
    workspace: { cwd, projectRoot, trusted, keelHome: home, ...(claudeHome ? { claudeHome } : {}) },
    approvals: trust.isOk() && trusted ? (trust.value.approvals ?? {}) : {},
    persistent: temporaryDir === undefined,
    ui,
    hostUi: options.ui,
    registry: registry.value,
    streamOptions,
    permission,
    mode: () => mode,
    supervisor: () => supervisor,
    host: () => started,
    userConfigFile: join(home, "config.json"),
    sandbox,
  });
  const project = trusted
    ? Object.fromEntries(
        [
          ...new Set([
            ...Object.keys(extensionConfigOf(loaded.value.layers.project)),
            ...Object.keys(extensionConfigOf(loaded.value.layers.projectLocal)),
          ]),
        ].map((id) => [
          id,
          mergeLayers(
            extensionConfigOf(loaded.value.layers.project)[id],
            extensionConfigOf(loaded.value.layers.projectLocal)[id],
          ),
        ]),
      )
    : undefined;
  const host: ExtensionHost = await ExtensionHost.start(
    {
      extensions: sources.filter((s) => s.explicit || enabled(s.definition.id)),
      reservedTools: builtinTools.map((t) => t.name),
      commands: kernel.commands,
      required,
      ...(options.hookDeadlineMs !== undefined ? { hookDeadlineMs: options.hookDeadlineMs } : {}),
      config: {
        user: extensionConfigOf(loaded.value.layers.user),
        project,
        userFile: join(home, "config.json"),
        projectFile: join(projectRoot, ".keel", "config.json"),
        ...(options.extensionConfig ? { session: options.extensionConfig } : {}),
      },
    },
    services,
  );
  started = host;
  // Command files last: Keel's commands, the front end's and extensions' keep their names.
  registerCommandFiles(
    {
      commands: kernel.commands,
      runShell: (command, allow, signal) => kernel.runCommandShell(command, allow, signal),
      report: (level, message) => kernel.report(level, message),
    },
    discoverCommandFiles(
      commandRoots({
        projectRoot,
        trusted,
        keelHome: home,
        userHome,
        claudeUserFiles: config.claude?.userFiles !== false,
      }),
      projectRoot,
    ),
  );

  const requiredFailures = host.failures.filter((f) => f.required);
  if (requiredFailures.length > 0) {
    await host.shutdown("exit");
    await kernel.close();
    return err({
      type: "extension",
      message: `Required extension${requiredFailures.length > 1 ? "s" : ""} failed to load: ${requiredFailures.map((f) => `${f.extensionId} (${f.source}): ${f.message}`).join("; ")}`,
    });
  }

  const contextFiles = await sessionContextFiles({
    cwd,
    home,
    ...(claudeHome ? { claudeHome } : {}),
    userHome,
    projectRoot,
    trusted,
    rules,
    report: (message, level) => kernel.report(level, message),
  });
  // Fixed when the session began and journaled with it: a resume on another day sends the same
  // prompt, so the cached prefix holds (the model hears of the new date by a notice instead).
  const { date, platform } = session.environment;
  const promptFor = (toolNames: string[], instructions?: string) =>
    buildSystemPrompt({
      cwd,
      date,
      platform,
      toolNames,
      contextFiles,
      extensionText: host.systemPromptText(),
      ...(options.appendSystemPrompt ? { append: options.appendSystemPrompt } : {}),
      ...(options.systemPrompt ? { base: options.systemPrompt } : {}),
      ...(instructions ? { instructions } : {}),
    });
  const tools = [...builtinTools, ...host.tools()];
  const toolNames = tools.map((t) => t.name);
  kernel.attachHost(host, promptFor(toolNames), host, tools);
  // Path-scoped rules: told to the agent (the session's, or a child) whose call touched the file.
  const hearRules = (agent: KernelAgent) =>
    agent.onTouched(
      scopedRuleNotices(contextFiles, cwd, (text, key) => agent.persistNotice("kernel", text, { key })),
    );
  hearRules(kernel);

  const cap = options.maxConcurrentAgents ?? config.agents?.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_AGENTS;
  supervisor = new AgentSupervisor({
    parent: kernel,
    host,
    cap,
    childrenDir: () => (kernel.sessionFile ? childSessionDir(dirname(kernel.sessionFile)) : undefined),
    cwd,
    projectRoot,
    home,
    resolveModel: (ref) => resolveModelRef(registry.value, ref, endpoint),
    builtinTools,
    streamOptions,
    compaction,
    permission,
    systemPromptFor: promptFor,
    sandbox,
    onChild: hearRules,
  });
  kernel.attachAgents(supervisor);
  await supervisor.settleInterrupted();

  const modelChanged =
    !folded ||
    folded.provider !== model.value.provider ||
    folded.modelId !== model.value.id ||
    folded.thinking !== thinking;
  if (modelChanged && !session.readOnly) {
    const journaled = await session.appendEntry({
      type: "model_change",
      provider: model.value.provider,
      modelId: model.value.id,
      ...(thinking !== undefined ? { thinking } : {}),
    });
    // Like setModel: a resumed session would otherwise silently come back on another model.
    if (journaled.isErr())
      kernel.report("error", `Could not journal the model choice: ${journaled.error.message}`);
  }
  const today = new Date().toISOString().slice(0, 10);
  if (today !== date && !session.readOnly)
    kernel.persistNotice("kernel", `Today's date is ${today} (this session began on ${date}).`, {
      key: `date:${today}`,
    });
  // A level asked for (--thinking) or kept from the session that this model cannot take as it is.
  const remapped = remapNote(kernel.thinking());
  if (remapped) kernel.report("info", remapped);
  // The probe (a bubblewrap start, tens of ms on a busy machine) must not hold up the first
  // request: its one line is said once it is known, after the start if need be. Every command
  // waits for the probe itself (confine) and fails closed without a sandbox.
  void sandbox.state(mode).then((state) => {
    const said = sandboxNotice(state, mode);
    if (said) kernel.report(said.level, said.message);
  });
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

/** Config's stream bounds under the caller's options (which win, field by field). */
function withStreamConfig(
  stream:
    | { idleTimeoutMs?: number; replyTimeoutMs?: number; maxReplyChars?: number; maxRetries?: number }
    | undefined,
  options: StreamOptions,
): StreamOptions {
  if (!stream) return options;
  return {
    ...(stream.idleTimeoutMs !== undefined ? { idleTimeoutMs: stream.idleTimeoutMs } : {}),
    ...(stream.replyTimeoutMs !== undefined ? { replyTimeoutMs: stream.replyTimeoutMs } : {}),
    ...(stream.maxReplyChars !== undefined ? { maxReplyChars: stream.maxReplyChars } : {}),
    ...options,
    ...(stream.maxRetries !== undefined || options.retry
      ? {
          retry: {
            ...(stream.maxRetries !== undefined ? { maxRetries: stream.maxRetries } : {}),
            ...options.retry,
          },
        }
      : {}),
  };
}

/** What the start says about a project that changed since it was trusted: what changed, each on a line. */
function changedNotice(projectRoot: string, check: TrustCheck): string {
  const lines = changeLines(check.changes ?? []);
  const shown = lines.slice(0, 12);
  const more =
    lines.length > shown.length ? [`… and ${lines.length - shown.length} more (/trust lists them)`] : [];
  const what = check.legacy
    ? "it was trusted before Keel recorded what trust covers, and it changed since; it can run:"
    : "what it runs or widens automatically changed since you trusted it:";
  return [
    `${projectRoot}: ${what}`,
    ...shown.map((l) => `  ${l}`),
    ...more,
    "Its config, extensions, hooks, MCP servers and context files are ignored until you /trust it again.",
  ].join("\n");
}
