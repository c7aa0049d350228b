// Print mode end to end: the built bin against the mock server, in text, json and stream-json.
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lines, MODEL, mockSuite, runKeel } from "./helpers.js";

const { fresh } = mockSuite();

describe("keel -p", () => {
  it("text: prints the final assistant text only", async () => {
    const { server, ws } = fresh([{ text: "Hello from the mock." }]);
    const r = await runKeel(["-p", "say hello", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Hello from the mock.\n");
    const body = server.requests[0]!.body as { model: string; messages: { content: unknown }[] };
    expect(body.model).toBe("claude-sonnet-4-6");
    expect(JSON.stringify(body.messages[0]!.content)).toContain("say hello");
  });

  it("runs a slash command instead of a prompt: /trust yes trusts the project, nothing is sent", async () => {
    const { server, ws } = fresh([]);
    const r = await runKeel(["-p", "/trust yes", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Trusted");
    expect(server.requests).toHaveLength(0);
    const trust = JSON.parse(readFileSync(join(ws.home, "trust.json"), "utf8")) as {
      projects: Record<string, unknown>;
    };
    expect(Object.keys(trust.projects)).toEqual([realpathSync(ws.repo)]);
  });

  it("reads the prompt from stdin when none is given", async () => {
    const { server, ws } = fresh([{ text: "got it" }]);
    const r = await runKeel(["-p", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
      input: "from stdin\n",
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("got it\n");
    expect(server.requests[0]!.raw).toContain("from stdin");
  });

  it("json: one result object with text, usage, cost, stop reason, turns and session id", async () => {
    const { server, ws } = fresh([{ text: "four", usage: { input: 100, output: 10 } }]);
    const r = await runKeel(["-p", "2+2?", "--output-format", "json", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
    });
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out).toHaveLength(1);
    const result = out[0]!;
    expect(result).toMatchObject({
      type: "result",
      text: "four",
      stopReason: "stop",
      turns: 1,
      usage: { input: 100, output: 10 },
    });
    expect(result.cost).toBeGreaterThan(0);
    expect(result.cost).toBe((result.usage as { cost: { total: number } }).cost.total);
    expect(result.sessionId).toMatch(/\S{8,}/);
    expect(typeof result.durationMs).toBe("number");
    expect(result.error).toBeUndefined();
  });

  it("stream-json: init, message and tool events, then the result; diagnostics stay on stderr", async () => {
    const { server, ws } = fresh([
      { toolCalls: [{ id: "toolu_ls1", name: "LS", arguments: { path: "." } }] },
      { text: "The repo is empty." },
    ]);
    const r = await runKeel(
      ["-p", "list files", "--output-format", "stream-json", "--model", MODEL, "--cwd", ws.repo],
      { server, ws },
    );
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    const init = out[0]!;
    expect(init).toMatchObject({ type: "init", model: MODEL, cwd: ws.repo });
    expect(init.tools).toEqual(
      expect.arrayContaining(["Read", "Write", "Edit", "Bash", "LS", "UpdateTodos"]),
    );
    const types = out.map((l) => l.type);
    expect(types.at(-1)).toBe("result");
    expect(types.indexOf("tool_start")).toBeLessThan(types.indexOf("tool_end"));
    expect(out.find((l) => l.type === "tool_start")).toMatchObject({
      toolCallId: "toolu_ls1",
      toolName: "LS",
    });
    expect(out.find((l) => l.type === "tool_end")).toMatchObject({ toolCallId: "toolu_ls1", isError: false });
    const assistantTexts = out
      .filter((l) => l.type === "message")
      .map((l) => l.message as { role: string; content: unknown })
      .filter((m) => m.role === "assistant");
    expect(assistantTexts).toHaveLength(2);
    expect(out.at(-1)).toMatchObject({
      type: "result",
      text: "The repo is empty.",
      turns: 2,
      sessionId: init.sessionId,
    });
    // Every stdout line parsed as JSON above; stderr lines are keel's own, one per diagnostic.
    for (const line of r.stderr.split("\n").filter(Boolean)) expect(line).toMatch(/^keel: /);
  });

  it("headless: a tool that needs approval is denied with a reason the model sees", async () => {
    const { server, ws } = fresh([
      { toolCalls: [{ id: "toolu_w1", name: "Write", arguments: { path: "a.txt", content: "x" } }] },
      { text: "Could not write." },
    ]);
    const r = await runKeel(
      ["-p", "write a.txt", "--output-format", "json", "--model", MODEL, "--cwd", ws.repo],
      {
        server,
        ws,
      },
    );
    expect(r.code).toBe(0);
    const second = JSON.stringify(server.requests[1]!.body);
    expect(second).toContain("toolu_w1");
    expect(second).toMatch(/is_error":true/);
  });

  it("--no-extensions leaves the official tools out", async () => {
    const { server, ws } = fresh([{ text: "ok" }]);
    const r = await runKeel(
      ["-p", "hi", "--no-extensions", "--output-format", "stream-json", "--model", MODEL, "--cwd", ws.repo],
      { server, ws },
    );
    expect(r.code).toBe(0);
    const tools = (server.requests[0]!.body.tools as { name: string }[]).map((t) => t.name);
    expect(tools).toContain("Read");
    expect(tools).not.toContain("UpdateTodos");
  });
});

describe("keel -p on Claude Sonnet 5.5", () => {
  it("stream-json carries the notes written between tool calls, which arrive as thinking blocks", async () => {
    const { server, ws } = fresh([
      {
        thinking: "Plan: list it.",
        text: "Let me list the folder first.",
        toolCalls: [{ name: "LS", arguments: {} }],
      },
      { text: "Listed." },
    ]);
    const r = await runKeel(
      [
        "-p",
        "list",
        "--output-format",
        "stream-json",
        "--model",
        "anthropic/claude-sonnet-5-5",
        "--cwd",
        ws.repo,
      ],
      { server, ws },
    );
    expect(r.code).toBe(0);
    const assistant = lines(r.stdout).find(
      (l) => l.type === "message" && (l.message as { role: string }).role === "assistant",
    ) as { message: { content: { type: string; thinking?: string }[] } } | undefined;
    expect(
      assistant?.message.content.map((c) => (c.type === "thinking" ? `thinking:${c.thinking}` : c.type)),
    ).toEqual(["thinking:Plan: list it.", "thinking:Let me list the folder first.", "toolCall"]);
    // Nothing forces a tool, no sampling parameter goes out, and the second request was accepted.
    for (const request of server.requests) {
      expect(request.body).not.toHaveProperty("tool_choice");
      expect(request.body).not.toHaveProperty("temperature");
    }
    expect(lines(r.stdout).at(-1)).toMatchObject({ type: "result", text: "Listed.", stopReason: "stop" });
  });
});
