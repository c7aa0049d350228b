// The approval flow: allow once, allow always (persisted + re-evaluated), deny, headless, failures.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { err, ok } from "neverthrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addPermissionRule } from "../../src/config/write.js";
import type { ApprovalRequest, PermissionGateOptions } from "../../src/permissions/gate.js";
import { createPermissionGate } from "./declared.js";
import { makePermissionFixture, type PermissionFixture } from "./fixture.js";

let fx: PermissionFixture;
beforeAll(() => {
  fx = makePermissionFixture();
});
afterAll(() => fx.cleanup());

function gate(overrides: Partial<PermissionGateOptions> = {}) {
  const asked: ApprovalRequest[] = [];
  const persisted: string[] = [];
  const g = createPermissionGate({
    mode: "default",
    rules: [],
    workspace: fx.workspace,
    userHome: fx.home,
    keelHome: fx.keelHome,
    persist: async (rule, scope) => {
      persisted.push(`${scope}:${rule}`);
      return ok(undefined);
    },
    ...overrides,
  });
  return { g, asked, persisted };
}

describe("createPermissionGate", () => {
  it("continues on allow without asking", async () => {
    const { g } = gate({
      ask: async () => {
        throw new Error("must not ask");
      },
    });
    const outcome = await g({ tool: "Read", args: { path: "src/a.ts" } });
    expect(outcome.action).toBe("continue");
  });

  it("blocks on deny with the rule's reason", async () => {
    const { g } = gate({ rules: [{ rule: "Bash(rm:*)", behavior: "deny", source: "user" }] });
    const outcome = await g({ tool: "Bash", args: { command: "rm x" } });
    expect(outcome).toMatchObject({ action: "block" });
    if (outcome.action === "block") expect(outcome.reason).toContain("Bash(rm:*)");
  });

  it("headless ask becomes a block telling the model approval is needed", async () => {
    const { g } = gate();
    const outcome = await g({ tool: "Bash", args: { command: "npm install" } });
    expect(outcome.action).toBe("block");
    if (outcome.action === "block") {
      expect(outcome.reason).toMatch(/needs the user's approval/);
      expect(outcome.reason).toContain("Bash(npm install:*)");
    }
  });

  it("allow_once continues without persisting, and asks again next time", async () => {
    const asked: ApprovalRequest[] = [];
    const { g, persisted } = gate({
      ask: async (r) => {
        asked.push(r);
        return { decision: "allow_once" };
      },
    });
    expect((await g({ tool: "Bash", args: { command: "npm install" }, toolCallId: "t1" })).action).toBe(
      "continue",
    );
    expect((await g({ tool: "Bash", args: { command: "npm install" }, toolCallId: "t2" })).action).toBe(
      "continue",
    );
    expect(asked.map((a) => a.toolCallId)).toEqual(["t1", "t2"]);
    expect(asked[0]!.suggestions).toEqual(["Bash(npm install)", "Bash(npm install:*)"]);
    expect(persisted).toEqual([]);
  });

  it("deny answer blocks", async () => {
    const { g } = gate({ ask: async () => ({ decision: "deny" }) });
    const outcome = await g({ tool: "Edit", args: { path: "src/a.ts" } });
    expect(outcome).toMatchObject({ action: "block", reason: "the user denied Edit" });
  });

  it("a deny answer's words reach the model in the block reason", async () => {
    const { g } = gate({ ask: async () => ({ decision: "deny", reason: "use pnpm, not npm" }) });
    const outcome = await g({ tool: "Bash", args: { command: "npm install" } });
    expect(outcome).toMatchObject({ action: "block" });
    if (outcome.action === "block") expect(outcome.reason).toContain("use pnpm, not npm");
  });

  it("allow_always saves the offered rule the user picked, and never one that was not offered", async () => {
    const picked = gate({ ask: async () => ({ decision: "allow_always", rule: "Bash(npm install:*)" }) });
    await picked.g({ tool: "Bash", args: { command: "npm install" } });
    expect(picked.persisted).toEqual(["projectLocal:Bash(npm install:*)"]);
    const reports: string[] = [];
    const widened = gate({
      ask: async () => ({ decision: "allow_always", rule: "Bash(*)" }),
      onDiagnostic: (m) => reports.push(m),
    });
    // Allowed this once, nothing saved, and said so.
    expect(await widened.g({ tool: "Bash", args: { command: "npm install" } })).toMatchObject({
      action: "continue",
      approvedBy: "user_once",
    });
    expect(widened.persisted).toEqual([]);
    expect(reports).toEqual(['"always" named Bash(*), which was not offered; allowed once, nothing saved']);
  });

  it("a throwing prompt fails closed", async () => {
    const { g } = gate({
      ask: async () => {
        throw new Error("tty gone");
      },
    });
    expect((await g({ tool: "Edit", args: { path: "src/a.ts" } })).action).toBe("block");
  });

  it("allow_always writes the rule to the project-local file and re-evaluates with it", async () => {
    let asks = 0;
    const where = { keelHome: fx.keelHome, projectRoot: fx.workspace };
    const g = createPermissionGate({
      mode: "default",
      rules: [],
      workspace: fx.workspace,
      userHome: fx.home,
      keelHome: fx.keelHome,
      ask: async () => {
        asks++;
        return { decision: "allow_always" };
      },
      persist: async (rule, scope) => addPermissionRule(rule, "allow", scope, where),
    });
    const first = await g({ tool: "Bash", args: { command: "npm run build" } });
    expect(first).toMatchObject({ action: "continue", approvedBy: "user_always" });
    if (first.action === "continue") {
      expect(first.decision.behavior).toBe("allow");
      expect(first.decision.rule).toBe("Bash(npm run build)");
    }
    const file = JSON.parse(readFileSync(join(fx.workspace, ".keel", "config.local.json"), "utf8"));
    expect(file).toEqual({ permissions: { allow: ["Bash(npm run build)"] } });
    expect(g.rules()).toContainEqual({
      rule: "Bash(npm run build)",
      behavior: "allow",
      source: "projectLocal",
    });
    // The saved rule now answers by itself, for that command and no other.
    expect((await g({ tool: "Bash", args: { command: "npm run build" } })).action).toBe("continue");
    expect(asks).toBe(1);
    expect((await g({ tool: "Bash", args: { command: "npm run lint" } })).action).toBe("continue");
    expect(asks).toBe(2);
  });

  it("a deny inside a compound command blocks before anyone is asked", async () => {
    const { g, persisted } = gate({
      rules: [{ rule: "Edit(src/secret/**)", behavior: "deny", source: "user" }],
      ask: async () => ({ decision: "allow_always" }),
    });
    const outcome = await g({ tool: "Bash", args: { command: "echo x > src/secret/a && echo y > out.txt" } });
    expect(outcome.action).toBe("block");
    expect(persisted).toEqual([]);
  });

  it("a failed persist is reported and the approved call goes on", async () => {
    const reports: string[] = [];
    const { g } = gate({
      ask: async () => ({ decision: "allow_always" }),
      persist: async () => err({ type: "config_write_failed", message: "disk full" }),
      onDiagnostic: (m) => reports.push(m),
    });
    const outcome = await g({ tool: "Bash", args: { command: "make" } });
    expect(outcome.action).toBe("continue");
    expect(reports[0]).toContain("disk full");
  });

  it("setMode switches behaviour at run time", async () => {
    const { g } = gate();
    g.setMode("acceptEdits");
    expect(g.mode).toBe("acceptEdits");
    expect((await g({ tool: "Edit", args: { path: "src/a.ts" } })).action).toBe("continue");
    g.setMode("plan");
    const outcome = await g({ tool: "Edit", args: { path: "src/a.ts" } });
    expect(outcome.action).toBe("block");
    if (outcome.action === "block") expect(outcome.reason).toMatch(/plan mode/);
  });
});
