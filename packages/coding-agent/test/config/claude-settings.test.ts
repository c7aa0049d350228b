// Claude Code's settings files read as config layers below Keel's own: permissions in Claude Code's
// rule syntax, hooks, env and extra folders translated; the rest named as ignored; nothing in them
// stops Keel from starting; the project's files only when trusted, ~/.claude unless opted out.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/index.js";

let root: string;
let userHome: string;
let keelHome: string;
let project: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "keel-claude-settings-")));
  userHome = join(root, "home");
  keelHome = join(userHome, ".keel");
  project = join(root, "project");
  for (const d of [
    keelHome,
    join(userHome, ".claude"),
    join(project, ".claude"),
    join(project, ".keel"),
    join(project, ".git"),
  ])
    mkdirSync(d, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string, value: unknown) =>
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
const load = (trusted = true) => loadConfig({ cwd: project, home: keelHome, trusted, userHome });

describe("Claude Code's settings files", () => {
  it("translates permissions, hooks, env and additional directories, Keel's own config winning", () => {
    write(join(userHome, ".claude", "settings.json"), {
      env: { FROM: "claude-user", SHARED: "claude-user" },
      permissions: { allow: ["Bash(git status)"] },
    });
    write(join(project, ".claude", "settings.json"), {
      $schema: "https://json.schemastore.org/claude-code-settings.json",
      model: "opus",
      statusLine: { type: "command", command: "echo hi" },
      permissions: {
        allow: ["Bash(npm run test:*)", "Edit(/src/**)"],
        deny: ["Read(./.env)", "Read(//etc/shadow)"],
        defaultMode: "acceptEdits",
        additionalDirectories: ["../docs"],
      },
      hooks: { PostToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command: "fmt" }] }] },
      env: { SHARED: "claude-project", COUNT: 3 },
    });
    write(join(project, ".claude", "settings.local.json"), { permissions: { ask: ["Bash(git push:*)"] } });
    write(join(keelHome, "config.json"), { env: { SHARED: "keel-user" } });
    write(join(project, ".keel", "config.json"), { permissions: { mode: "default" } });

    const loaded = load()._unsafeUnwrap();
    expect(loaded.config.env).toEqual({ FROM: "claude-user", SHARED: "keel-user", COUNT: "3" });
    expect(loaded.config.permissions?.mode).toBe("default");
    expect(loaded.config.additionalDirectories).toEqual(["../docs"]);
    expect(loaded.config.hooks?.PostToolUse).toHaveLength(1);
    expect(loaded.rules).toEqual([
      { rule: "Bash(git status)", behavior: "allow", source: "claudeUser" },
      { rule: "Bash(npm run test:*)", behavior: "allow", source: "claudeProject" },
      // Claude Code's `/path` is the project's; Keel's absolute form is `//path`.
      { rule: `Edit(/${project}/src/**)`, behavior: "allow", source: "claudeProject" },
      { rule: "Read(./.env)", behavior: "deny", source: "claudeProject" },
      { rule: "Read(//etc/shadow)", behavior: "deny", source: "claudeProject" },
      { rule: "Bash(git push:*)", behavior: "ask", source: "claudeProjectLocal" },
    ]);
    const source = loaded.sources.find((s) => s.layer === "claudeProject");
    expect(source).toMatchObject({ status: "loaded", ignored: ["model", "statusLine"] });
    expect(loaded.diagnostics).toEqual([]);
  });

  it("reads the project's files only when trusted, and ~/.claude unless Keel's config opts out", () => {
    write(join(project, ".claude", "settings.json"), { env: { P: "1" } });
    write(join(userHome, ".claude", "settings.json"), { env: { U: "1" } });
    expect(load(false)._unsafeUnwrap().config.env).toEqual({ U: "1" });
    write(join(keelHome, "config.json"), { claude: { userFiles: false } });
    const loaded = load(true)._unsafeUnwrap();
    expect(loaded.config.env).toEqual({ P: "1" });
    expect(loaded.sources.find((s) => s.layer === "claudeUser")?.status).toBe("opted_out");
  });

  it("takes --settings as a layer above every file, trusted or not, its rules named as the command line's", () => {
    write(join(project, ".keel", "config.local.json"), { env: { SHARED: "keel-local" } });
    write(join(project, ".claude", "settings.json"), { permissions: { defaultMode: "plan" } });
    const sessionSettings = {
      source: "--settings",
      value: {
        env: { SHARED: "flag" },
        permissions: { defaultMode: "acceptEdits", deny: ["Read(/secrets/**)"] },
        outputStyle: "terse",
      },
    };
    for (const trusted of [true, false]) {
      const loaded = loadConfig({ cwd: project, home: keelHome, trusted, userHome, sessionSettings });
      const { config, rules, sources } = loaded._unsafeUnwrap();
      expect(config.env?.SHARED).toBe("flag");
      expect(config.permissions?.mode).toBe("acceptEdits");
      // Claude Code's `/path` is the project's, as in its files.
      expect(rules).toContainEqual({ rule: `Read(/${project}/secrets/**)`, behavior: "deny", source: "cli" });
      expect(sources.at(-1)).toEqual({
        layer: "claudeSession",
        path: "--settings",
        status: "loaded",
        ignored: ["outputStyle"],
      });
    }
  });

  it("never refuses to start over them: broken JSON, odd shapes and unknown events are warnings", () => {
    write(join(project, ".claude", "settings.json"), {
      permissions: { allow: "Bash", defaultMode: "auto", disableBypassPermissionsMode: "disable" },
      hooks: {
        Notification: [{ hooks: [{ type: "command", command: "notify-send hi" }] }],
        TeammateIdle: [{ hooks: [{ type: "command", command: "true" }] }],
        SubagentStop: [{ hooks: [{ type: "command", command: "true" }] }],
        Stop: [{ hooks: [{ type: "prompt", prompt: "Is it done?" }] }],
        PreTooluse: [{ hooks: [{ type: "command", command: "true" }] }],
      },
      env: ["not", "an", "object"],
    });
    write(join(project, ".claude", "settings.local.json"), "{ broken");
    const loaded = load()._unsafeUnwrap();
    const messages = loaded.diagnostics.map((d) => d.message);
    expect(loaded.diagnostics.every((d) => d.level === "warning")).toBe(true);
    expect(messages).toEqual([
      expect.stringContaining("permissions.allow is not a list of rules"),
      expect.stringContaining('permissions.defaultMode "auto" is not a mode Keel has'),
      expect.stringContaining("permissions.disableBypassPermissionsMode: not used by Keel"),
      // Listed once, together.
      expect.stringContaining("hooks TeammateIdle, SubagentStop: Claude Code events Keel does not produce"),
      expect.stringMatching(/hooks\.PreTooluse is not a hook event .*did you mean PreToolUse\?/),
      expect.stringContaining('hooks.Stop: a "prompt" hook; Keel runs only "command" hooks'),
      expect.stringContaining("env has a shape Keel cannot use"),
      expect.stringMatching(/settings\.local\.json:1:3: invalid JSON.*\(not used\)/),
    ]);
    expect(Object.keys(loaded.config.hooks ?? {})).toContain("Notification");
  });
});
