// In-memory stand-ins for the host, for an extension's own unit tests: a runtime with state kept
// in memory and a headless UI, and a tool-call context. Not used by any host.
import type { Model } from "@keel/protocol";
import type { ExtensionCommand } from "./commands.js";
import type { ExtensionDefinition } from "./extension.js";
import type { MentionSource } from "./mentions.js";
import type { RuntimeNet } from "./net.js";
import type { Exec } from "./process.js";
import type { ExtensionRuntime } from "./runtime.js";
import type { ToolCallContext } from "./tools.js";
import { headlessUI } from "./ui.js";

/** testRuntime and testToolContext run no processes: tests of exec go through the kernel. */
const noExec: Exec = async () => ({
  ok: false,
  error: { type: "invalid", message: "the test runtime runs no processes" },
});

/** testRuntime reaches no network: a test that needs one passes `net` (local peers only). */
const noNet: RuntimeNet = {
  fetch: async () => {
    throw new TypeError("fetch failed", { cause: new Error("the test runtime has no network; pass `net`") });
  },
  connect: async () => ({
    ok: false,
    error: { type: "connect", message: "the test runtime has no network; pass `net`" },
  }),
};

export interface TestRuntimeOptions<Config, State> {
  config?: Config;
  state?: State;
  model?: Model;
  cwd?: string;
  /** Collects what `persistNotice` was asked to keep. */
  notices?: string[];
  /** Collects the mention sources the extension adds (by id). */
  mentions?: Map<string, MentionSource>;
  /** The network service (default: none, every request refused). */
  net?: RuntimeNet;
}

/**
 * A runtime for `definition` whose state lives in memory (starting at its default), whose UI is
 * headless and whose approvals answer "unsupported", as a headless host would.
 */
export function testRuntime<Config = unknown, State = unknown, Instance = undefined>(
  definition: Pick<ExtensionDefinition, "id" | "sessionState" | "configuration">,
  options: TestRuntimeOptions<Config, State> = {},
): ExtensionRuntime<Config, State, Instance> {
  let state = structuredClone(options.state ?? definition.sessionState?.default) as State;
  let config = (options.config ?? definition.configuration?.default) as Config;
  const cwd = options.cwd ?? process.cwd();
  const noModel = (): Model => {
    if (options.model) return options.model;
    throw new Error("testRuntime: no model was given");
  };
  const commands = new Map<string, ExtensionCommand<never>>();
  const mentions = options.mentions ?? new Map<string, MentionSource>();
  return {
    id: definition.id,
    get config() {
      return config;
    },
    instance: undefined as Instance,
    state: {
      get: () => structuredClone(state),
      set: (next) => {
        state = structuredClone(next);
      },
      update: (fn) => {
        state = structuredClone(fn(structuredClone(state)));
      },
    },
    ui: headlessUI(),
    session: { id: "test-session", cwd, persistent: false },
    workspace: { cwd, projectRoot: cwd, trusted: false, keelHome: cwd, approved: {} },
    cwd,
    models: {
      current: noModel,
      list: () => (options.model ? [options.model] : []),
      resolve: (ref) =>
        options.model && `${options.model.provider}/${options.model.id}` === ref ? options.model : undefined,
      complete: async () => ({
        ok: false,
        error: { type: "unsupported", message: "testRuntime calls no model" },
      }),
      serverTools: () => [],
    },
    model: noModel,
    dataDir: () => cwd,
    debug: () => {},
    report: () => {},
    sendMessage: () => {},
    persistNotice: (text) => {
      options.notices?.push(text);
    },
    updateConfig: (_scope, update) => {
      config = update(config);
      return { ok: true, config };
    },
    approve: async () => ({ status: "unsupported" }),
    recordUsage: () => {},
    allowForRun: () => ({ ok: false, message: "testRuntime has no permission gate" }),
    commands: {
      add: (command) => {
        if (commands.has(command.name)) return { ok: false, message: `/${command.name} exists` };
        commands.set(command.name, command as ExtensionCommand<never>);
        return { ok: true };
      },
      remove: (name) => commands.delete(name),
    },
    catalogs: { add: () => ({ ok: true }), remove: () => false },
    mentions: {
      add: (source) => {
        if (mentions.has(source.id)) return { ok: false, message: `mention source ${source.id} exists` };
        mentions.set(source.id, source);
        return { ok: true };
      },
      remove: (id) => mentions.delete(id),
    },
    agents: () => [],
    extensionSkills: () => [],
    exec: noExec,
    protectSecret: () => {},
    net: options.net ?? noNet,
  };
}

/** A tool-call context with a fresh signal; child agents are refused and approvals unsupported. */
export function testToolContext(overrides: Partial<ToolCallContext> = {}): ToolCallContext {
  return {
    signal: new AbortController().signal,
    toolCallId: "test-call",
    onUpdate: () => {},
    runAgent: async () => ({
      ok: false,
      error: { type: "not_allowed", message: "testToolContext runs no child agents" },
    }),
    agents: () => [],
    approve: async () => ({ status: "unsupported" }),
    exec: noExec,
    ...overrides,
  };
}
