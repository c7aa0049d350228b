// Abort reaches the provider request, every running tool and their child processes; the history
// stays valid and queued messages come back unsent.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import type { AgentTool } from "../src/index.js";
import { createHarness, defineTool, echoTool, text, toolResults } from "./helpers.js";

const Empty = Type.Object({});

/**
 * Like a Bash tool: runs a shell in its own process group with two background children, reports
 * their pids as output, and kills the whole group on abort.
 */
function shellTool(pids: number[]): AgentTool<typeof Empty> {
  return defineTool("shell", Empty, (_args, { signal, onUpdate }) => {
    return new Promise((resolve) => {
      const child = spawn("sh", ["-c", "sleep 30 & echo $!; sleep 30 & echo $!; wait"], {
        detached: true,
        stdio: ["ignore", "pipe", "ignore"],
      });
      const group = child.pid;
      if (group === undefined) throw new Error("spawn failed");
      pids.push(group);
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const found = output.split(/\s+/).filter(Boolean).map(Number);
        if (found.length === 2 && pids.length === 1) {
          pids.push(...found);
          onUpdate({ content: [{ type: "text", text: output }] });
        }
      });
      const kill = (): void => {
        try {
          process.kill(-group, "SIGKILL");
        } catch {
          // The group is already gone.
        }
      };
      signal.addEventListener("abort", kill, { once: true });
      child.on("close", (code, sig) => {
        signal.removeEventListener("abort", kill);
        resolve({ content: [{ type: "text", text: `exited (${code ?? sig})` }], isError: signal.aborted });
      });
    });
  });
}

/** Running, i.e. neither gone nor a zombie waiting for its (re)parent to reap it. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

async function waitUntilGone(pids: readonly number[], timeoutMs = 5000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(isRunning);
    if (alive.length === 0 || Date.now() > deadline) return alive;
    await sleep(20);
  }
}

describe("abort", () => {
  it("during a tool that spawned a process tree kills the tree and ends the run as aborted", async () => {
    const pids: number[] = [];
    const { agent, faux } = createHarness(
      [
        {
          toolCalls: [
            { id: "sh", name: "shell", arguments: {} },
            { id: "after", name: "later", arguments: { value: "x" } },
          ],
        },
        { text: "never requested" },
      ],
      { tools: [shellTool(pids), echoTool("later", { executionMode: "sequential" })] },
    );
    agent.subscribe((e) => {
      if (e.type === "tool_execution_update") agent.abort();
    });
    const result = (await agent.prompt("run it"))._unsafeUnwrap();

    expect(pids).toHaveLength(3);
    expect(await waitUntilGone(pids)).toEqual([]);
    expect(result.stopReason).toBe("aborted");
    expect(result.error?.type).toBe("aborted");
    expect(faux.requests).toHaveLength(1);
    // Every tool call has a result: the running one its own, the one that never started an abort error.
    const [shell, later] = toolResults(result.messages);
    expect(shell).toMatchObject({ toolCallId: "sh", isError: true });
    expect(later).toMatchObject({ toolCallId: "after", isError: true });
    expect(text(later!)).toBe("Not run: the run was aborted before this tool call started.");
    expect(agent.isRunning).toBe(false);
  });

  it("returns queued steering and follow-up messages unsent", async () => {
    const waitForAbort = defineTool("wait", Empty, (_args, { signal }) => {
      return new Promise((resolve) => {
        signal.addEventListener("abort", () =>
          resolve({ content: [{ type: "text", text: "stopped" }], isError: true }),
        );
      });
    });
    const { agent } = createHarness([{ toolCalls: [{ name: "wait", arguments: {} }] }, { text: "never" }], {
      tools: [waitForAbort],
    });
    agent.subscribe((e) => {
      if (e.type === "tool_execution_start") {
        agent.steer("steer me");
        agent.followUp("then this");
        agent.abort();
      }
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(result.stopReason).toBe("aborted");
    expect(result.unsent).toMatchObject([
      { role: "user", content: "steer me" },
      { role: "user", content: "then this" },
    ]);
    expect(JSON.stringify(agent.messages)).not.toContain("steer me");
  });

  it("reaches the provider request mid-stream; the partial message is kept as aborted", async () => {
    const full = "This answer streams slowly, two characters at a time, and is cut off by the abort.";
    const { agent, events, faux } = createHarness([{ text: full, chunkSize: 2, delayMs: 10 }]);
    agent.subscribe((e) => {
      if (e.type === "message_update" && e.assistantEvent.type === "text_delta") agent.abort();
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(result.stopReason).toBe("aborted");
    const last = result.messages.at(-1);
    expect(last).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect(JSON.stringify(last)).not.toContain(full);
    expect(events.some((e) => e.type === "message_end" && e.message === last)).toBe(true);
    expect(faux.requests).toHaveLength(1);
  });

  it("through an external signal works like abort()", async () => {
    const controller = new AbortController();
    const { agent } = createHarness([{ text: "a slow answer", chunkSize: 1, delayMs: 10 }]);
    agent.subscribe((e) => {
      if (e.type === "message_update") controller.abort();
    });
    const result = (await agent.prompt("go", { signal: controller.signal }))._unsafeUnwrap();
    expect(result.stopReason).toBe("aborted");
  });

  it("before the first request sends nothing and returns the prompt unsent", async () => {
    const { agent, faux } = createHarness([{ text: "never" }]);
    agent.subscribe((e) => {
      if (e.type === "agent_start") agent.abort();
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(result).toMatchObject({ stopReason: "aborted", turns: 0, messages: [] });
    expect(result.unsent).toMatchObject([{ role: "user", content: "go" }]);
    expect(faux.requests).toHaveLength(0);
  });

  it("does not wait forever for a tool that ignores its signal", async () => {
    const stubborn = defineTool("stubborn", Empty, (_args, { onUpdate }) => {
      onUpdate({ content: [{ type: "text", text: "started" }] });
      return new Promise(() => {});
    });
    const { agent } = createHarness([{ toolCalls: [{ name: "stubborn", arguments: {} }] }], {
      tools: [stubborn],
      toolAbortGraceMs: 30,
    });
    agent.subscribe((e) => {
      if (e.type === "tool_execution_update") agent.abort();
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(result.stopReason).toBe("aborted");
    const [aborted] = toolResults(result.messages);
    expect(text(aborted!)).toBe("Aborted: stubborn did not stop within 30 ms after the run was aborted.");
  });
});

describe("abort while beforeToolCall waits", () => {
  it("does not wait for the decision; the call is reported as not run", async () => {
    const ran: string[] = [];
    const tool = echoTool("echo", {
      execute: async (args) => {
        ran.push(args.value);
        return { content: [{ type: "text", text: "ran" }] };
      },
    });
    const { agent } = createHarness([{ toolCalls: [{ name: "echo", arguments: { value: "x" } }] }], {
      tools: [tool],
      // An approval prompt nobody answers.
      beforeToolCall: () => new Promise(() => {}),
    });
    agent.subscribe((e) => {
      if (e.type === "message_end" && e.message.role === "assistant") setImmediate(() => agent.abort());
    });
    const result = (await agent.prompt("go"))._unsafeUnwrap();
    expect(result.stopReason).toBe("aborted");
    expect(ran).toEqual([]);
    expect(text(toolResults(result.messages)[0]!)).toBe(
      "Not run: the run was aborted before this tool call started.",
    );
  });
});
