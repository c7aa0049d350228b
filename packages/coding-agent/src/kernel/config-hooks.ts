// Command hooks from configuration ("hooks": {"runEnd": [{"command": "..."}]}), written as an
// ordinary extension against the contract. Each command gets the event as JSON on stdin; for
// beforeToolCall, exit code 2 blocks the call with stderr as the reason. Project hooks only
// exist here when the project is trusted: untrusted project config is never read. Commands run
// in the project root (also in $KEEL_PROJECT_DIR), so the files they name are the ones trust hashed.
import { spawn } from "node:child_process";
import { defineExtension, type ExtensionDefinition, HOOK_NAMES, type HookName } from "@keel/extension-sdk";
import type { HookCommand } from "../config/schema.js";

interface CommandOutcome {
  code: number | null;
  stderr: string;
}

function runCommand(command: HookCommand, input: unknown, cwd: string): Promise<CommandOutcome> {
  return new Promise((resolve) => {
    const child = spawn(
      process.env.SHELL && !process.env.SHELL.endsWith("fish") ? process.env.SHELL : "sh",
      ["-c", command.command],
      {
        cwd,
        env: { ...process.env, KEEL_PROJECT_DIR: cwd },
        stdio: ["pipe", "ignore", "pipe"],
        detached: true,
      },
    );
    let stderr = "";
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, command.timeoutMs ?? 30_000);
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8");
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ code: null, stderr: e.message });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr: stderr.trim() });
    });
    // A command that never reads stdin may exit first; its closed pipe is not an error.
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

function matches(command: HookCommand, toolName: string | undefined): boolean {
  if (!command.matcher || toolName === undefined) return true;
  try {
    return new RegExp(`^(?:${command.matcher})$`).test(toolName);
  } catch {
    return command.matcher === toolName;
  }
}

export function configHooksExtension(hooks: Record<string, HookCommand[]>, cwd: string): ExtensionDefinition {
  const handlers: Record<string, (event: unknown) => Promise<unknown>> = {};
  for (const [name, commands] of Object.entries(hooks)) {
    if (!HOOK_NAMES.includes(name as HookName)) continue;
    handlers[name] = async (event: unknown) => {
      const toolName = (event as { toolName?: string }).toolName;
      for (const command of commands.filter((c) => matches(c, toolName))) {
        const outcome = await runCommand(command, { hook: name, ...(event as object) }, cwd);
        if (name === "beforeToolCall" && outcome.code === 2) {
          return { action: "block", reason: outcome.stderr || `Blocked by hook: ${command.command}` };
        }
        if (outcome.code !== 0)
          throw new Error(`hook command "${command.command}" exited ${outcome.code}: ${outcome.stderr}`);
      }
      return undefined;
    };
  }
  return defineExtension({
    id: "config-hooks",
    description: "Commands from the hooks section of config",
    hooks: handlers,
  });
}
