// Shared test fixtures: real temp directories, a tool-call context, result text.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { AgentToolResult, ToolExecutionContext } from "@keel/agent";

export async function makeTempDir(
  prefix = "keel-tools-",
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  // realpath: macOS tmpdir is a symlink, and tools report resolved paths.
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes a tree of files: keys are relative paths. */
export async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
}

export function gitInit(dir: string): void {
  execFileSync("git", ["init", "-q"], { cwd: dir });
}

export function context<T = unknown>(
  overrides: Partial<ToolExecutionContext<T>> = {},
): ToolExecutionContext<T> & { updates: AgentToolResult<T>[] } {
  const updates: AgentToolResult<T>[] = [];
  return {
    signal: new AbortController().signal,
    toolCallId: "call_1",
    onUpdate: (partial) => updates.push(partial),
    ...overrides,
    updates,
  };
}

export function textOf(result: AgentToolResult<unknown>): string {
  return result.content.map((c) => (c.type === "text" ? c.text : `[image ${c.mimeType}]`)).join("\n");
}

/** Alive and not a zombie (a re-parented zombie may never be reaped in a container). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

export async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}
