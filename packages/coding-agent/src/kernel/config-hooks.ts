// Command hooks from configuration ("hooks": {"runEnd": [{"command": "..."}]}), written as an
// ordinary extension against the contract. Keel's hook names get the event as JSON on stdin
// (for beforeToolCall, exit code 2 blocks the call with stderr as the reason); Claude Code's
// event names run with Claude Code's protocol (claude-hooks.ts). Project hooks only exist here
// when the project is trusted: untrusted project config is never read. Commands run in the
// project root (also in $KEEL_PROJECT_DIR and $CLAUDE_PROJECT_DIR), so the files they name are
// the ones trust hashed.
import { spawn } from "node:child_process";
import { defineExtension, type ExtensionDefinition, HOOK_NAMES, type HookName } from "@keel/extension-sdk";
import { CLAUDE_HOOK_NAMES, type ClaudeHookName } from "../config/hook-names.js";
import type { ClaudeHookGroup, HookCommand } from "../config/schema.js";
import { type ClaudeHookInfo, claudeHandlers } from "./claude-hooks.js";

/** One command to run for a hook, whichever shape config gave it in. */
export interface HookRun {
  command: string;
  matcher?: string;
  timeoutMs: number;
}

export interface CommandOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

const KEEL_TIMEOUT_MS = 30_000;
/** Claude Code's default for a command hook. */
const CLAUDE_TIMEOUT_MS = 60_000;
const MAX_CAPTURE = 64 * 1024;

export function runHookCommand(
  run: HookRun,
  input: unknown,
  cwd: string,
  env: Readonly<Record<string, string>> = {},
): Promise<CommandOutcome> {
  return new Promise((resolve) => {
    const child = spawn(
      process.env.SHELL && !process.env.SHELL.endsWith("fish") ? process.env.SHELL : "sh",
      ["-c", run.command],
      {
        cwd,
        env: { ...process.env, ...env, KEEL_PROJECT_DIR: cwd, CLAUDE_PROJECT_DIR: cwd },
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      },
    );
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, run.timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      if (stdout.length < MAX_CAPTURE) stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8");
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ code: null, stdout: "", stderr: e.message });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: stdout.trim(), stderr: stderr.trim() });
    });
    // A command that never reads stdin may exit first; its closed pipe is not an error.
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

/** Whether a command's matcher takes `subject` (a tool name; SessionStart: its source). */
export function matches(run: HookRun, subject: string | undefined): boolean {
  if (!run.matcher || run.matcher === "*" || subject === undefined) return true;
  try {
    return new RegExp(`^(?:${run.matcher})$`).test(subject);
  } catch {
    return run.matcher === subject;
  }
}

function runsOf(entries: readonly (HookCommand | ClaudeHookGroup)[], defaultTimeoutMs: number): HookRun[] {
  return entries.flatMap((entry): HookRun[] =>
    "hooks" in entry
      ? entry.hooks.flatMap((h) =>
          // Other hook types were warned about when config loaded (config/hook-names.ts).
          h.type !== "command" || h.command === undefined
            ? []
            : [
                {
                  command: h.command,
                  ...(entry.matcher !== undefined ? { matcher: entry.matcher } : {}),
                  timeoutMs: h.timeout !== undefined ? Math.round(h.timeout * 1000) : defaultTimeoutMs,
                },
              ],
        )
      : [
          {
            command: entry.command,
            ...(entry.matcher !== undefined ? { matcher: entry.matcher } : {}),
            timeoutMs: entry.timeoutMs ?? defaultTimeoutMs,
          },
        ],
  );
}

type Handler = (event: unknown, runtime: never) => Promise<unknown>;

function keelHandler(name: HookName, runs: HookRun[], cwd: string, env: Record<string, string>): Handler {
  return async (event: unknown) => {
    const toolName = (event as { toolName?: string }).toolName;
    for (const run of runs.filter((r) => matches(r, toolName))) {
      const outcome = await runHookCommand(run, { hook: name, ...(event as object) }, cwd, env);
      if (name === "beforeToolCall" && outcome.code === 2) {
        return { action: "block", reason: outcome.stderr || `Blocked by hook: ${run.command}` };
      }
      if (outcome.code !== 0)
        throw new Error(`hook command "${run.command}" exited ${outcome.code}: ${outcome.stderr}`);
    }
    return undefined;
  };
}

/**
 * Several handlers of one hook as one, in order: a policy's block ends the chain, rewritten
 * arguments, results and prompts pass on to the next.
 */
function chain(name: HookName, handlers: Handler[]): Handler {
  if (handlers.length === 1) return handlers[0]!;
  return async (event, runtime) => {
    let current = event as Record<string, unknown>;
    let changed: Record<string, unknown> | undefined;
    for (const handler of handlers) {
      const out = (await handler(current, runtime)) as Record<string, unknown> | undefined;
      if (!out) continue;
      if (name === "beforeToolCall") {
        if (out.action === "block") return out;
        if (out.args) current = { ...current, args: out.args };
        changed = { action: "continue", args: current.args };
      } else if (name === "afterToolCall" && out.result) {
        current = { ...current, result: out.result };
        changed = { result: out.result };
      } else if (name === "beforeAgentStart" && typeof out.prompt === "string") {
        current = { ...current, prompt: out.prompt };
        changed = { prompt: out.prompt };
      }
    }
    return changed;
  };
}

export function configHooksExtension(
  hooks: Record<string, (HookCommand | ClaudeHookGroup)[]>,
  cwd: string,
  info: ClaudeHookInfo = { mode: () => "default", sessionFile: () => undefined, env: {} },
): ExtensionDefinition {
  const byHook = new Map<HookName, Handler[]>();
  const add = (name: HookName, handler: Handler) => byHook.set(name, [...(byHook.get(name) ?? []), handler]);
  const claude: Partial<Record<ClaudeHookName, HookRun[]>> = {};
  for (const [name, entries] of Object.entries(hooks)) {
    if ((HOOK_NAMES as readonly string[]).includes(name))
      add(name as HookName, keelHandler(name as HookName, runsOf(entries, KEEL_TIMEOUT_MS), cwd, info.env));
    else if ((CLAUDE_HOOK_NAMES as readonly string[]).includes(name))
      claude[name as ClaudeHookName] = runsOf(entries, CLAUDE_TIMEOUT_MS);
    // Any other name was warned about when the config was loaded (config/hook-names.ts) and never runs.
  }
  for (const [name, handler] of Object.entries(claudeHandlers(claude, cwd, info)))
    add(name as HookName, handler as unknown as Handler);
  const handlers = Object.fromEntries([...byHook].map(([name, list]) => [name, chain(name, list)]));
  return defineExtension({
    id: "config-hooks",
    description: "Commands from the hooks section of config",
    hooks: handlers,
  });
}
