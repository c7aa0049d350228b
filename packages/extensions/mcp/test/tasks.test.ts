// Task-augmented tools/call (the 2025-11-25 spec's tasks) for tools that require it: created,
// polled at the server's interval with its status passed on, progress notifications kept, the
// result fetched — also when the task asks for input on the way — and cancelled with the call.
// Against the fixture server's task tool and server-everything's simulate-research-query.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { offeredTools } from "../src/catalog/entries.js";
import type { ClientFeatureHandlers } from "../src/connection/client.js";
import { McpConnection } from "../src/connection/index.js";
import type { TaskState } from "../src/connection/tasks.js";
import { clientInfo, plainHandlers } from "./helpers/handlers.js";
import { everything, stdioSpec, tempDir } from "./helpers/servers.js";

const fixture = fileURLToPath(new URL("./fixtures/fixture-server.mjs", import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function open(spec: ReturnType<typeof stdioSpec>, handlers: Partial<ClientFeatureHandlers> = {}) {
  const dir = tempDir();
  const connection = new McpConnection(spec, {
    clientInfo,
    logFile: join(dir.path, `${spec.name}.log`),
    handlers: plainHandlers(handlers),
  });
  cleanups.push(dir.cleanup, () => connection.close());
  return connection;
}
const text = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((c) => c.text ?? "").join("");

describe("MCP tasks", () => {
  it("runs a task-only tool: created, polled, its progress and status passed on, its result fetched", async () => {
    const connection = open(stdioSpec("fixture", [fixture, "--tasks"], { timeoutMs: 2_000 }));
    await connection.ready();
    const tool = connection.tools().find((t) => t.name === "slow_task");
    expect(tool?.execution?.taskSupport).toBe("required");
    // Called plainly, the server refuses it: that is why Keel runs it as a task.
    const plain = await connection.callTool("slow_task", { steps: 2 });
    expect(plain.isErr() || (plain.isOk() && plain.value.isError)).toBe(true);

    const statuses: TaskState[] = [];
    const progress: number[] = [];
    const result = await connection.callTool(
      "slow_task",
      { steps: 4 },
      { task: true, onTaskStatus: (s) => statuses.push(s), onProgress: (p) => progress.push(p.progress) },
    );
    expect(result.isOk() && text(result.value)).toBe("done after 4 steps");
    expect(statuses[0]?.status).toBe("working");
    expect(statuses.some((s) => /^step \d of 4$/.test(s.statusMessage ?? ""))).toBe(true);
    expect(progress).toEqual(expect.arrayContaining([1, 2, 3, 4]));
  });

  it("a task longer than the idle timeout runs on: each answered poll counts", async () => {
    const connection = open(stdioSpec("fixture", [fixture, "--tasks"], { timeoutMs: 400 }));
    const result = await connection.callTool("slow_task", { steps: 6 }, { task: true });
    expect(result.isOk() && text(result.value)).toBe("done after 6 steps");
  });

  it("cancels the task when the call is cancelled", async () => {
    const connection = open(stdioSpec("fixture", [fixture, "--tasks"]));
    const controller = new AbortController();
    let taskId = "";
    const result = await connection.callTool(
      "slow_task",
      { steps: 40 },
      {
        task: true,
        signal: controller.signal,
        onTaskStatus: (s) => {
          taskId = s.taskId;
          // The first step a poll sees (a busy machine may poll past step 1).
          if (/^step \d+ of 40$/.test(s.statusMessage ?? "")) controller.abort();
        },
      },
    );
    expect(result.isErr() && result.error.type).toBe("cancelled");
    const deadline = Date.now() + 5_000;
    while (!readFileSync(connection.log.file, "utf8").includes(`task ${taskId} cancelled`)) {
      if (Date.now() > deadline) throw new Error(readFileSync(connection.log.file, "utf8"));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  it("answers a task's question on the way (input_required): server-everything's research task", async () => {
    const asked: string[] = [];
    const connection = open(everything({ timeoutMs: 5_000 }), {
      elicit: async (params) => {
        asked.push(params.message);
        return { action: "accept", content: { interpretation: "technical" } };
      },
    });
    await connection.ready();
    const research = () => connection.tools().find((t) => t.name === "simulate-research-query");
    const deadline = Date.now() + 10_000;
    while (!research() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(research()?.execution?.taskSupport).toBe("required");
    const statuses: string[] = [];
    const result = await connection.callTool(
      "simulate-research-query",
      { topic: "python", ambiguous: true },
      { task: true, onTaskStatus: (s) => statuses.push(s.status) },
    );
    expect(result.isOk() && text(result.value)).toContain("Clarification**: technical");
    expect(asked[0]).toContain("could have multiple interpretations");
    expect(statuses).toContain("input_required");
  }, 30_000);

  it("offers a task-only tool only by a server that takes task-augmented calls", () => {
    const spec = stdioSpec("s", []);
    const tools = [
      { name: "plain", inputSchema: { type: "object" as const } },
      {
        name: "task_only",
        inputSchema: { type: "object" as const },
        execution: { taskSupport: "required" as const },
      },
      {
        name: "either",
        inputSchema: { type: "object" as const },
        execution: { taskSupport: "optional" as const },
      },
    ];
    expect(offeredTools(spec, { tools, taskCalls: false }).map((t) => t.name)).toEqual(["plain", "either"]);
    expect(offeredTools(spec, { tools, taskCalls: true }).map((t) => t.name)).toEqual([
      "plain",
      "task_only",
      "either",
    ]);
  });
});
