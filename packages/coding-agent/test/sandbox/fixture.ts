// A machine in a folder for sandbox tests: a user home with rc files, an ssh key and a Keel home
// holding credentials; a git workspace with a hook; a folder outside both. Commands run through
// the real Bash tool inside the real sandbox; their effects are read back from the files.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { AgentToolResult } from "@keel/agent";
import type { PermissionMode, PermissionRuleEntry } from "../../src/index.js";
import { CommandSandbox, type CommandSandboxOptions } from "../../src/sandbox/runtime.js";
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from "../../src/sandbox/settings.js";
import { createBashTool } from "../../src/tools/bash.js";

export const KEY_TEXT = "FAKE-PRIVATE-KEY-7f3a";
export const CREDENTIALS_TEXT = "KEEL-CREDENTIALS-91bd";

export interface SandboxFixture {
  base: string;
  home: string;
  keelHome: string;
  workspace: string;
  outside: string;
  mode: PermissionMode;
  rules: PermissionRuleEntry[];
  sandbox: CommandSandbox;
  /** Runs a command through the Bash tool in the sandbox; resolves to its output. */
  run(command: string, cwd?: string): Promise<{ text: string; result: AgentToolResult<unknown> }>;
  dispose(): Promise<void>;
}

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

export function sandboxFixture(
  options: {
    settings?: Partial<SandboxSettings>;
    /** Where the workspace is: its own folder (default) or the user's home itself. */
    workspaceIsHome?: boolean;
    env?: NodeJS.ProcessEnv;
    lookup?: CommandSandboxOptions["lookup"];
  } = {},
): SandboxFixture {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "keel-sandbox-test-")));
  const home = join(base, "home");
  const keelHome = join(home, ".keel");
  const workspace = options.workspaceIsHome ? home : join(base, "ws");
  const outside = join(base, "outside");
  write(join(home, ".bashrc"), "# rc\n");
  write(join(home, ".ssh", "id_ed25519"), `${KEY_TEXT}\n`);
  write(join(keelHome, "credentials.json"), `{"token":"${CREDENTIALS_TEXT}"}\n`);
  mkdirSync(outside, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  execFileSync("git", ["init", "-q", workspace]);
  execFileSync("git", ["-C", workspace, "config", "user.email", "t@example.com"]);
  execFileSync("git", ["-C", workspace, "config", "user.name", "t"]);
  write(join(workspace, "README.md"), "hello\n");
  const fixture: SandboxFixture = {
    base,
    home,
    keelHome,
    workspace,
    outside,
    mode: "default",
    rules: [],
    sandbox: undefined as unknown as CommandSandbox,
    async run(command, cwd = workspace) {
      const bash = createBashTool({
        cwd,
        sandbox: fixture.sandbox,
        shell: { file: "/bin/bash", args: ["-c"] },
      });
      const result = await bash.execute(
        { command },
        { signal: new AbortController().signal, toolCallId: "t", onUpdate: () => {} },
      );
      const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
      return { text, result };
    },
    async dispose() {
      await fixture.sandbox.close();
      rmSync(base, { recursive: true, force: true });
    },
  };
  fixture.sandbox = new CommandSandbox({
    workspace,
    cwd: workspace,
    userHome: home,
    keelHome,
    settings: { ...DEFAULT_SANDBOX_SETTINGS, ...options.settings },
    mode: () => fixture.mode,
    rules: () => fixture.rules,
    ...(options.env ? { env: options.env } : {}),
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
  return fixture;
}
