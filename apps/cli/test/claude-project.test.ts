// A project set up for Claude Code works in Keel as it is: the fixture in fixtures/claude-project
// (written after Claude Code's documentation) loads after trust, its hooks fire with Claude Code's
// protocol, its env reaches commands, its permission rules are judged and CLAUDE.md is read; a
// script written for `claude -p` runs unchanged; a hook event Keel does not run is one warning.

import { spawn } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BIN, lines, MODEL, mockSuite, runKeel } from "./helpers.js";

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "claude-project");
const { fresh } = mockSuite({ text: "fallback" });

const hookLog = (repo: string) =>
  existsSync(join(repo, "hook.log"))
    ? readFileSync(join(repo, "hook.log"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { event: string; tool?: string; team?: string })
    : [];

const warnings = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("keel: warning:"));

describe("a Claude Code project", () => {
  it("loads after trust: hooks fire, env reaches commands, rules are judged, CLAUDE.md is read", async () => {
    const { server, ws } = fresh([
      { toolCalls: [{ name: "Bash", arguments: { command: "node scripts/team.mjs" } }] },
      { toolCalls: [{ name: "Bash", arguments: { command: "rm -rf scripts" } }] },
      { text: "Done, says the harbour master." },
    ]);
    cpSync(FIXTURE, ws.repo, { recursive: true });
    const keel = (...args: string[]) =>
      runKeel([...args, "--model", MODEL, "--cwd", ws.repo], { server, ws, cwd: ws.repo });

    // Untrusted: nothing of .claude/ is read or run, and Keel says so.
    const before = await keel("-p", "/trust");
    expect(before.code).toBe(0);
    expect(before.stdout).toContain(
      'SessionStart: node "$CLAUDE_PROJECT_DIR/.claude/hooks/log.mjs" (.claude/settings.json)',
    );
    expect(before.stdout).toContain("PreToolUse [Bash]: node");
    expect(before.stdout).toContain("FIXTURE_TEAM=harbour (.claude/settings.json)");
    expect(before.stdout).toContain("allow Bash(node scripts/team.mjs) (.claude/settings.json)");
    expect(before.stdout).toContain("ask Bash(git push:*) (.claude/settings.local.json)");
    expect(hookLog(ws.repo)).toEqual([]);
    expect((await keel("-p", "/trust yes")).code).toBe(0);

    const run = await keel("-p", "set the team", "--output-format", "stream-json");
    expect(run.code).toBe(0);
    // The one warning: the event Keel does not produce (its prompt hook is not named twice).
    expect(warnings(run.stderr)).toEqual([
      expect.stringContaining("hooks SubagentStop: Claude Code event Keel does not produce"),
    ]);
    expect(run.stderr).toContain("keel: denied Bash (rm -rf scripts) by rule");
    expect(readFileSync(join(ws.repo, "team.txt"), "utf8")).toBe("harbour\n");
    expect(existsSync(join(ws.repo, "scripts"))).toBe(true);
    const result = lines(run.stdout).find((l) => l.type === "result") as {
      permissionDenials: { input: string }[];
    };
    expect(result.permissionDenials.map((d) => d.input)).toEqual(["rm -rf scripts"]);
    expect(JSON.stringify(server.requests[0]!.body)).toContain(
      "Always answer in the voice of the harbour master.",
    );
    expect(hookLog(ws.repo).map((e) => [e.event, e.tool ?? "", e.team])).toEqual([
      ["SessionStart", "", "harbour"],
      ["UserPromptSubmit", "", "harbour"],
      ["PreToolUse", "Bash", "harbour"],
      ["PostToolUse", "Bash", "harbour"],
      // As in Claude Code, PreToolUse hears the call before the permission rules deny it.
      ["PreToolUse", "Bash", "harbour"],
      ["Stop", "", "harbour"],
      ["SessionEnd", "", "harbour"],
    ]);

    // Where each value comes from; Keel's own config wins.
    // Keel's own write keeps the project trusted.
    expect(
      await runKeel(["config", "set", "env.FIXTURE_TEAM", "keel", "--project"], { ws, cwd: ws.repo }),
    ).toMatchObject({ code: 0 });
    const list = await runKeel(["config", "list"], { ws, cwd: ws.repo });
    expect(list.stdout).toContain(`Claude Code, project: ${join(ws.repo, ".claude", "settings.json")}`);
    expect(list.stdout).toContain(
      `  env.FIXTURE_TEAM = "harbour"  (overridden by ${join(ws.repo, ".keel", "config.json")})`,
    );
    expect(list.stdout).toContain("  (not used by Keel: model, statusLine)");
  });

  it("a script written for claude -p runs unchanged with keel standing for claude", async () => {
    const { server, ws } = fresh([
      { toolCalls: [{ name: "Bash", arguments: { command: "node scripts/team.mjs" } }] },
      { toolCalls: [{ name: "Bash", arguments: { command: "rm -rf scripts" } }] },
      { text: "Short." },
    ]);
    // Only the script and the command it is allowed to run: no settings, nothing trusted.
    mkdirSync(join(ws.repo, "scripts"));
    cpSync(join(FIXTURE, "scripts", "team.mjs"), join(ws.repo, "scripts", "team.mjs"));
    cpSync(join(FIXTURE, "claude-style.sh"), join(ws.repo, "claude-style.sh"));
    mkdirSync(join(ws.repo, "..", "shared"));
    const bin = join(ws.home, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "claude"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, "claude"), 0o755);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      // The test's own home: the real ~/.claude is never read.
      HOME: ws.user,
      KEEL_HOME: ws.home,
      NO_PROXY: "127.0.0.1,localhost",
      ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
      ANTHROPIC_API_KEY: "test",
      FIXTURE_TEAM: "script",
    };
    // Async: the mock server answers on this process's event loop.
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn("sh", [join(ws.repo, "claude-style.sh"), "--model", MODEL], { cwd: ws.repo, env });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
    expect(warnings(run.stderr)).toEqual([]);
    expect(run.code).toBe(0);
    expect(readFileSync(join(ws.repo, "team.txt"), "utf8")).toBe("script\n");
    expect(existsSync(join(ws.repo, "scripts"))).toBe(true);
    const out = lines(run.stdout);
    const result = out.find((l) => l.type === "result") as {
      text: string;
      permissionDenials: { input: string }[];
    };
    expect(result.text).toBe("Short.");
    expect(result.permissionDenials.map((d) => d.input)).toEqual(["rm -rf scripts"]);
    expect(JSON.stringify(server.requests[0]!.body)).toContain("Keep answers short.");
  });

  it("keel config set takes a Claude Code hook event, refuses a misspelt one, and keel starts", async () => {
    const { server, ws } = fresh([{ text: "ok" }]);
    const config = (...args: string[]) => runKeel(["config", ...args], { ws, cwd: ws.repo });
    const hook = JSON.stringify([{ hooks: [{ type: "command", command: "true" }] }]);

    const typo = await config("set", "hooks.PreTooluse", hook);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      '"PreTooluse" is not a hook event of Keel or Claude Code; did you mean PreToolUse?',
    );

    expect(await config("set", "hooks.Notification", hook)).toMatchObject({ code: 0 });
    const clean = await runKeel(["-p", "x", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    expect(clean.code).toBe(0);
    expect(warnings(clean.stderr)).toEqual([]);

    const inactive = await config("set", "hooks.TeammateIdle", hook);
    expect(inactive.code).toBe(0);
    expect(inactive.stderr).toContain("hooks TeammateIdle: Claude Code event Keel does not produce");
    const warned = await runKeel(["-p", "x", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    expect(warned.code).toBe(0);
    expect(warnings(warned.stderr)).toEqual([
      expect.stringContaining(
        "hooks TeammateIdle: Claude Code event Keel does not produce; its commands never run",
      ),
    ]);
  });
});
