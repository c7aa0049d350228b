// Shared setup for host tests: in-memory HostServices (diagnostics and state recorded), a host
// started over given definitions, and a tiny tool/extension builder.
import type { Model } from "@keel/ai";
import {
  type Diagnostic,
  type ExtensionDefinition,
  headlessUI,
  type TSchema,
  Type,
  textResult,
} from "@keel/extension-sdk";
import { builtinCommands } from "../../src/commands/builtin/index.js";
import type { HostServices } from "../../src/host/runtime.js";
import type { CodingAgent } from "../../src/index.js";
import { BUILTIN_TOOL_NAMES, CommandRegistry, ExtensionHost } from "../../src/index.js";

export interface Recorded {
  services: HostServices;
  diagnostics: Diagnostic[];
  states: Map<string, unknown>;
}

export function recordingServices(): Recorded {
  const diagnostics: Diagnostic[] = [];
  const states = new Map<string, unknown>();
  const model = { id: "none", provider: "none" } as unknown as Model;
  const services: HostServices = {
    workspace: { cwd: "/nowhere", projectRoot: "/nowhere", trusted: false, keelHome: "/nowhere/.keel" },
    approvals: {},
    session: () => ({ id: "test-session", cwd: "/nowhere", persistent: false }),
    ui: headlessUI(),
    models: {
      current: () => model,
      list: () => [model],
      resolve: () => undefined,
      serverTools: () => [],
      complete: async () => ({
        ok: false,
        error: { type: "unsupported", message: "no model in host tests" },
      }),
    },
    sendMessage: () => {},
    persistNotice: () => {},
    readState: (id) => states.get(id),
    writeState: (id, state) => states.set(id, state),
    report: (d) => diagnostics.push(d),
    debug: () => {},
    dataDir: () => "/nowhere/.keel/data",
    writeUserConfig: () => "host tests write no config",
    approve: async () => ({ status: "unsupported" }),
    runAgent: async () => ({ ok: false, error: { type: "not_allowed", message: "no agents in host tests" } }),
    agents: () => [],
    recordUsage: () => {},
    allowForRun: () => ({ ok: false, message: "no gate in host tests" }),
    extensionSkills: () => [],
    exec: async () => ({ ok: false, error: { type: "invalid", message: "no processes in host tests" } }),
    protectSecret: () => {},
  };
  return { services, diagnostics, states };
}

export async function startHost(
  definitions: ExtensionDefinition[],
  options: {
    hookDeadlineMs?: number;
    user?: Record<string, unknown>;
    project?: Record<string, unknown>;
  } = {},
): Promise<Recorded & { host: ExtensionHost }> {
  const recorded = recordingServices();
  // The built-in commands hold their names, as in a session (their agent is never reached here).
  const commands = new CommandRegistry((extensionId, message) =>
    recorded.diagnostics.push({ extensionId, level: "warning", message }),
  );
  for (const spec of builtinCommands({} as CodingAgent)) commands.add(spec, "builtin");
  const host = await ExtensionHost.start(
    {
      extensions: definitions.map((definition, i) => ({ definition, source: `test-${i + 1}` })),
      reservedTools: BUILTIN_TOOL_NAMES,
      commands,
      config: {
        user: options.user ?? {},
        project: options.project,
        userFile: "/home/.keel/config.json",
        projectFile: "/repo/.keel/config.json",
      },
      ...(options.hookDeadlineMs !== undefined ? { hookDeadlineMs: options.hookDeadlineMs } : {}),
    },
    recorded.services,
  );
  return { ...recorded, host };
}

/** A resident tool answering `<name> ran`. */
export function simpleTool(name: string, parameters: TSchema = Type.Object({})) {
  return {
    name,
    description: `The ${name} tool`,
    parameters,
    execute: async () => textResult(`${name} ran`),
  };
}

/** A promise that never settles (a hook that hangs). */
export const never = <T>(): Promise<T> => new Promise<T>(() => {});

/** Texts of every tool_result block (Anthropic wire format) in a recorded request, in order. */
export function toolResultTexts(body: Record<string, unknown>): { text: string; isError: boolean }[] {
  const out: { text: string; isError: boolean }[] = [];
  for (const message of body.messages as { role: string; content: unknown }[]) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Record<string, unknown>[]) {
      if (block.type !== "tool_result") continue;
      const content = block.content;
      const text =
        typeof content === "string"
          ? content
          : (content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("");
      out.push({ text, isError: block.is_error === true });
    }
  }
  return out;
}

/** The text of every user message (string or text blocks) in a recorded request, in order. */
export function userTexts(body: Record<string, unknown>): string[] {
  return (body.messages as { role: string; content: unknown }[])
    .filter((m) => m.role === "user")
    .flatMap((m) =>
      typeof m.content === "string"
        ? [m.content]
        : (m.content as Record<string, unknown>[]).flatMap((b) =>
            b.type === "text" ? [b.text as string] : [],
          ),
    );
}
