// Bash: runs a command in its own process group, streams its output, bounds it in time and
// size, and never leaves a process of its tree running once it returns.
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { AgentToolResult } from "@keel/agent";
import { type Static, Type } from "@sinclair/typebox";
import { errnoMessage } from "../fs/errno.js";
import type { CommandSandbox, ConfinedSpawn } from "../sandbox/runtime.js";
import { defaultLogDir, type LogLimits } from "./bash-logs.js";
import { type CollectedOutput, OutputCollector } from "./bash-output.js";
import { loginEnvironment } from "./login-env.js";
import {
  type CommandTree,
  newTreeMarker,
  registerTree,
  startTicks,
  treeAlive,
  watchTree,
} from "./process-tree.js";
import { type BuiltinTool, errorResult, formatBytes } from "./shared.js";

export interface BashToolOptions {
  cwd: string;
  /** Merged over process.env. */
  env?: Record<string, string | undefined>;
  /**
   * Shell and its arguments before the command. Default: bash with the login environment
   * (captured once, then `bash -c` per command), else `sh -c`.
   */
  shell?: { file: string; args: string[] };
  defaultTimeoutSeconds?: number;
  maxTimeoutSeconds?: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  updateIntervalMs?: number;
  maxOutputBytes?: number;
  maxOutputLines?: number;
  /** Where full logs of truncated output go; default `<tmpdir>/keel-bash-<uid>` (bounded: bash-logs.ts). */
  logDir?: string;
  logLimits?: LogLimits;
  /**
   * The OS sandbox commands run in, under the permission mode in force when each starts, with
   * secret-looking variables left out of their environment. Absent: unconfined (tests, embedders).
   */
  sandbox?: CommandSandbox;
}

export interface BashDetails {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  /** Processes the command left running in the background, ended when it exited. */
  killedBackground: boolean;
  durationMs: number;
  truncated: boolean;
  totalBytes: number;
  totalLines: number;
  logPath?: string;
  /** What confined the command: "bwrap", "seatbelt", or "none". */
  sandbox?: "bwrap" | "seatbelt" | "none";
}

const bashParameters = Type.Object({
  command: Type.String({ description: "Shell command" }),
  timeout: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, maximum: 600, description: "Seconds (default 120, max 600)" }),
  ),
  description: Type.Optional(Type.String({ description: "What it does, in 5-10 words, for the user" })),
});

export type BashParams = Static<typeof bashParameters>;

const DEFAULTS = {
  defaultTimeoutSeconds: 120,
  maxTimeoutSeconds: 600,
  killGraceMs: 2000,
  updateIntervalMs: 100,
  maxOutputBytes: 30 * 1024,
  maxOutputLines: 1000,
};

/** Output pipes can be held open by a process that escaped the tree; do not wait on them forever. */
const CLOSE_WAIT_MS = 500;

let detectedShell: { file: string; args: string[]; login?: boolean } | undefined;

/** The default shell; `login` means commands get the login environment (see login-env.ts). */
export function defaultShell(): { file: string; args: string[]; login?: boolean } {
  if (detectedShell === undefined) {
    const dirs = ["/bin", "/usr/bin", ...(process.env.PATH ?? "").split(delimiter).filter(Boolean)];
    const bash = dirs.map((d) => join(d, "bash")).find(isExecutable);
    detectedShell =
      bash !== undefined ? { file: bash, args: ["-c"], login: true } : { file: "/bin/sh", args: ["-c"] };
  }
  return detectedShell;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function createBashTool(options: BashToolOptions): BuiltinTool<typeof bashParameters, BashDetails> {
  const settings = { ...DEFAULTS, ...withoutUndefined(options) };
  const shell = options.shell ?? defaultShell();
  const baseEnv = { ...process.env, ...options.env };
  // Taken at the first command (creating the tool spawns nothing), then shared by every command.
  const wantsLogin = "login" in shell && shell.login === true;
  return {
    name: "Bash",
    label: "Bash",
    description:
      "Run a shell command (bash, login environment) in the workspace; stdout and stderr are combined. Long output keeps the last " +
      `${settings.maxOutputLines} lines / ${formatBytes(settings.maxOutputBytes)} and gives the full log's path. ` +
      `Timeout ${settings.defaultTimeoutSeconds} s by default. Processes left in the background are killed when it ends.`,
    parameters: bashParameters,
    executionMode: "sequential",
    access: "exec",
    args: { commands: ["command"] },
    summary: (args) => args.command,
    preview: (args) => ({ format: "command", text: args.command }),
    async execute(args, { signal, onUpdate }): Promise<AgentToolResult<BashDetails>> {
      if (signal.aborted) return errorResult("Command was aborted before it started.");
      try {
        if (!statSync(options.cwd).isDirectory()) throw new Error("not a directory");
      } catch {
        return errorResult(`The workspace directory ${options.cwd} does not exist; the command was not run.`);
      }
      const timeoutSeconds = Math.min(
        args.timeout ?? settings.defaultTimeoutSeconds,
        settings.maxTimeoutSeconds,
      );
      const loginEnv = wantsLogin ? await loginEnvironment(shell.file, baseEnv) : undefined;
      // Without a snapshot, a login shell per command gives the same environment, only slower.
      const shellArgs = wantsLogin && !loginEnv ? ["-lc"] : shell.args;
      const collector = new OutputCollector(
        { maxBytes: settings.maxOutputBytes, maxLines: settings.maxOutputLines },
        options.logDir ?? defaultLogDir(),
        options.logLimits,
      );
      const startedAt = Date.now();

      const marker = newTreeMarker();
      const env: Record<string, string | undefined> = {
        ...(loginEnv ?? process.env),
        PAGER: "cat",
        GIT_PAGER: "cat",
        ...options.env,
        // Inherited by everything the command starts, even what leaves its group or session.
        [marker]: "1",
      };
      let run: ConfinedSpawn | undefined;
      if (options.sandbox) {
        const confined = await options.sandbox.confine({
          file: shell.file,
          args: [...shellArgs, args.command],
          cwd: options.cwd,
          env,
        });
        if (confined.isErr()) return errorResult(confined.error.message);
        run = confined.value;
      }
      let child: ReturnType<typeof spawn>;
      try {
        child = spawn(run?.file ?? shell.file, run?.args ?? [...shellArgs, args.command], {
          cwd: options.cwd,
          env: run?.env ?? env,
          detached: true,
          stdio: run ? run.stdio(["ignore", "pipe", "pipe"]) : ["ignore", "pipe", "pipe"],
        });
      } catch (error) {
        run?.release();
        return errorResult(`Could not start ${shell.file}: ${errnoMessage(error)}`);
      }
      run?.attach(child);
      const tree: CommandTree | undefined =
        child.pid === undefined ? undefined : { pgid: child.pid, marker, start: startTicks(child.pid) };
      const unregister = tree ? registerTree(tree) : () => {};

      let updateTimer: NodeJS.Timeout | undefined;
      let lastUpdate = 0;
      const publish = () => {
        updateTimer = undefined;
        lastUpdate = Date.now();
        const tail = collector.tail();
        onUpdate({ content: [{ type: "text", text: tail.text }] });
      };
      const onData = (chunk: Buffer) => {
        collector.push(chunk);
        if (updateTimer === undefined) {
          updateTimer = setTimeout(publish, Math.max(0, lastUpdate + settings.updateIntervalMs - Date.now()));
        }
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);

      const watch = watchTree(tree, {
        graceMs: settings.killGraceMs,
        timeoutMs: timeoutSeconds * 1000,
        signal,
      });

      const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
      const exit = await new Promise<{ code: number | null; signal: string | null } | { spawnError: string }>(
        (resolve) => {
          child.once("error", (error) => resolve({ spawnError: errnoMessage(error) }));
          child.once("exit", (code, sig) => resolve({ code, signal: sig }));
        },
      );
      watch.stop();
      const { timedOut, aborted } = watch;

      // The shell is gone; anything of its tree still alive was started in the background. A
      // sandbox that proves its tree ended spares the search of every process on the machine.
      const killedBackground =
        !watch.killing && tree !== undefined && !(await run?.ended()) && treeAlive(tree, run?.launcher);
      if (watch.killing || killedBackground) await watch.terminate();
      unregister();
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS))]);
      child.stdout?.destroy();
      child.stderr?.destroy();
      if (updateTimer !== undefined) clearTimeout(updateTimer);
      const output = await collector.finish();
      run?.release();

      if ("spawnError" in exit) return errorResult(`Could not run the command: ${exit.spawnError}`);
      const details: BashDetails = {
        exitCode: exit.code,
        signal: exit.signal,
        timedOut,
        aborted,
        killedBackground,
        durationMs: Date.now() - startedAt,
        truncated: output.truncated,
        totalBytes: output.totalBytes,
        totalLines: output.totalLines,
      };
      if (output.logPath !== undefined) details.logPath = output.logPath;
      if (run) details.sandbox = run.backend;
      const isError = timedOut || aborted || exit.code !== 0;
      const text = [
        output.text === "" ? "(no output)" : output.text,
        ...notes(output, details, timeoutSeconds),
        ...(isError && run && run.backend !== "none" ? sandboxNote(output.text) : []),
      ].join("\n\n");
      return { content: [{ type: "text", text }], details, ...(isError ? { isError: true } : {}) };
    },
  };
}

function notes(output: CollectedOutput, details: BashDetails, timeoutSeconds: number): string[] {
  const out: string[] = [];
  if (output.truncated) {
    const where =
      output.logPath !== undefined
        ? output.logDroppedBytes !== undefined
          ? `Log (its first ${formatBytes(output.totalBytes - output.logDroppedBytes)}; the end is above): ${output.logPath}`
          : `Full log: ${output.logPath}`
        : `The full log could not be saved (${output.logError ?? "unknown error"}).`;
    out.push(
      `[Output truncated: last ${output.shownLines} of ${output.totalLines} lines (${formatBytes(output.totalBytes)} total). ${where}]`,
    );
  }
  if (details.timedOut)
    out.push(`Timed out after ${timeoutSeconds} s; the command and its child processes were killed.`);
  else if (details.aborted) out.push("Aborted; the command and its child processes were killed.");
  else if (details.signal !== null) out.push(`Killed by signal ${details.signal}.`);
  else if (details.exitCode !== 0) out.push(`Exit code ${details.exitCode}.`);
  if (details.killedBackground) out.push("Processes it left running in the background were terminated.");
  return out;
}

/** When a confined command failed the way the sandbox makes commands fail, the model is told why. */
function sandboxNote(output: string): string[] {
  const refused =
    /Read-only file system|Operation not permitted|Could not resolve host|Network is unreachable|Temporary failure in name resolution|403 Forbidden/i;
  if (!refused.test(output)) return [];
  return [
    "The command ran in Keel's OS sandbox: in plan mode nothing is writable; otherwise only the workspace and /tmp are, except protected paths (.git/hooks, .git/config, .keel, .claude, .agents, .mcp.json). The network is reachable only for domains the user allowed (sandbox.allowedDomains). Do not try to get around it; ask the user if the command needs more.",
  ];
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
