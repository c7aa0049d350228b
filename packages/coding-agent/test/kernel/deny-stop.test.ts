// A denial that asks to stop: the call's result carries the user's words and tells the model to
// wait, the rest of the batch does not run, the run ends after the batch (no further request),
// and the next prompt's request carries the reason. Without stopRun the run goes on as before.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ApprovalAnswer, createCodingAgent, type ToolApprovalRequest } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

async function agentAnswering(answer: ApprovalAnswer, f: ReturnType<typeof faux>) {
  const asked: ToolApprovalRequest[] = [];
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    ui: {
      approve: async (request) => {
        asked.push(request);
        return answer;
      },
    },
  });
  if (created.isErr()) throw new Error(created.error.message);
  return { agent: created.value, asked };
}

describe("deny and stop", () => {
  it("ends the run after the batch, skips the batch's later calls, and the reason reaches the model next", async () => {
    box = sandbox();
    const f = faux({
      turns: [
        {
          toolCalls: [
            { name: "Write", arguments: { path: "a.txt", content: "a" } },
            { name: "Write", arguments: { path: "b.txt", content: "b" } },
          ],
        },
        { text: "should never be asked for" },
      ],
      fallback: { text: "Understood, using the other folder." },
    });
    const { agent, asked } = await agentAnswering(
      { decision: "deny", reason: "write into out/ instead", stopRun: true },
      f,
    );
    const run = (await agent.prompt("write two files"))._unsafeUnwrap();
    expect(run.stopReason).toBe("aborted");
    expect(run.stoppedBy).toBe("denial");
    // One request only: the run stopped instead of asking the model again.
    expect(f.requests).toHaveLength(1);
    // The second call of the batch was not even asked about.
    expect(asked).toHaveLength(1);
    expect(existsSync(join(box.workspace, "a.txt"))).toBe(false);
    expect(existsSync(join(box.workspace, "b.txt"))).toBe(false);
    const results = agent.messages().filter((m) => m.role === "toolResult");
    expect(results).toHaveLength(2);
    const first = JSON.stringify(results[0]);
    expect(first).toContain("the user denied Write and said: write into out/ instead");
    expect(first).toContain("wait for their next message");
    expect(JSON.stringify(results[1])).toContain("stopped the run");

    const next = (await agent.prompt("ok, go on"))._unsafeUnwrap();
    expect(next.stopReason).toBe("stop");
    expect(next.stoppedBy).toBeUndefined();
    expect(f.requests[1]!.raw).toContain("write into out/ instead");
    await agent.close();
  });

  it("a plain denial without stopRun lets the model go on in the same run", async () => {
    box = sandbox();
    const f = faux({
      turns: [
        { toolCalls: [{ name: "Write", arguments: { path: "a.txt", content: "a" } }] },
        { text: "Fine." },
      ],
    });
    const { agent } = await agentAnswering({ decision: "deny", reason: "not now" }, f);
    const run = (await agent.prompt("write"))._unsafeUnwrap();
    expect(run.stopReason).toBe("stop");
    expect(run.text).toBe("Fine.");
    expect(f.requests).toHaveLength(2);
    expect(f.requests[1]!.raw).toContain("the user denied Write and said: not now");
    expect(f.requests[1]!.raw).not.toContain("wait for their next message");
    await agent.close();
  });

  it("shows the diff an Edit would make, with its path, and a Bash call's whole command", async () => {
    box = sandbox();
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(box.workspace, "x.ts"), "const a = 1;\nconst b = 2;\n");
    const f = faux({
      turns: [
        { toolCalls: [{ name: "Read", arguments: { path: "x.ts" } }] },
        {
          toolCalls: [
            {
              name: "Edit",
              arguments: { path: "x.ts", old_string: "const b = 2;", new_string: "const b = 3;" },
            },
          ],
        },
        { toolCalls: [{ name: "Bash", arguments: { command: "npm test -- --watch=false && echo done" } }] },
        { text: "ok" },
      ],
    });
    const { agent, asked } = await agentAnswering({ decision: "deny" }, f);
    await agent.prompt("change b");
    const edit = asked.find((r) => r.toolName === "Edit")!;
    expect(edit.preview).toMatchObject({ format: "diff", path: "x.ts" });
    expect(edit.preview!.text).toContain("-const b = 2;");
    expect(edit.preview!.text).toContain("+const b = 3;");
    const bash = asked.find((r) => r.toolName === "Bash")!;
    expect(bash.preview).toEqual({ format: "command", text: "npm test -- --watch=false && echo done" });
    await agent.close();
  });
});
