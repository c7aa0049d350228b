// The services the kernel gives every extension runtime (see host/runtime.ts HostServices): the
// UI, models and one-off completions, notices, config writes, approvals, child agents, usage,
// run-scoped grants, a data directory and the debug log. One place, so each has one behaviour.
import { dirname, isAbsolute, resolve } from "node:path";
import { complete, type Model, type ModelRegistry, type StreamOptions } from "@keel/ai";
import { type ExtensionUI, headlessUI, type WorkspaceInfo } from "@keel/extension-sdk";
import { updateConfigFile } from "../config/write.js";
import { extensionDataDir } from "../host/cli-context.js";
import type { ExtensionHost } from "../host/extension-host.js";
import type { HostServices } from "../host/runtime.js";
import { checkRule } from "../permissions/rules.js";
import type { PermissionMode } from "../permissions/types.js";
import { execConfined } from "../sandbox/exec.js";
import type { CommandSandbox } from "../sandbox/runtime.js";
import type { AgentSupervisor } from "./agents.js";
import { createExtensionApprover } from "./approvals.js";
import type { KernelAgent } from "./coding-agent.js";
import { createDebugLog } from "./debug-log.js";
import type { KernelPermission } from "./permission.js";
import type { CodingAgentEvent, HostUI } from "./types.js";

/** The UI extensions see: the host's where it has one, and every display also as an event. */
export function hostUI(ui: HostUI | undefined, emit: (event: CodingAgentEvent) => void): ExtensionUI {
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

export interface ServiceDeps {
  kernel: KernelAgent;
  home: string;
  workspace: Omit<WorkspaceInfo, "approved">;
  /** What extensions recorded as approved when the project was trusted (see trustApprovals). */
  approvals: Readonly<Record<string, Readonly<Record<string, string>>>>;
  persistent: boolean;
  ui: ExtensionUI;
  hostUi: HostUI | undefined;
  registry: ModelRegistry;
  streamOptions: StreamOptions;
  permission: KernelPermission;
  mode(): PermissionMode;
  supervisor(): AgentSupervisor | undefined;
  host(): ExtensionHost | undefined;
  userConfigFile: string;
  /** Where extensions' programs run (the Bash tool's sandbox). */
  sandbox?: CommandSandbox;
}

export function createHostServices(d: ServiceDeps): HostServices {
  const { kernel } = d;
  const writeDebug = createDebugLog(d.home);
  const approve = createExtensionApprover({
    ui: d.hostUi,
    mode: d.mode,
    journal: (entry) => {
      void kernel.session.appendEntry({ type: "approval", source: "extension", ...entry });
    },
  });
  const resolveModel = (ref: string): Model | undefined => {
    const found = d.registry.find(ref);
    return found.isOk() ? found.value : undefined;
  };
  return {
    workspace: d.workspace,
    approvals: d.approvals,
    session: () => ({ id: kernel.sessionId, cwd: d.workspace.cwd, persistent: d.persistent }),
    ui: d.ui,
    models: {
      current: () => kernel.model(),
      list: () => d.registry.list(),
      resolve: resolveModel,
      // Answers the SDK's CompletionOutcome (models.complete's contract), so its `{ ok }` shape stays.
      complete: async (request) => {
        const model = request.model ? resolveModel(request.model) : kernel.model();
        if (!model)
          return { ok: false, error: { type: "model", message: `Unknown model "${request.model}".` } };
        const message = await complete(
          model,
          {
            ...(request.systemPrompt ? { systemPrompt: request.systemPrompt } : {}),
            messages: request.messages,
            ...(request.serverTools?.length ? { serverTools: request.serverTools } : {}),
          },
          {
            ...d.streamOptions,
            ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
            ...(request.reasoning !== undefined ? { reasoning: request.reasoning } : {}),
            ...(request.signal ? { signal: request.signal } : {}),
          },
        );
        kernel.addOwnUsage(message.usage);
        if (message.stopReason === "error" || message.stopReason === "aborted")
          return {
            ok: false,
            error: {
              type: message.error?.type ?? message.stopReason,
              message: message.error?.message ?? message.stopReason,
            },
          };
        return { ok: true, message };
      },
      serverTools: (ref) => {
        const model = ref ? resolveModel(ref) : kernel.model();
        return model?.serverTools ?? [];
      },
    },
    sendMessage: (text, options) => {
      if (options?.deliverAs === "followUp") kernel.followUp(text);
      else kernel.steer(text);
    },
    persistNotice: (extensionId, text, options) => kernel.persistNotice(extensionId, text, options),
    readState: (id) => kernel.session.fold().extensionStates[id],
    writeState: (id, state) => {
      void kernel.session.appendEntry({ type: "app_state", extensionId: id, state }).then((r) => {
        if (r.isErr()) kernel.report("error", `Could not journal ${id}'s state: ${r.error.message}`, id);
      });
    },
    report: (diagnostic) => kernel.report(diagnostic.level, diagnostic.message, diagnostic.extensionId),
    debug: (source, message) => {
      // Events are JSON and the log is text: whatever a JS extension passes becomes a string.
      const text = typeof message === "string" ? message : debugText(message);
      writeDebug(source, text);
      kernel.emit({ type: "debug", source, message: text });
    },
    dataDir: (extensionId) => extensionDataDir(d.home, extensionId),
    writeUserConfig: (extensionId, value) => {
      const written = updateConfigFile(d.userConfigFile, (config) => {
        const extensions = (isObject(config.extensions) ? config.extensions : {}) as Record<string, unknown>;
        const own = (isObject(extensions[extensionId]) ? extensions[extensionId] : {}) as Record<
          string,
          unknown
        >;
        extensions[extensionId] = { ...own, config: value };
        config.extensions = extensions;
        return config;
      });
      return written.isErr() ? written.error.message : undefined;
    },
    approve,
    // Answers the SDK's RunAgentOutcome (agents.runAgent's contract).
    runAgent: async (_extensionId, options, caller) => {
      const supervisor = d.supervisor();
      if (!supervisor)
        return {
          ok: false,
          error: { type: "not_allowed", message: "This session cannot run child agents yet." },
        };
      return supervisor.run(options, caller);
    },
    agents: () => d.supervisor()?.records() ?? [],
    recordUsage: (_extensionId, usage) => kernel.recordExternalUsage(usage),
    // Answers the SDK's Registration (runtime.allowForRun's contract).
    allowForRun: (extensionId, rules, reason) => {
      if (!kernel.isRunning) return { ok: false, message: "allowForRun works only while a run is going on" };
      const bad = rules.map((r) => checkRule(r)).find((problem) => problem !== undefined);
      if (bad) return { ok: false, message: bad };
      d.permission.allowForRun(rules);
      kernel.report(
        "info",
        `${extensionId} allowed ${rules.join(", ")} until this run ends: ${reason}`,
        extensionId,
      );
      return { ok: true };
    },
    exec: (_extensionId, file, args, options) =>
      execConfined(d.sandbox, d.workspace.cwd, file, args, options),
    protectSecret: (_extensionId, secret) => d.sandbox?.protect(secret),
    extensionSkills: () =>
      (d.host()?.activeExtensions ?? []).flatMap((a) =>
        (a.definition.skills ?? []).map((path) => ({
          extensionId: a.definition.id,
          path: isAbsolute(path) ? path : resolve(a.root ?? dirname(a.source), path),
        })),
      ),
  };
}

function debugText(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
