// Rules for catalog entries name a group exactly: an allow rule for MCP server `docs` covers
// `docs`'s tools and never those of a server whose name only starts like it (`docs__evil`).
import { describe, expect, it } from "vitest";
import { mcpRuleMatches } from "../../src/permissions/rules.js";
import type { PermissionMode } from "../../src/permissions/types.js";
import { decide } from "./declared.js";

const judge = (group: string, name: string, rule: string, mode: PermissionMode = "default") =>
  decide({
    tool: `${group}:${name}`,
    args: {},
    mode,
    rules: [{ rule, behavior: "allow", source: "user" }],
    workspace: process.cwd(),
    catalogEntry: { group, name, bareName: true },
    declaration: { access: "write" },
  });

describe("server-wide rules for catalog entries", () => {
  it("an allow rule for mcp__docs allows docs's tools", async () => {
    expect((await judge("mcp__docs", "mcp__docs__search", "mcp__docs")).behavior).toBe("allow");
    expect((await judge("mcp__docs", "mcp__docs__search", "mcp__docs__*")).behavior).toBe("allow");
  });

  it("does not cover a server named docs__evil, whose tools start with mcp__docs__", async () => {
    for (const rule of ["mcp__docs", "mcp__docs__*"]) {
      const d = await judge("mcp__docs__evil", "mcp__docs__evil__wipe", rule);
      expect(d.behavior, rule).toBe("ask");
      expect(
        (await judge("mcp__docs__evil", "mcp__docs__evil__wipe", rule, "bypassPermissions")).rule,
      ).toBeUndefined();
    }
  });

  it("by name, the server is what comes before the second __", () => {
    expect(mcpRuleMatches("mcp__docs", "mcp__docs__search")).toBe(true);
    expect(mcpRuleMatches("mcp__docs", "mcp__docs_evil__search")).toBe(false);
    expect(mcpRuleMatches("mcp__doc", "mcp__docs__search")).toBe(false);
  });
});
