// Creation's tool step: the OS sandbox every command runs in, the permission gate every tool call
// goes through (its approvals heard by Claude Code's Notification hooks), and the built-in tools.
import { join, resolve } from "node:path";
import type { LoadedConfig } from "../../config/load.js";
import { realpathOrResolved } from "../../fs/paths.js";
import { expandHome } from "../../permissions/paths.js";
import type { PermissionRuleEntry } from "../../permissions/types.js";
import { CommandSandbox } from "../../sandbox/runtime.js";
import { resolveSandboxSettings } from "../../sandbox/settings.js";
import { createBuiltinTools } from "../../tools/builtin.js";
import type { BuiltinTool } from "../../tools/shared.js";
import type { Attention } from "../claude-hooks.js";
import type { KernelAgent } from "../coding-agent.js";
import { createToolPermission, type KernelPermission } from "../permission.js";
import type { CodingAgentOptions, PermissionModeName, ToolApprovalRequest } from "../types.js";
import type { Note } from "./project-trust.js";

export interface ToolSetup {
  sandbox: CommandSandbox;
  permission: KernelPermission;
  builtinTools: BuiltinTool[];
  /** Who hears that the user's attention is wanted (Claude Code's Notification hooks). */
  attention: Set<(a: Attention) => void>;
}

export interface ToolSetupInput {
  options: CodingAgentOptions;
  cwd: string;
  home: string;
  userHome: string;
  projectRoot: string;
  trusted: boolean;
  loaded: LoadedConfig;
  mode: PermissionModeName;
  extraDirs: readonly string[];
  rules: readonly PermissionRuleEntry[];
  /** The kernel these serve, made after them (its parts need the tools). */
  kernel: () => KernelAgent;
}

export function createToolSetup(input: ToolSetupInput, note: Note): ToolSetup {
  const { options, cwd, home, userHome, projectRoot, trusted, loaded, mode, extraDirs, rules, kernel } =
    input;
  const config = loaded.config;
  const sandboxConfig = resolveSandboxSettings(loaded.layers.user?.sandbox, [
    { file: join(projectRoot, ".keel", "config.json"), layer: loaded.layers.project?.sandbox },
    {
      file: join(projectRoot, ".keel", "config.local.json"),
      layer: loaded.layers.projectLocal?.sandbox,
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
    report: (message) => kernel().report("warning", message),
  });
  const attention = new Set<(a: Attention) => void>();
  const permissionUi = options.ui?.approve
    ? {
        ...options.ui,
        approve: (request: ToolApprovalRequest) => {
          for (const listener of attention)
            listener({
              sessionId: kernel().sessionId,
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
    report: (message) => kernel().report("info", message),
    onAnswer: (answer) => {
      void kernel().session.appendEntry({ type: "approval", source: "permission", ...answer });
    },
    sandbox: (m) => sandbox.state(m),
    ...(options.testing?.forceParserAllow ? { forceParserAllow: true } : {}),
    ...(options.textFiles ? { textFiles: options.textFiles } : {}),
  });
  const builtinTools = createBuiltinTools({
    cwd,
    ...(options.textFiles ? { textFiles: options.textFiles } : {}),
    supportsImages: () => kernel().model().input.includes("image"),
    // The checker judges `cd name` as ./name: CDPATH (from a profile) must not send it elsewhere.
    // Config's env (Keel's and Claude Code's `env`) reaches every command; the sandbox still drops secrets.
    bash: { env: { ...config.env, CDPATH: undefined }, sandbox },
    grep: { guard: permission.readGuard },
    glob: { guard: permission.readGuard },
    ls: { guard: permission.readGuard },
  });
  if (options.testing?.builtinTools) builtinTools.push(...options.testing.builtinTools(cwd));
  return { sandbox, permission, builtinTools, attention };
}
