// The kernel's process API for extensions (`exec` on the tool-call context and the runtime): a
// program run under the same sandbox, environment and process-tree rules as the Bash tool's
// commands, its stdout and stderr kept apart and bounded.
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import type { ExecOptions, ExecOutcome } from "@keel/extension-sdk";
import { errnoMessage } from "../fs/errno.js";
import { newTreeMarker, registerTree, startTicks, treeAlive, watchTree } from "../tools/process-tree.js";
import type { CommandSandbox, ConfinedSpawn } from "./runtime.js";

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_OUTPUT = 1024 * 1024;
const KILL_GRACE_MS = 2000;

/** Keeps the last `max` bytes of a stream. */
class Tail {
  #chunks: Buffer[] = [];
  #bytes = 0;
  truncated = false;
  constructor(readonly max: number) {}
  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    while (this.#bytes > this.max && this.#chunks.length > 0) {
      const first = this.#chunks[0]!;
      const over = this.#bytes - this.max;
      this.truncated = true;
      if (first.length <= over) {
        this.#chunks.shift();
        this.#bytes -= first.length;
      } else {
        this.#chunks[0] = first.subarray(over);
        this.#bytes -= over;
      }
    }
  }
  text(): string {
    return Buffer.concat(this.#chunks).toString("utf8");
  }
}

/** Answers the SDK's ExecOutcome (runtime.exec's contract), so its `{ ok }` shape stays. */
export async function execConfined(
  sandbox: CommandSandbox | undefined,
  sessionCwd: string,
  file: string,
  args: readonly string[],
  options: ExecOptions = {},
): Promise<ExecOutcome> {
  if (
    typeof file !== "string" ||
    file === "" ||
    !Array.isArray(args) ||
    args.some((a) => typeof a !== "string")
  )
    return {
      ok: false,
      error: { type: "invalid", message: "exec needs a program name and string arguments" },
    };
  if (options.signal?.aborted)
    return { ok: false, error: { type: "invalid", message: "exec was aborted before it started" } };
  const cwd = resolve(sessionCwd, options.cwd ?? ".");
  const marker = newTreeMarker();
  const env = { ...process.env, [marker]: "1" };
  let run: ConfinedSpawn | undefined;
  if (sandbox) {
    const confined = await sandbox.confine({ file, args, cwd, env });
    if (confined.isErr()) return { ok: false, error: confined.error };
    run = confined.value;
  }
  const input = options.input;
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(run?.file ?? file, run?.args ?? [...args], {
      cwd,
      env: { ...(run?.env ?? env), ...options.env, [marker]: "1" },
      detached: true,
      stdio: run
        ? run.stdio([input === undefined ? "ignore" : "pipe", "pipe", "pipe"])
        : [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
  } catch (error) {
    run?.release();
    return {
      ok: false,
      error: { type: "spawn_failed", message: `Could not start ${file}: ${errnoMessage(error)}` },
    };
  }
  run?.attach(child);
  const tree =
    child.pid === undefined ? undefined : { pgid: child.pid, marker, start: startTicks(child.pid) };
  const unregister = tree ? registerTree(tree) : () => {};
  const max = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const stdout = new Tail(max);
  const stderr = new Tail(max);
  child.stdout?.on("data", (d: Buffer) => stdout.push(d));
  child.stderr?.on("data", (d: Buffer) => stderr.push(d));
  if (input !== undefined) {
    child.stdin?.on("error", () => {});
    child.stdin?.end(input);
  }

  const watch = watchTree(tree, {
    graceMs: KILL_GRACE_MS,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    signal: options.signal,
  });
  const closed = new Promise<void>((done) => child.once("close", () => done()));
  const exit = await new Promise<{ code: number | null; signal: string | null } | { spawnError: string }>(
    (done) => {
      child.once("error", (error) => done({ spawnError: errnoMessage(error) }));
      child.once("exit", (code, signal) => done({ code, signal }));
    },
  );
  watch.stop();
  const { timedOut, aborted } = watch;
  // Whatever of its tree is still running was left in the background: it ends with the program.
  if (watch.killing || (tree && !(await run?.ended()) && treeAlive(tree, run?.launcher)))
    await watch.terminate();
  unregister();
  await Promise.race([closed, new Promise((done) => setTimeout(done, 500))]);
  child.stdout?.destroy();
  child.stderr?.destroy();
  run?.release();
  if ("spawnError" in exit)
    return {
      ok: false,
      error: { type: "spawn_failed", message: `Could not run ${file}: ${exit.spawnError}` },
    };
  return {
    ok: true,
    result: {
      exitCode: exit.code,
      signal: exit.signal,
      stdout: stdout.text(),
      stderr: stderr.text(),
      timedOut,
      aborted,
      truncated: stdout.truncated || stderr.truncated,
      sandbox: run?.backend ?? "none",
    },
  };
}
