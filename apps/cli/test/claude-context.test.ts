// A Claude Code project's memory, rules and agents in Keel, through the built bin against the mock
// model server: the fixture in fixtures/claude-context (written after Claude Code's memory,
// rules and subagent documentation) loads after trust with CLAUDE.md and AGENTS.md both, their
// imports (a cycle, one from ~/.claude, one outside the project left out), rules (a path-scoped one
// appended once its file is read) and a subfolder agent with Claude Code's lenient front matter.
// Then a `claude -p` script with --settings, --mcp-config and --strict-mcp-config runs unchanged.
// HOME is the test's own (helpers.ts), so the real ~/.claude is never read.
import { spawn } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { toolResults } from "@keel/coding-agent/testing";
import { describe, expect, it } from "vitest";
import { BIN, childEnv, lines, MODEL, mockSuite, runKeel, type Workspace } from "./helpers.js";

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "claude-context");
const MARKER_SERVER = fileURLToPath(new URL("./mcp-fixtures/marker-server.mjs", import.meta.url));
const { fresh } = mockSuite({ text: "fallback" });

const warnings = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("keel: warning:"));

/** The fixture copied into the test's repository, with the user's own ~/.claude and a file outside. */
function project(ws: Workspace): void {
  cpSync(FIXTURE, ws.repo, { recursive: true });
  mkdirSync(join(ws.user, ".claude"), { recursive: true });
  writeFileSync(join(ws.user, ".claude", "CLAUDE.md"), "USER-CLAUDE: sign every log entry.\n");
  writeFileSync(
    join(ws.user, ".claude", "lighthouse-notes.md"),
    "USER-NOTES: the spare bulbs are in the loft.\n",
  );
  writeFileSync(join(ws.repo, "..", "harbour-notes.md"), "OUTSIDE-NOTES: must never reach the model.\n");
}

describe("a Claude Code project's memory, rules and agents", () => {
  it("reaches the model after trust: both memory files, imports, rules, the agent; nothing from outside", async () => {
    const { server, ws } = fresh([
      { toolCalls: [{ name: "Read", arguments: { path: "src/lamp.tsx" } }] },
      { text: "The lamp takes its colour from props." },
    ]);
    project(ws);
    const keel = (...args: string[]) =>
      runKeel([...args, "--model", MODEL, "--cwd", ws.repo], { server, ws, cwd: ws.repo });

    const preview = await keel("-p", "/trust");
    for (const file of ["AGENTS.md", "CLAUDE.md", ".claude/rules/style.md", ".claude/rules/web/tsx.md"])
      expect(preview.stdout).toContain(file);
    expect(server.requests).toHaveLength(0);
    expect((await keel("-p", "/trust yes")).code).toBe(0);

    const run = await keel("-p", "what colour is the lamp?");
    expect(run.code).toBe(0);
    const system = JSON.stringify(server.requests[0]!.body.system);
    for (const text of [
      "USER-CLAUDE",
      "LIGHTHOUSE-AGENTS",
      "LIGHTHOUSE-CLAUDE",
      "KEEPER-LOG",
      "TIDE-TABLE",
      "USER-NOTES",
      "RULE-STYLE",
    ])
      expect(system).toContain(text);
    // Each once, the import cycle and the import AGENTS.md and CLAUDE.md share included.
    expect(system.split("KEEPER-LOG").length - 1).toBe(1);
    expect(system).not.toContain("OUTSIDE-NOTES");
    expect(system).not.toContain("NOT-IMPORTED");
    // The path-scoped rule: not in the prompt, appended once the matching file was read.
    expect(system).not.toContain("RULE-TSX");
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain("RULE-TSX");
    expect(toolResults(server.requests[1])[0]!.isError).toBe(false);
    // The subfolder agent with its unquoted `Examples: user: "…"` is offered to the model.
    expect(JSON.stringify(server.requests[0]!.body)).toContain("harbour-reviewer");
    expect(run.stderr).not.toContain("agent definition");
    expect(run.stderr.split("harbour-notes.md").length - 1).toBe(1);
    expect(warnings(run.stderr)).toEqual([]);
  });

  it("runs a claude -p script unchanged: --settings, --mcp-config with --strict-mcp-config, stream-json input", async () => {
    const { server, ws } = fresh([
      { toolCalls: [{ name: "Bash", arguments: { command: "node scripts/lamp.mjs" } }] },
      { toolCalls: [{ name: "ExecuteTool", arguments: { toolRef: "mcp__lamp__hello", arguments: {} } }] },
      { text: "The lamp is lit." },
    ]);
    project(ws);
    const markers = {
      flag: join(ws.home, "flag-server-started"),
      project: join(ws.home, "project-server-started"),
    };
    const entry = (marker: string) => ({
      command: process.execPath,
      args: [MARKER_SERVER],
      env: { MARKER: marker },
    });
    writeFileSync(
      join(ws.repo, "run.mcp.json"),
      JSON.stringify({ mcpServers: { lamp: entry(markers.flag) } }),
    );
    writeFileSync(
      join(ws.repo, ".mcp.json"),
      JSON.stringify({ mcpServers: { harbour: entry(markers.project) } }),
    );
    expect((await runKeel(["-p", "/trust yes", "--cwd", ws.repo], { server, ws, cwd: ws.repo })).code).toBe(
      0,
    );

    const bin = join(ws.home, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "claude"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, "claude"), 0o755);
    const env = childEnv({ server, ws, env: { PATH: `${bin}:${process.env.PATH}` } });
    // Async: the mock server answers on this process's event loop.
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn("sh", [join(ws.repo, "claude-run.sh"), "--model", MODEL], { cwd: ws.repo, env });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
    expect(run.code).toBe(0);
    const result = lines(run.stdout).find((l) => l.type === "result") as { text: string };
    expect(result.text).toBe("The lamp is lit.");
    // --settings: its allow rule let the command run, its env reached it, over .claude/settings.json's.
    expect(readFileSync(join(ws.repo, "lamp.txt"), "utf8")).toBe("white flashing\n");
    // --strict-mcp-config: the flag's server ran and answered, the project's .mcp.json one never started.
    expect(existsSync(markers.flag)).toBe(true);
    expect(existsSync(markers.project)).toBe(false);
    const mcp = toolResults(server.requests[2]);
    expect(mcp.at(-1)!.isError).toBe(false);
    expect(JSON.stringify(server.requests[2]!.body)).not.toContain("mcp__harbour");
  });
});
