// The sandbox section: a project's config narrows the user's and never widens it; secret-looking
// variables are recognised by name or by value; the gate's verdicts follow the sandbox's state.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { confineVerdicts } from "../../src/permissions/sandboxed.js";
import type { PermissionMode } from "../../src/permissions/types.js";
import { allow, ask, deny } from "../../src/permissions/verdict.js";
import { commandEnvironment, isSecretVariable } from "../../src/sandbox/env.js";
import { DEFAULT_SANDBOX_SETTINGS, resolveSandboxSettings } from "../../src/sandbox/settings.js";
import { decide } from "../permissions/declared.js";

describe("sandbox settings", () => {
  it("default: on, nothing auto-allowed, no domains, the sandbox kept in bypassPermissions", () => {
    expect(resolveSandboxSettings(undefined, []).settings).toEqual(DEFAULT_SANDBOX_SETTINGS);
  });

  it("a project may only narrow what the user set", () => {
    const user = {
      enabled: false,
      autoAllow: true,
      allowedDomains: ["registry.npmjs.org", "github.com"],
      allowEnv: ["NPM_TOKEN"],
      bypassPermissions: "none" as const,
    };
    const narrowed = resolveSandboxSettings(user, [
      {
        file: ".keel/config.json",
        layer: {
          enabled: true,
          autoAllow: false,
          allowedDomains: ["github.com"],
          bypassPermissions: "sandbox",
        },
      },
    ]);
    expect(narrowed.settings).toMatchObject({
      enabled: true,
      autoAllow: false,
      allowedDomains: ["github.com"],
      allowEnv: ["NPM_TOKEN"],
      bypassPermissions: "sandbox",
    });
    expect(narrowed.ignored).toEqual([]);

    const widened = resolveSandboxSettings({}, [
      {
        file: ".keel/config.json",
        layer: {
          enabled: false,
          autoAllow: true,
          allowedDomains: ["evil.example"],
          allowEnv: ["GITHUB_TOKEN"],
          allowWrite: ["/"],
          bypassPermissions: "none",
        },
      },
    ]);
    expect(widened.settings).toEqual(DEFAULT_SANDBOX_SETTINGS);
    expect(widened.ignored).toHaveLength(6);
    expect(widened.ignored[0]).toMatch(/\.keel\/config\.json: sandbox\.enabled may only narrow/);
  });
});

describe("secret-looking variables", () => {
  it.each([
    ["GITHUB_TOKEN", "x"],
    ["OPENAI_API_KEY", "x"],
    ["AWS_SECRET_ACCESS_KEY", "x"],
    ["AWS_ACCESS_KEY_ID", "x"],
    ["DB_PASSWORD", "x"],
    ["MY_APIKEY", "x"],
    ["GOOGLE_APPLICATION_CREDENTIALS", "x"],
    ["DATABASE_URL", "postgres://app:hunter2@db.internal/app"],
    ["WHATEVER", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
    ["ANOTHER", "sk-ant-api03-abcdef"],
  ])("%s is a secret", (name, value) => expect(isSecretVariable(name, value)).toBe(true));

  it.each([
    ["PATH", "/usr/bin"],
    ["HOME", "/home/u"],
    ["TOKENIZERS_PARALLELISM", "false"],
    ["KEEL_HOME", "/home/u/.keel"],
    ["SSH_AUTH_SOCK", "/run/user/1/agent"],
    ["DATABASE_URL", "postgres://db.internal/app"],
  ])("%s is not", (name, value) => expect(isSecretVariable(name, value)).toBe(false));

  it("drops them unless listed, and collects every long enough value for scrubbing", () => {
    const out = commandEnvironment(
      {
        PATH: "/bin",
        GITHUB_TOKEN: "ghp_0123456789abcdef",
        NPM_TOKEN: "npm_abcdefghijkl",
        SHORT_KEY: "abc",
        MINE: "s3cr3t-value",
      },
      { allow: ["NPM_TOKEN"], extraSecretNames: new Set(["MINE"]) },
    );
    expect(out.env).toEqual({ PATH: "/bin", NPM_TOKEN: "npm_abcdefghijkl" });
    expect(out.dropped.sort()).toEqual(["GITHUB_TOKEN", "MINE", "SHORT_KEY"]);
    expect(out.secrets.sort()).toEqual(["ghp_0123456789abcdef", "npm_abcdefghijkl", "s3cr3t-value"]);
  });
});

describe("the gate with a sandbox", () => {
  const verdicts = [allow("reads inside the workspace"), allow("allowed by rule", "Bash(npm test:*)")];
  const unavailable = { state: "unavailable" as const, reason: "bwrap is not installed" };

  it.each(["plan", "dontAsk"] as const)("no sandbox: %s refuses the command", (mode) => {
    const out = confineVerdicts(verdicts, unavailable, mode);
    expect(out.some((v) => v.behavior === "deny" && /no OS sandbox/.test(v.reason))).toBe(true);
  });

  it.each(["default", "acceptEdits"] as const)(
    "no sandbox: %s asks where the parser alone allowed",
    (mode) => {
      const out = confineVerdicts(verdicts, unavailable, mode);
      expect(out.map((v) => v.behavior)).toEqual(["ask", "allow"]);
    },
  );

  it("no sandbox: bypassPermissions is unchanged; the user's 'off' leaves the parser alone", () => {
    expect(confineVerdicts(verdicts, unavailable, "bypassPermissions")).toEqual(verdicts);
    expect(confineVerdicts(verdicts, { state: "off", reason: "x" }, "plan")).toEqual(verdicts);
  });

  it("autoAllow: soft asks run in the sandbox in default and acceptEdits; hard asks and denials stay", () => {
    const mixed = [ask("writes src/x"), ask("dangerous", [], true), deny("denied by rule", "Bash(rm:*)")];
    const on = { state: "on" as const, autoAllow: true };
    expect(confineVerdicts(mixed, on, "default").map((v) => v.behavior)).toEqual(["allow", "ask", "deny"]);
    for (const mode of ["plan", "dontAsk", "bypassPermissions"] as PermissionMode[])
      expect(confineVerdicts(mixed, on, mode)).toEqual(mixed);
    expect(confineVerdicts(mixed, { state: "on", autoAllow: false }, "default")).toEqual(mixed);
  });

  it("through decide(): a command that would ask runs unasked with autoAllow; a deny rule still holds", async () => {
    const base = { tool: "Bash", workspace: process.cwd(), rules: [] };
    const request = (command: string, mode: PermissionMode, autoAllow: boolean) =>
      decide({
        ...base,
        args: { command },
        mode,
        rules: [{ rule: "Bash(rm:*)", behavior: "deny", source: "user" }],
        sandbox: { state: "on", autoAllow },
      });
    expect((await request("npm install", "default", false)).behavior).toBe("ask");
    expect((await request("npm install", "default", true)).behavior).toBe("allow");
    expect((await request("rm -f x", "default", true)).behavior).toBe("deny");
    expect((await request("ls", "plan", false)).behavior).toBe("allow");
    const none = await decide({
      ...base,
      args: { command: "ls" },
      mode: "plan",
      sandbox: { state: "unavailable", reason: "no bwrap" },
    });
    expect(none.behavior).toBe("deny");
    expect(none.reason).toMatch(/no OS sandbox can start here \(no bwrap\)/);
  });

  it("Keel's home is not part of the workspace, also when keel starts in ~", async () => {
    const home = mkdtempSync(join(tmpdir(), "keel-home-ws-"));
    mkdirSync(join(home, ".keel"));
    writeFileSync(join(home, ".keel", "credentials.json"), "{}");
    writeFileSync(join(home, "notes.txt"), "x");
    try {
      const read = (path: string, mode: PermissionMode) =>
        decide({
          tool: "Read",
          args: { path },
          mode,
          workspace: home,
          rules: [],
          userHome: home,
          keelHome: join(home, ".keel"),
        });
      expect((await read("notes.txt", "plan")).behavior).toBe("allow");
      expect((await read(".keel/credentials.json", "default")).behavior).toBe("ask");
      expect((await read(".keel/credentials.json", "plan")).behavior).toBe("deny");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("the test switch forces the parser's verdicts to allow, and nothing else", async () => {
    const forced = await decide({
      tool: "Bash",
      args: { command: "rm -rf /" },
      mode: "plan",
      workspace: process.cwd(),
      rules: [{ rule: "Bash(rm:*)", behavior: "deny", source: "user" }],
      forceParserAllow: true,
    });
    expect(forced.behavior).toBe("allow");
    const write = await decide({
      tool: "Write",
      args: { path: "/etc/x" },
      mode: "plan",
      workspace: process.cwd(),
      rules: [],
      forceParserAllow: true,
    });
    expect(write.behavior).toBe("deny");
  });
});
