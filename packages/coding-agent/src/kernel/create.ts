// createCodingAgent: resolves trust, configuration, model and session, loads extensions, builds
// the system prompt once, and hands a ready CodingAgent back. Never throws. Each step is a
// function of its own in ./create/, run here in the order that trust and the cache need.
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { ThinkingLevel } from "@keel/ai";
import type { Diagnostic } from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";
import { resolveKeelHome } from "../config/paths.js";
import type { AgentSupervisor } from "./agents.js";
import { KernelAgent } from "./coding-agent.js";
import { childAgents } from "./create/children.js";
import { registerSessionCommandFiles } from "./create/command-files.js";
import {
  claudeHomeOf,
  compactionSettings,
  extraDirectories,
  loadSessionConfig,
  sessionRules,
  sessionStreamOptions,
} from "./create/config.js";
import { gatherExtensions } from "./create/extensions.js";
import { requiredFailure, startExtensionHost } from "./create/host.js";
import { chooseSessionModel } from "./create/model.js";
import { checkProjectTrust } from "./create/project-trust.js";
import { openSession } from "./create/session.js";
import { announceSessionStart } from "./create/session-start.js";
import { sessionSystemPrompt } from "./create/system-prompt.js";
import { createToolSetup } from "./create/tools.js";
import { createFileHistory } from "./file-history.js";
import { modelRegistry, resolveModelRef } from "./model-choice.js";
import { scopedRuleNotices } from "./scoped-rules.js";
import type { CodingAgent, CodingAgentError, CodingAgentOptions } from "./types.js";

export { DEFAULT_MAX_CONCURRENT_AGENTS } from "./create/children.js";

export async function createCodingAgent(
  options: CodingAgentOptions,
): Promise<Result<CodingAgent, CodingAgentError>> {
  const cwd = options.cwd;
  const home = options.home ?? resolveKeelHome();
  const userHome = options.userHome ?? homedir();
  const diagnostics: Diagnostic[] = [];
  const note = (level: Diagnostic["level"], message: string) =>
    diagnostics.push({ extensionId: "kernel", level, message });

  // Trust before anything from the project is read.
  const project = checkProjectTrust(cwd, home, note);
  const { projectRoot, trusted } = project;
  // Where the session is, as every later step reads it.
  const place = { options, cwd, home, userHome, projectRoot, trusted };
  const loaded = loadSessionConfig(options, { cwd, home, userHome, trusted }, note);
  if (loaded.isErr()) return err(loaded.error);
  const { config } = loaded.value;
  const registry = modelRegistry(config.providers);
  if (registry.isErr()) return err(registry.error);

  const opened = await openSession(options, { home, cwd }, note);
  if (opened.isErr()) return err(opened.error);
  const { session, reason, temporaryDir } = opened.value;
  const folded = session.fold().model;
  const chosen = chooseSessionModel(registry.value, options, folded, config, home, note);
  if (chosen.isErr()) {
    await session.close();
    return err(chosen.error);
  }
  const { model, endpoint } = chosen.value;

  const mode = options.permissionMode ?? config.permissions?.mode ?? "default";
  const extraDirs = extraDirectories(config, options, { cwd, userHome }, note);
  const rules = sessionRules(loaded.value, extraDirs, options);
  const { sandbox, permission, builtinTools, attention } = createToolSetup(
    { ...place, loaded: loaded.value, mode, extraDirs, rules, kernel: () => kernel },
    note,
  );
  const streamOptions = sessionStreamOptions(config, options, home, (event) => kernel.emit(event));
  const compaction = compactionSettings(config);
  // The thinking level: asked for now, else the session's last choice, else the host's default.
  const thinking = options.thinking ?? (folded?.thinking as ThinkingLevel | undefined);
  const resolveModel = (ref: Parameters<typeof resolveModelRef>[1]) =>
    resolveModelRef(registry.value, ref, endpoint);
  const kernel: KernelAgent = new KernelAgent({
    cwd,
    projectRoot,
    home,
    session,
    ...(thinking !== undefined ? { thinking } : {}),
    // Next to the session file, in the session's folder: kept with it, found again on resume.
    files: createFileHistory(cwd, () => join(dirname(kernel.session.path), "file-history")),
    ...(temporaryDir ? { temporaryDir } : {}),
    model,
    resolveModel,
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

  const extensions = await gatherExtensions({
    ...place,
    loaded: loaded.value,
    permission,
    attention,
    kernel,
  });
  if (extensions.isErr()) {
    await kernel.close();
    return err(extensions.error);
  }
  let supervisor: AgentSupervisor | undefined;
  const claudeHome = claudeHomeOf(loaded.value, userHome);
  const host = await startExtensionHost({
    options,
    kernel,
    cwd,
    home,
    project,
    persistent: temporaryDir === undefined,
    registry: registry.value,
    streamOptions,
    permission,
    mode,
    sandbox,
    loaded: loaded.value,
    extensions: extensions.value,
    builtinTools,
    claudeHome,
    supervisor: () => supervisor,
  });
  // Command files last: Keel's commands, the front end's and extensions' keep their names.
  registerSessionCommandFiles(kernel, { ...place, config });
  const failed = requiredFailure(host);
  if (failed) {
    await host.shutdown("exit");
    await kernel.close();
    return err(failed);
  }

  const { promptFor, contextFiles } = await sessionSystemPrompt({
    ...place,
    claudeHome,
    rules,
    session,
    host,
    report: (message, level) => kernel.report(level, message),
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

  supervisor = childAgents(
    kernel,
    { options, config },
    {
      host,
      cwd,
      projectRoot,
      home,
      resolveModel,
      builtinTools,
      streamOptions,
      compaction,
      permission,
      systemPromptFor: promptFor,
      sandbox,
      onChild: hearRules,
    },
  );
  await supervisor.settleInterrupted();
  await announceSessionStart(kernel, {
    session,
    reason,
    folded,
    model,
    thinking,
    mode,
    sandbox,
    host,
    toolNames,
  });
  return ok(kernel);
}
