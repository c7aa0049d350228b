// The extension activated against the SDK's in-memory test runtime, with the workspace, the
// model, the catalog and command registries and allowForRun recorded so tests can assert them.
import type {
  CommandResult,
  ExtensionCommand,
  ExtensionRuntime,
  ToolCatalog,
  ToolResult,
} from "@keel/extension-sdk";
import { listTools } from "@keel/extension-sdk";
import { testRuntime, testToolContext } from "@keel/extension-sdk/testing";
import { type SkillsConfig, type SkillsInstance, type SkillsState, skillsExtension } from "../src/index.js";
import type { Tree } from "./fixtures.js";

export interface Activated {
  instance: SkillsInstance;
  catalogs: ToolCatalog[];
  commands: Map<string, ExtensionCommand<never>>;
  reports: { level: string; message: string }[];
  allowed: { rules: string[]; reason: string }[];
  notices: string[];
  runtime: Record<string, unknown> & { state: { get(): SkillsState } };
  skill(args: { skill: string; path?: string }): Promise<ToolResult>;
  command(name: string, args?: string): Promise<CommandResult | undefined>;
  hook(
    name: "runStart" | "compaction" | "sessionShutdown" | "sessionStart" | "afterModelCall",
    event?: object,
  ): Promise<void>;
  close(): Promise<void>;
}

type Model = ReturnType<ExtensionRuntime["model"]>;

export function model(contextWindow = 200_000): Model {
  return {
    id: "faux",
    name: "faux",
    provider: "faux",
    api: "anthropic-messages",
    contextWindow,
    maxTokens: 8000,
  } as unknown as Model;
}

export async function activate(
  t: Tree,
  options: {
    trusted?: boolean;
    cwd?: string;
    config?: Partial<SkillsConfig>;
    contextWindow?: number;
    inRun?: boolean;
  } = {},
): Promise<Activated> {
  const config: SkillsConfig = { paths: [], budgetFraction: 0.01, watch: false, ...options.config };
  const base = testRuntime<SkillsConfig, SkillsState>(skillsExtension, {
    config,
    model: model(options.contextWindow),
    cwd: options.cwd ?? t.project,
  });
  const catalogs: ToolCatalog[] = [];
  const commands = new Map<string, ExtensionCommand<never>>();
  const reports: Activated["reports"] = [];
  const allowed: Activated["allowed"] = [];
  const notices: string[] = [];
  const ctx = Object.create(base, {
    workspace: {
      value: {
        cwd: options.cwd ?? t.project,
        projectRoot: t.project,
        trusted: options.trusted ?? false,
        keelHome: t.keelHome,
      },
    },
    signal: { value: new AbortController().signal },
    report: { value: (level: string, message: string) => reports.push({ level, message }) },
    persistNotice: { value: (text: string) => notices.push(text) },
    allowForRun: {
      value: (rules: string[], reason: string) => {
        if (options.inRun === false) return { ok: false, message: "no run is going on" };
        allowed.push({ rules, reason });
        return { ok: true };
      },
    },
    catalogs: {
      value: {
        add: (c: ToolCatalog) => {
          catalogs.push(c);
          return { ok: true };
        },
        remove: () => false,
      },
    },
    commands: {
      value: {
        add: (c: ExtensionCommand<never>) => {
          if (commands.has(c.name)) return { ok: false, message: `/${c.name} exists` };
          commands.set(c.name, c);
          return { ok: true };
        },
        remove: (name: string) => commands.delete(name),
      },
    },
  });
  const instance = (await skillsExtension.lifecycle!.activate!(ctx)) as SkillsInstance;
  const runtime = Object.create(ctx, { instance: { value: instance } });
  const tool = listTools(skillsExtension).find((x) => x.name === "Skill")!;
  const declared = new Map((skillsExtension.commands ?? []).map((c) => [c.name, c] as const));
  return {
    instance,
    catalogs,
    commands,
    reports,
    allowed,
    notices,
    runtime,
    skill: (args) => tool.execute(args as never, testToolContext(), runtime),
    command: (name, args = "") => {
      const c = commands.get(name) ?? declared.get(name);
      if (!c) throw new Error(`no command /${name}`);
      return Promise.resolve(c.run(args, runtime as never, { signal: new AbortController().signal })).then(
        (r) => r ?? undefined,
      );
    },
    hook: async (name, event = {}) => {
      const h = skillsExtension.hooks?.[name] as ((e: object, r: unknown, c: object) => unknown) | undefined;
      await h?.(event, runtime, { signal: new AbortController().signal });
    },
    close: () => Promise.resolve(skillsExtension.lifecycle!.deactivate!(runtime)),
  };
}

export function text(result: ToolResult | CommandResult | undefined): string {
  if (!result) return "";
  if ("content" in result) return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  return result.message ?? result.prompt ?? "";
}
