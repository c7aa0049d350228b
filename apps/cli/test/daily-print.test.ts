// The daily-driver features outside the TUI, through the built bin: --thinking on three wire
// protocols (asserted at the mock server), `keel sessions`, --no-session naming no session, a
// Claude Code PreToolUse hook blocking a Bash call, and /cost and /init from print mode.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lines, MODEL, mockSuite, runKeel, type Workspace } from "./helpers.js";

const { fresh } = mockSuite({ text: "ok" });

/** Points a catalog provider at the mock server, the way a proxy is configured. */
function providerAt(ws: Workspace, providers: Record<string, unknown>): void {
  writeFileSync(join(ws.home, "config.json"), JSON.stringify({ providers }));
}

describe("--thinking", () => {
  it("Anthropic: adaptive thinking with the effort for high, no thinking fields for off", async () => {
    const { server, ws } = fresh([{ text: "thought" }, { text: "did not" }]);
    const high = await runKeel(["-p", "hi", "--model", MODEL, "--thinking", "high", "--cwd", ws.repo], {
      server,
      ws,
    });
    expect(high.code).toBe(0);
    expect(server.requests[0]!.body.thinking).toMatchObject({ type: "adaptive" });
    expect(server.requests[0]!.body.output_config).toEqual({ effort: "high" });
    const off = await runKeel(["-p", "hi", "--model", MODEL, "--thinking", "off", "--cwd", ws.repo], {
      server,
      ws,
    });
    expect(off.code).toBe(0);
    expect(server.requests[1]!.body).not.toHaveProperty("thinking");
    expect(server.requests[1]!.body).not.toHaveProperty("output_config");
  });

  it("OpenAI Responses: reasoning.effort high, and the API's own off (effort none) for off", async () => {
    const { server, ws } = fresh([{ text: "thought" }, { text: "did not" }]);
    const env = { OPENAI_BASE_URL: server.openaiBaseUrl, OPENAI_API_KEY: "test" };
    const model = "openai/gpt-6.1-terra";
    const high = await runKeel(["-p", "hi", "--model", model, "--thinking", "high", "--cwd", ws.repo], {
      server,
      ws,
      env,
    });
    expect(high.code).toBe(0);
    expect(server.requests[0]!.api).toBe("openai-responses");
    expect(server.requests[0]!.body.reasoning).toMatchObject({ effort: "high" });
    await runKeel(["-p", "hi", "--model", model, "--thinking", "off", "--cwd", ws.repo], { server, ws, env });
    expect(server.requests[1]!.body.reasoning).toMatchObject({ effort: "none" });
  });

  it("Chat Completions (DeepSeek): the thinking switch and reasoning_effort for high, the switch off for off", async () => {
    const { server, ws } = fresh([{ text: "thought" }, { text: "did not" }]);
    providerAt(ws, { deepseek: { baseUrl: server.openaiBaseUrl } });
    const env = { DEEPSEEK_API_KEY: "test" };
    const model = "deepseek/deepseek-v4-pro";
    const high = await runKeel(["-p", "hi", "--model", model, "--thinking", "high", "--cwd", ws.repo], {
      server,
      ws,
      env,
    });
    expect(high.code).toBe(0);
    expect(server.requests[0]!.api).toBe("openai-completions");
    expect(server.requests[0]!.body).toMatchObject({
      thinking: { type: "enabled" },
      reasoning_effort: "high",
    });
    await runKeel(["-p", "hi", "--model", model, "--thinking", "off", "--cwd", ws.repo], { server, ws, env });
    expect(server.requests[1]!.body.thinking).toEqual({ type: "disabled" });
    expect(server.requests[1]!.body).not.toHaveProperty("reasoning_effort");
  });

  it("refuses a level it does not know, sending nothing", async () => {
    const { server, ws } = fresh([]);
    const r = await runKeel(["-p", "hi", "--model", MODEL, "--thinking", "hard"], { server, ws });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--thinking must be one of off, minimal, low, medium, high, xhigh, max");
    expect(server.requests).toHaveLength(0);
  });
});

describe("sessions", () => {
  it("--no-session reports no session id (there is none to resume)", async () => {
    const { server, ws } = fresh([]);
    const json = await runKeel(["-p", "hi", "--no-session", "--output-format", "json", "--model", MODEL], {
      server,
      ws,
    });
    expect(JSON.parse(json.stdout).sessionId).toBeNull();
    const stream = await runKeel(
      ["-p", "hi", "--no-session", "--output-format", "stream-json", "--model", MODEL],
      {
        server,
        ws,
      },
    );
    const all = lines(stream.stdout);
    expect(all[0]).toMatchObject({ type: "init", sessionId: null });
    expect(all.at(-1)).toMatchObject({ type: "result", sessionId: null });
  });

  it("keel sessions lists this directory's sessions with messages, cost and forks, as text and JSON", async () => {
    const { server, ws } = fresh([]);
    const empty = await runKeel(["sessions", "--cwd", ws.repo], { ws });
    expect(empty.stdout).toBe(`No sessions in ${ws.repo} yet.\n`);
    const first = await runKeel(
      ["-p", "first question", "--output-format", "json", "--model", MODEL, "--cwd", ws.repo],
      {
        server,
        ws,
      },
    );
    const id = JSON.parse(first.stdout).sessionId as string;
    await runKeel(["-p", "-c", "--fork", "the fork's question", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
    });
    const text = await runKeel(["sessions", "--cwd", ws.repo], { ws });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`2 sessions in ${ws.repo}:`);
    expect(text.stdout).toMatch(
      new RegExp(
        `${id.slice(0, 8)}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +2 msgs +\\$\\d\\.\\d{4}  first question`,
      ),
    );
    expect(text.stdout).toMatch(
      new RegExp(`4 msgs +\\$\\d\\.\\d{4}  ↳ fork of ${id.slice(0, 8)}: first question`),
    );
    const json = await runKeel(["sessions", "--json", "--cwd", ws.repo], { ws });
    const listed = JSON.parse(json.stdout) as {
      type: string;
      sessions: { id: string; parentSessionId: string | null }[];
    };
    expect(listed.type).toBe("sessions");
    expect(listed.sessions.map((s) => s.parentSessionId)).toEqual([id, null]);
  });
});

describe("commands and hooks from print mode", () => {
  it("a Claude Code PreToolUse hook (JSON on stdin, exit 2) blocks a Bash call, its stderr the reason", async () => {
    const { server, ws } = fresh([
      { toolCalls: [{ name: "Bash", arguments: { command: "rm -rf build" } }] },
      { text: "I left build alone." },
    ]);
    const hook = join(ws.home, "no-rm.mjs");
    writeFileSync(
      hook,
      `import { readFileSync } from "node:fs";
const event = JSON.parse(readFileSync(0, "utf8"));
if (event.hook_event_name === "PreToolUse" && /\\brm\\b/.test(event.tool_input.command)) {
  process.stderr.write("Blocked: rm is not allowed; ask the user first.");
  process.exit(2);
}`,
    );
    writeFileSync(
      join(ws.home, "config.json"),
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `node '${hook}'` }] }] },
      }),
    );
    const r = await runKeel(
      ["-p", "clean up", "--permission-mode", "bypassPermissions", "--model", MODEL, "--cwd", ws.repo],
      { server, ws },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("I left build alone.\n");
    expect(server.requests[1]!.raw).toContain("Blocked: rm is not allowed; ask the user first.");
  });

  it("starts with one warning, and the close match, for a hook event nobody knows", async () => {
    const { server, ws } = fresh([{ text: "hello" }]);
    writeFileSync(
      join(ws.home, "config.json"),
      JSON.stringify({ hooks: { PreTooluse: [{ command: "true" }] } }),
    );
    const r = await runKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("hello\n");
    expect(r.stderr.split("\n").filter((l) => l.startsWith("keel: warning:"))).toEqual([
      expect.stringContaining(
        "hooks.PreTooluse is not a hook event of Keel or Claude Code (did you mean PreToolUse?)",
      ),
    ]);
  });

  it("/permissions adds a rule to the file asked for, lists it with that file, and removes it", async () => {
    const { server, ws } = fresh([]);
    const run = (command: string) =>
      runKeel(["-p", command, "--model", MODEL, "--cwd", ws.repo], { server, ws });
    const added = await run("/permissions allow Bash(npm test:*) --user");
    expect(added.stdout).toBe(`Added allow Bash(npm test:*) to ${join(ws.home, "config.json")}.\n`);
    const listed = await run("/permissions");
    expect(listed.stdout).toContain("Mode: default");
    expect(listed.stdout).toContain(`  Bash(npm test:*)  — ${join(ws.home, "config.json")}`);
    const removed = await run("/permissions remove allow Bash(npm test:*)");
    expect(removed.stdout).toContain("Removed allow Bash(npm test:*)");
    expect((await run("/permissions")).stdout).not.toContain("npm test");
    expect(server.requests).toHaveLength(0);
  });

  it("/cost gives the session's totals; /init asks the model to write AGENTS.md", async () => {
    const { server, ws } = fresh([
      { text: "one", usage: { input: 2000, output: 100 } },
      { text: "Wrote AGENTS.md." },
    ]);
    await runKeel(["-p", "hello", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    const cost = await runKeel(["-p", "-c", "/cost", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    expect(cost.stdout).toMatch(/^This session: \$\d+\.\d{4} · 2,000 in · 100 out\n$/);
    const init = await runKeel(["-p", "/init", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    expect(init.stdout).toBe("Wrote AGENTS.md.\n");
    expect(server.requests.at(-1)!.raw).toContain("write an AGENTS.md file at its root");
  });
});
