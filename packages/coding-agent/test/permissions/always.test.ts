// "Always allow" grants no more than was asked: the rules offered are alternatives that each
// alone cover the call (the exact command line first), the one picked is the one saved, it goes
// to the project's own .keel/config.local.json (never the user's config), and in an untrusted
// project it lasts for the session only.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ok } from "neverthrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addPermissionRule } from "../../src/config/write.js";
import { createToolPermission } from "../../src/kernel/permission.js";
import type { ToolApprovalRequest } from "../../src/kernel/types.js";
import type { PermissionRuleEntry } from "../../src/permissions/types.js";
import { builtinDeclaration, createPermissionGate, decide } from "./declared.js";
import { makePermissionFixture, type PermissionFixture } from "./fixture.js";

let fx: PermissionFixture;
beforeAll(() => {
  fx = makePermissionFixture();
});
afterAll(() => fx.cleanup());

async function offered(tool: string, args: Record<string, unknown>, rules: PermissionRuleEntry[] = []) {
  const decision = await decide({
    tool,
    args,
    mode: "default",
    rules,
    workspace: fx.workspace,
    userHome: fx.home,
    keelHome: fx.keelHome,
  });
  return { behavior: decision.behavior, rules: decision.suggestions ?? [] };
}

const bash = (command: string, rules: PermissionRuleEntry[] = []) => offered("Bash", { command }, rules);
const allowRule = (rule: string): PermissionRuleEntry => ({
  rule,
  behavior: "allow",
  source: "projectLocal",
});

describe("the rules 'always' may save", () => {
  it("a compound command: its exact line, then a prefix only where it covers every part that asks", async () => {
    expect(await bash("touch created.txt && echo made")).toEqual({
      behavior: "ask",
      rules: ["Bash(touch created.txt && echo made)", "Bash(touch created.txt:*)"],
    });
    expect((await bash("git add a.txt && git add b.txt")).rules).toEqual([
      "Bash(git add a.txt && git add b.txt)",
      "Bash(git add:*)",
    ]);
    // No prefix covers two different programs: only the exact line.
    expect((await bash("npm install && git push origin main")).rules).toEqual([
      "Bash(npm install && git push origin main)",
    ]);
  });

  it("rm -f x: the command and its own prefixes, never Bash(rm:*)", async () => {
    const { rules } = await bash("rm -f x");
    expect(rules).toEqual(["Bash(rm -f x)", "Bash(rm -f x:*)", "Bash(rm -f:*)"]);
    expect(rules).not.toContain("Bash(rm:*)");
    // A program alone may be remembered with its arguments; a word only the shell knows stops a prefix.
    expect((await bash("make")).rules).toEqual(["Bash(make)", "Bash(make:*)"]);
    expect((await bash('touch "$OUT"')).rules).toEqual([]);
  });

  it("Edit(README.md): that file, never Edit(**)", async () => {
    expect(await offered("Edit", { path: "README.md" })).toEqual({
      behavior: "ask",
      rules: ["Edit(README.md)"],
    });
    expect((await offered("Write", { path: "src/new.ts" })).rules).toEqual([
      "Edit(src/new.ts)",
      "Edit(src/**)",
    ]);
    expect((await bash("echo x > out.txt")).rules).toEqual(["Bash(echo x > out.txt)", "Edit(out.txt)"]);
  });

  it("reads outside the workspace: the file, then its folder, never the home or the root", async () => {
    expect((await offered("Read", { path: "/etc/hosts" })).rules).toEqual([
      "Read(/etc/hosts)",
      "Read(/etc/**)",
    ]);
    expect((await offered("Read", { path: `${fx.home}/notes.txt` })).rules).toEqual(["Read(~/notes.txt)"]);
    expect((await offered("Grep", { path: "/", pattern: "x" })).rules).toEqual([]);
  });

  it("every offered rule alone allows the call it was offered for", async () => {
    for (const command of ["touch created.txt && echo made", "rm -f x", "git add a.txt && git add b.txt"]) {
      for (const rule of (await bash(command)).rules) {
        expect((await bash(command, [allowRule(rule)])).behavior, `${rule} for ${command}`).toBe("allow");
      }
    }
  });

  it("nothing to remember where no rule could be narrow: protected files, opaque code", async () => {
    expect((await bash("echo x >> ~/.bashrc")).rules).toEqual([]);
    expect((await bash('eval "$CMD"')).rules).toEqual([]);
  });
});

describe("an exact command-line rule", () => {
  it("allows that line and nothing else", async () => {
    const rules = [allowRule("Bash(touch created.txt && echo made)")];
    expect((await bash("touch created.txt && echo made", rules)).behavior).toBe("allow");
    expect((await bash("touch created.txt && rm -rf build", rules)).behavior).toBe("ask");
    expect((await bash("touch created.txt", rules)).behavior).toBe("ask");
    expect((await bash("touch other.txt && echo made", rules)).behavior).toBe("ask");
  });

  it("never beats a deny rule, an ask rule or a protected file", async () => {
    const exact = (cmd: string) => allowRule(`Bash(${cmd})`);
    expect(
      (await bash("rm -f x", [exact("rm -f x"), { rule: "Bash(rm:*)", behavior: "deny", source: "user" }]))
        .behavior,
    ).toBe("deny");
    expect(
      (
        await bash("npm publish", [
          exact("npm publish"),
          { rule: "Bash(npm publish)", behavior: "ask", source: "user" },
        ])
      ).behavior,
    ).toBe("ask");
    expect((await bash("echo x >> ~/.bashrc", [exact("echo x >> ~/.bashrc")])).behavior).toBe("ask");
  });
});

describe("saving 'always'", () => {
  it("saves one rule, the narrowest by default, and a compound approval covers only what was approved", async () => {
    const where = { keelHome: fx.keelHome, projectRoot: fx.workspace };
    const asked: string[][] = [];
    const g = createPermissionGate({
      mode: "default",
      rules: [],
      workspace: fx.workspace,
      userHome: fx.home,
      keelHome: fx.keelHome,
      ask: async (request) => {
        asked.push(request.suggestions);
        return { decision: "allow_always" };
      },
      persist: async (rule, scope) => addPermissionRule(rule, "allow", scope, where),
    });
    await g({ tool: "Bash", args: { command: "touch created.txt && echo made" } });
    const local = join(fx.workspace, ".keel", "config.local.json");
    expect(JSON.parse(readFileSync(local, "utf8")).permissions.allow).toEqual([
      "Bash(touch created.txt && echo made)",
    ]);
    expect(existsSync(join(fx.keelHome, "config.json"))).toBe(false);
    // The same line is now allowed without asking; anything more still asks.
    expect((await g({ tool: "Bash", args: { command: "touch created.txt && echo made" } })).action).toBe(
      "continue",
    );
    expect(asked).toHaveLength(1);
    await g({ tool: "Bash", args: { command: "touch created.txt && rm -rf build" } });
    expect(asked).toHaveLength(2);
  });

  it("the three reported examples each save their narrowest rule, to the project-local file only", async () => {
    const where = { keelHome: fx.keelHome, projectRoot: fx.workspace };
    const g = createPermissionGate({
      mode: "default",
      rules: [],
      workspace: fx.workspace,
      userHome: fx.home,
      keelHome: fx.keelHome,
      ask: async () => ({ decision: "allow_always" }),
      persist: async (rule, scope) => addPermissionRule(rule, "allow", scope, where),
    });
    await g({ tool: "Bash", args: { command: "touch created.txt && echo made" } });
    await g({ tool: "Bash", args: { command: "rm -f x" } });
    await g({ tool: "Edit", args: { path: "README.md" } });
    const saved = JSON.parse(readFileSync(join(fx.workspace, ".keel", "config.local.json"), "utf8"))
      .permissions.allow as string[];
    expect(saved).toEqual(
      expect.arrayContaining(["Bash(touch created.txt && echo made)", "Bash(rm -f x)", "Edit(README.md)"]),
    );
    for (const broad of ["Bash(touch created.txt:*)", "Bash(rm:*)", "Edit(**)"])
      expect(saved).not.toContain(broad);
    expect(existsSync(join(fx.keelHome, "config.json"))).toBe(false);
  });

  it("saves the alternative the user picked", async () => {
    const persisted: string[] = [];
    const g = createPermissionGate({
      mode: "default",
      rules: [],
      workspace: fx.workspace,
      userHome: fx.home,
      keelHome: fx.keelHome,
      ask: async () => ({ decision: "allow_always", rule: "Bash(rm -f:*)" }),
      persist: async (rule, scope) => {
        persisted.push(`${scope}:${rule}`);
        return ok(undefined);
      },
    });
    await g({ tool: "Bash", args: { command: "rm -f x" } });
    expect(persisted).toEqual(["projectLocal:Bash(rm -f:*)"]);
  });
});

describe("where the kernel saves 'always'", () => {
  function permission(trusted: boolean, requests: ToolApprovalRequest[]) {
    return createToolPermission({
      mode: "default",
      rules: [],
      workspace: fx.workspace,
      keelHome: fx.keelHome,
      userHome: fx.home,
      trusted,
      report: () => {},
      ui: {
        approve: async (request) => {
          requests.push(request);
          return { decision: "allow_always" };
        },
      },
    });
  }
  const call = (command: string) => ({
    toolName: "Bash",
    toolCallId: "t1",
    args: { command },
    declaration: builtinDeclaration("Bash"),
    approval: "kernel" as const,
  });

  it("a trusted project: its .keel/config.local.json, named in the request", async () => {
    const requests: ToolApprovalRequest[] = [];
    const p = permission(true, requests);
    expect(await p.check(call("mkdir -p out/trusted"))).toEqual({ action: "continue" });
    expect(requests[0]).toMatchObject({
      alwaysRules: ["Bash(mkdir -p out/trusted)", "Bash(mkdir -p out/trusted:*)", "Bash(mkdir -p:*)"],
      alwaysSavesTo: join(fx.workspace, ".keel", "config.local.json"),
    });
    const local = JSON.parse(readFileSync(join(fx.workspace, ".keel", "config.local.json"), "utf8"));
    expect(local.permissions.allow).toContain("Bash(mkdir -p out/trusted)");
    expect(existsSync(join(fx.keelHome, "config.json"))).toBe(false);
  });

  it("an untrusted project: this session only, nothing written anywhere", async () => {
    const root = join(fx.root, "untrusted");
    mkdirSync(root, { recursive: true });
    const requests: ToolApprovalRequest[] = [];
    const p = createToolPermission({
      mode: "default",
      rules: [],
      workspace: root,
      keelHome: fx.keelHome,
      userHome: fx.home,
      trusted: false,
      report: () => {},
      ui: {
        approve: async (request) => {
          requests.push(request);
          return { decision: "allow_always" };
        },
      },
    });
    expect(await p.check(call("mkdir -p out/untrusted"))).toEqual({ action: "continue" });
    expect(requests[0]!.alwaysRules[0]).toBe("Bash(mkdir -p out/untrusted)");
    expect(requests[0]!.alwaysSavesTo).toBeUndefined();
    expect(existsSync(join(root, ".keel"))).toBe(false);
    expect(existsSync(join(fx.keelHome, "config.json"))).toBe(false);
    // Remembered for the rest of the session.
    expect(await p.check(call("mkdir -p out/untrusted"))).toEqual({ action: "continue" });
    expect(requests).toHaveLength(1);
  });
});
