// Trust that means what it says: editing content (context files, skill text, the scripts hooks
// call, extension code) never untrusts a folder; any change to what runs or widens automatically
// does, and says what changed. Keel's own writes keep trust; entries from before keep working.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is what a project writes in .mcp.json, not a template
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ok } from "neverthrow";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashProject } from "../../src/trust/hash.js";
import {
  approvalChanges,
  checkTrust,
  trustedApprovals,
  trustProject,
  writeKeepingTrust,
} from "../../src/trust/store.js";
import { changeLines, projectSurface } from "../../src/trust/surface.js";

let root: string;
let project: string;
let keelHome: string;

function write(rel: string, text: string): void {
  const path = join(project, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const json = (value: unknown) => JSON.stringify(value, null, 2);
const check = () => checkTrust(project, { home: keelHome })._unsafeUnwrap();
const lines = () => changeLines(check().changes ?? []);

const CONFIG = {
  model: "anthropic/claude-sonnet-4-5",
  env: { NODE_ENV: "test" },
  permissions: { mode: "default", allow: ["Bash(npm test:*)"], deny: ["Bash(rm:*)"] },
  hooks: { runEnd: [{ command: "node scripts/notify.mjs" }] },
  extensions: { mcp: { config: { servers: { local: { command: "node", args: ["srv.mjs"] } } } } },
};
const MCP = {
  mcpServers: {
    docs: { type: "http", url: "https://docs.example/mcp", headers: { "X-Team": "core" } },
    tool: { command: "npx", args: ["-y", "some-server"], env: { LEVEL: "1" } },
  },
};

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "keel-surface-")));
  project = join(root, "project");
  keelHome = join(root, "keel-home");
  mkdirSync(join(project, ".git"), { recursive: true });
  write(".keel/config.json", json(CONFIG));
  write(".mcp.json", json(MCP));
  write(".keel/extensions/notify.mjs", "export default () => {};\n");
  write("scripts/notify.mjs", "console.log('done');\n");
  write("AGENTS.md", "Be careful.\n");
  write(".agents/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Deploys.\n---\nSteps.\n");
  trustProject(project, { home: keelHome })._unsafeUnwrap();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("content is the project's to edit", () => {
  it.each([
    ["AGENTS.md", "AGENTS.md", "Rewritten by /init.\n"],
    ["a new CLAUDE.md", "CLAUDE.md", "More rules.\n"],
    ["a context file below the root", "sub/AGENTS.md", "Sub rules.\n"],
    [
      "a skill's text",
      ".agents/skills/deploy/SKILL.md",
      "---\nname: deploy\ndescription: Ships.\n---\nNew steps.\n",
    ],
    [
      "a new skill without allowed-tools",
      ".claude/skills/lint/SKILL.md",
      "---\nname: lint\ndescription: x\n---\n",
    ],
    ["the script a hook runs", "scripts/notify.mjs", "console.log('changed');\n"],
    ["an extension's code", ".keel/extensions/notify.mjs", "export default () => { /* new */ };\n"],
    ["an agent definition", ".keel/agents/reviewer.md", "---\nname: reviewer\n---\n"],
    ["session data", ".keel/sessions/s.jsonl", "{}\n"],
  ])("editing %s keeps it trusted", (_label, rel, text) => {
    write(rel, text);
    expect(check()).toEqual({ status: "trusted", approvals: {} });
  });

  it("rules that only tighten (ask, deny) and the model keep it trusted", () => {
    write(
      ".keel/config.json",
      json({
        ...CONFIG,
        model: "openai/gpt-5",
        permissions: { ...CONFIG.permissions, ask: ["Bash(git push:*)"], deny: ["Bash(rm:*)", "Read(.env)"] },
      }),
    );
    expect(check().status).toBe("trusted");
  });
});

describe("what runs or widens automatically asks again, saying what changed", () => {
  const withConfig = (patch: Record<string, unknown>) =>
    write(".keel/config.json", json({ ...CONFIG, ...patch }));
  const withServer = (name: string, server: unknown) =>
    write(".mcp.json", json({ mcpServers: { ...MCP.mcpServers, [name]: server } }));

  it.each([
    [
      "an MCP server's header",
      () =>
        withServer("docs", { ...MCP.mcpServers.docs, headers: { Authorization: "Bearer ${GITHUB_TOKEN}" } }),
      /^~ \.mcp\.json server docs: headers\.Authorization: \(none\) → "Bearer \$\{GITHUB_TOKEN\}"; headers\.X-Team: "core" → \(none\)$/,
    ],
    [
      "an MCP server's env",
      () => withServer("tool", { ...MCP.mcpServers.tool, env: { LEVEL: "2" } }),
      /env\.LEVEL: "1" → "2"/,
    ],
    [
      "an MCP server's URL",
      () => withServer("docs", { ...MCP.mcpServers.docs, url: "https://evil.example/mcp" }),
      /url: /,
    ],
    [
      "an MCP server's args",
      () => withServer("tool", { ...MCP.mcpServers.tool, args: ["-y", "other"] }),
      /args: /,
    ],
    ["a new MCP server", () => withServer("new", { command: "./run.sh" }), /^\+ \.mcp\.json server new: /],
    [
      "a hook command",
      () => withConfig({ hooks: { runEnd: [{ command: "node scripts/other.mjs" }] } }),
      /^\+ hook runEnd \(\.keel\/config\.json\): node scripts\/other\.mjs/,
    ],
    [
      "the environment",
      () => withConfig({ env: { NODE_OPTIONS: "--require ./x.js" } }),
      /^\+ env NODE_OPTIONS/,
    ],
    [
      "the permission mode",
      () => withConfig({ permissions: { ...CONFIG.permissions, mode: "bypassPermissions" } }),
      /^~ permissions\.mode \(\.keel\/config\.json\): "default" → "bypassPermissions"/,
    ],
    [
      "an allow rule",
      () => withConfig({ permissions: { ...CONFIG.permissions, allow: ["Bash(npm test:*)", "Bash"] } }),
      /^\+ allow rule Bash \(\.keel\/config\.json\)/,
    ],
    [
      "an extension's settings",
      () =>
        withConfig({
          extensions: { mcp: { config: { servers: { local: { command: "sh", args: ["-c", "x"] } } } } },
        }),
      /^~ extensions\.mcp \(\.keel\/config\.json\): config\.servers\.local\.args/,
    ],
    [
      "a declared package",
      () => withConfig({ packages: [{ name: "keel-ext", version: "1.0.0", spec: "keel-ext" }] }),
      /^\+ package keel-ext/,
    ],
    [
      "a provider's base URL",
      () => withConfig({ providers: { anthropic: { baseUrl: "https://proxy.example" } } }),
      /^\+ providers\.anthropic/,
    ],
    [
      "a setting Keel may come to honour",
      () => withConfig({ sandbox: { autoAllow: true } }),
      /^\+ sandbox \(\.keel\/config\.json\)/,
    ],
    [
      "a new extension file",
      () => write(".keel/extensions/more.mjs", "export default () => {};\n"),
      /^\+ extension \.keel\/extensions\/more\.mjs/,
    ],
    [
      "the local config",
      () => write(".keel/config.local.json", json({ env: { A: "1" } })),
      /^\+ env A \(\.keel\/config\.local\.json\)/,
    ],
    [
      "a config that no longer parses",
      () => write(".keel/config.json", "{ not json"),
      /^\+ \.keel\/config\.json: "not valid JSON/,
    ],
  ])("%s", (_label, change, line) => {
    change();
    const now = check();
    expect(now.status).toBe("changed");
    expect(
      lines().some((l) => line.test(l)),
      lines().join("\n"),
    ).toBe(true);
  });

  it("a removed hook is a change too, and trusting again takes the project as it is", () => {
    write(".keel/config.json", json({ ...CONFIG, hooks: {} }));
    expect(lines()).toEqual(['- hook runEnd (.keel/config.json): node scripts/notify.mjs: "runs"']);
    trustProject(project, { home: keelHome })._unsafeUnwrap();
    expect(check().status).toBe("trusted");
  });
});

describe("Keel's own writes", () => {
  const keelWrite = (config: unknown) =>
    writeKeepingTrust(project, { home: keelHome }, () => {
      write(".keel/config.json", json(config));
      return ok(undefined);
    });

  it("an always-allow rule Keel writes keeps the project trusted", () => {
    const allow = [...CONFIG.permissions.allow, "Bash(npm run lint)"];
    expect(keelWrite({ ...CONFIG, permissions: { ...CONFIG.permissions, allow } })).toEqual({
      written: ok(undefined),
    });
    expect(check().status).toBe("trusted");
  });

  it("but approves nothing that changed before it", () => {
    write(".mcp.json", json({ mcpServers: { evil: { command: "./evil.sh" } } }));
    keelWrite({ ...CONFIG, model: "openai/gpt-5" });
    expect(check().status).toBe("changed");
    expect(lines().some((l) => l.startsWith("+ .mcp.json server evil"))).toBe(true);
  });
});

describe("entries from before the surface was recorded", () => {
  function legacyEntry(hash: string) {
    const file = JSON.parse(readFileSync(join(keelHome, "trust.json"), "utf8"));
    file.projects[project] = { hash, trustedAt: "2025-01-01T00:00:00.000Z", contextFiles: {} };
    writeFileSync(join(keelHome, "trust.json"), JSON.stringify(file));
  }

  it("stay trusted while the project is as it was, and get their surface recorded", () => {
    legacyEntry(hashProject(project)._unsafeUnwrap());
    expect(check().status).toBe("trusted");
    const entry = JSON.parse(readFileSync(join(keelHome, "trust.json"), "utf8")).projects[project];
    expect(entry.surface).toEqual(projectSurface(project, keelHome));
    expect(entry.trustedAt).toBe("2025-01-01T00:00:00.000Z");
    // From now on the new rule holds: a context file edit keeps it trusted.
    write("AGENTS.md", "edited\n");
    expect(check().status).toBe("trusted");
  });

  it("are asked about once more when the project changed since, with everything it runs listed", () => {
    legacyEntry("sha256:0000");
    const now = check();
    expect(now).toMatchObject({ status: "changed", legacy: true });
    expect(lines()).toContain('+ hook runEnd (.keel/config.json): node scripts/notify.mjs: "runs"');
    expect(lines().some((l) => l.startsWith("+ .mcp.json server docs"))).toBe(true);
  });
});

describe("what extensions record as approved", () => {
  it("is stored with the trust and compared item by item, led by the extension's id", () => {
    trustProject(project, { home: keelHome, approvals: { skills: { "skill a allowed-tools": "Bash(ls)" } } });
    expect(check().approvals).toEqual({ skills: { "skill a allowed-tools": "Bash(ls)" } });
    const now = { skills: { "skill a allowed-tools": "Bash", "skill b allowed-tools": "Read" } };
    expect(changeLines(approvalChanges(trustedApprovals(project, keelHome), now))).toEqual([
      '~ skills: skill a allowed-tools: "Bash(ls)" → "Bash"',
      "+ skills: skill b allowed-tools: Read",
    ]);
  });
});
