// The permission matrix: every case of cases.ts judged by decide() in each of the five modes, with
// the expected behavior and why. e2e.test.ts runs the cases that name an effect through the kernel.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PermissionMode, PermissionRuleEntry } from "../../src/permissions/types.js";
import { CASES, type Case, MODES } from "./cases.js";
import { decide } from "./declared.js";
import { makePermissionFixture, type PermissionFixture } from "./fixture.js";

let fx: PermissionFixture;
beforeAll(() => {
  fx = makePermissionFixture();
});
afterAll(() => fx.cleanup());

export function rulesOf(c: Case): PermissionRuleEntry[] {
  const out: PermissionRuleEntry[] = [];
  for (const behavior of ["allow", "ask", "deny"] as const) {
    for (const rule of c[behavior] ?? []) out.push({ rule, behavior, source: "user" });
  }
  return out;
}

function judge(c: Case, mode: PermissionMode) {
  const workspace = c.workspace ? fx[c.workspace] : fx.workspace;
  return decide({
    tool: c.tool ?? "Bash",
    args: c.args ?? { command: c.cmd },
    mode,
    rules: rulesOf(c),
    workspace,
    ...(c.cwd ? { cwd: join(workspace, c.cwd) } : {}),
    userHome: fx.home,
    keelHome: fx.keelHome,
    ...(c.declaration ? { declaration: c.declaration } : {}),
  });
}

describe("permission matrix", () => {
  it("has at least 150 cases, each class with several spellings", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(150);
    for (const cls of [
      "1 readers that run",
      "2 git config",
      "3 unseen paths",
      "4 spelling",
      "5 evaluated values",
      "6 git environment and hooks",
      "7 runners",
    ]) {
      expect(CASES.filter((c) => c.class === cls).length, cls).toBeGreaterThanOrEqual(20);
    }
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  const rows = CASES.flatMap((c) =>
    MODES.map((mode) => [`[${c.class}] ${c.name} — ${mode}`, c, mode] as const),
  );
  it.each(rows)("%s", async (_label, c, mode) => {
    const decision = await judge(c, mode);
    expect(decision.behavior, `${c.cmd ?? c.tool}: ${decision.reason}`).toBe(c.expect[mode]);
    if (mode === "default") {
      if (c.reason) expect(decision.reason).toMatch(c.reason);
      if (c.rule) expect(decision.rule).toBe(c.rule);
      if (c.suggests) expect(decision.suggestions).toContain(c.suggests);
    }
    expect(JSON.parse(JSON.stringify(decision))).toEqual(decision);
  });
});
