// keel config get | set | unset | list through the built bin: settings by dotted key in the user's
// file and a trusted project's, comments kept, bad keys and values refused with the file left
// alone, an untrusted project's file neither read nor written, and keel then running on them.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MODEL, mockSuite, runKeel } from "./helpers.js";

const { fresh } = mockSuite();

describe("keel config", () => {
  it("sets, gets, lists and unsets user settings, keeping the file's comments", async () => {
    const { ws } = fresh([]);
    const file = join(ws.home, "config.json");
    writeFileSync(file, '{\n  // mine\n  "stream": { "maxRetries": 6, },\n}\n');
    const keel = (...args: string[]) => runKeel(["config", ...args], { ws, cwd: ws.repo });

    const set = await keel("set", "stream.maxRetries", "2");
    expect(set).toMatchObject({ code: 0, stdout: "" });
    expect(set.stderr).toBe(`keel config: stream.maxRetries set in ${file}\n`);
    expect(await keel("set", "permissions.allow", '["Bash(npm test:*)"]')).toMatchObject({ code: 0 });
    expect(await keel("set", "model", "anthropic/claude-sonnet-4-6")).toMatchObject({ code: 0 });
    expect(readFileSync(file, "utf8")).toContain("// mine");

    expect(await keel("get", "stream.maxRetries")).toMatchObject({ code: 0, stdout: "2\n" });
    expect(await keel("get", "model")).toMatchObject({ code: 0, stdout: "anthropic/claude-sonnet-4-6\n" });
    expect(await keel("get", "permissions.allow", "--user")).toMatchObject({
      code: 0,
      stdout: '["Bash(npm test:*)"]\n',
    });
    const list = await keel("list");
    expect(list.code).toBe(0);
    expect(list.stdout).toBe(
      `user: ${file}\n  stream.maxRetries = 2\n  permissions.allow = ["Bash(npm test:*)"]\n  model = "anthropic/claude-sonnet-4-6"\n` +
        `(the project ${ws.repo} is not trusted: its settings are not read)\n`,
    );
    expect(JSON.parse((await keel("list", "--json")).stdout)).toEqual({
      user: {
        "stream.maxRetries": 2,
        "permissions.allow": ["Bash(npm test:*)"],
        model: "anthropic/claude-sonnet-4-6",
      },
    });

    expect(await keel("unset", "permissions.allow")).toMatchObject({ code: 0 });
    const missing = await keel("get", "permissions.allow");
    expect(missing).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "keel config: permissions.allow is not set.\n",
    });
    expect(readFileSync(file, "utf8")).toContain("// mine");
  });

  it("refuses an unknown key, a value the file would be refused for, and bad usage; the file stays", async () => {
    const { ws } = fresh([]);
    const file = join(ws.home, "config.json");
    const before = '{\n  // mine\n  "model": "anthropic/claude-sonnet-4-6"\n}\n';
    writeFileSync(file, before);
    const keel = (...args: string[]) => runKeel(["config", ...args], { ws, cwd: ws.repo });
    expect(await keel("set", "strem.maxRetries", "2")).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /^keel config: unknown key "strem"; did you mean stream\? Known keys: model, /,
      ),
    });
    expect(await keel("set", "stream.maxRetries", "many")).toMatchObject({
      code: 2,
      stderr: `keel config: ${file}: /stream/maxRetries must be an integer\n`,
    });
    expect(await keel("set", "permissions.mode", "yolo")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('/permissions/mode must be one of "default", "acceptEdits"'),
    });
    expect(await keel("set", "model")).toMatchObject({
      code: 2,
      stderr: "keel config: usage: keel config set <key> <value> [--project]\n",
    });
    expect(await keel("frobnicate")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown action "frobnicate"'),
    });
    expect(await keel("get", "model", "--user", "--project")).toMatchObject({ code: 2 });
    expect(readFileSync(file, "utf8")).toBe(before);
    expect((await keel("--help")).stdout).toContain("keel config set <key> <value>");
  });

  it("a broken config file is named with its line, and left alone", async () => {
    const { ws } = fresh([]);
    const file = join(ws.home, "config.json");
    const broken = '{\n  // mine\n  "stream": { "maxRetries": 6 }\n  "model": "a/b"\n}\n';
    writeFileSync(file, broken);
    const r = await runKeel(["config", "set", "agents.maxConcurrent", "2"], { ws, cwd: ws.repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^keel config: ${file}:4:3: invalid JSON \\(CommaExpected`));
    expect(readFileSync(file, "utf8")).toBe(broken);
  });

  it("the project scope needs a trusted project; then keel runs with its settings", async () => {
    const { server, ws } = fresh([
      { toolCalls: [{ name: "Bash", arguments: { command: "git push origin main" } }] },
      { text: "ok" },
    ]);
    const projectFile = join(ws.repo, ".keel", "config.json");
    const keel = (...args: string[]) => runKeel(["config", ...args], { ws, cwd: ws.repo });
    const refused = await keel("set", "permissions.deny", '["Bash(git push:*)"]', "--project");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`the project ${ws.repo} is not trusted`);
    expect(existsSync(projectFile)).toBe(false);

    const trust = await runKeel(["-p", "/trust yes", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    expect(trust.code).toBe(0);
    expect(await keel("set", "permissions.deny", '["Bash(git push:*)"]', "--project")).toMatchObject({
      code: 0,
    });
    expect(JSON.parse(readFileSync(projectFile, "utf8"))).toEqual({
      permissions: { deny: ["Bash(git push:*)"] },
    });
    expect(await keel("set", "permissions.allow", '["Read"]')).toMatchObject({ code: 0 });
    // In effect here: the rule lists of both layers.
    expect(await keel("get", "permissions.deny")).toMatchObject({ stdout: '["Bash(git push:*)"]\n' });
    expect(await keel("get", "permissions.deny", "--user")).toMatchObject({ code: 1 });
    const list = await keel("list", "--project");
    expect(list.stdout).toBe(`project: ${projectFile}\n  permissions.deny = ["Bash(git push:*)"]\n`);
    // The project is still trusted as it is now, and its rule applies.
    const run = await runKeel(
      ["-p", "push it", "--model", MODEL, "--cwd", ws.repo, "--permission-mode", "bypassPermissions"],
      {
        server,
        ws,
      },
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^keel: denied Bash \(git push origin main\) by rule: .*Bash\(git push:\*\)/m);
  });
});
