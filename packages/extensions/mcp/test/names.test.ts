// Names the model and permission rules see, and the side-effect class annotations give a tool.
import { describe, expect, it } from "vitest";
import { MAX_NAME_LENGTH, sanitize, serverNamer, toolNamer } from "../src/catalog/names.js";
import { accessOf } from "../src/catalog/side-effects.js";

describe("names", () => {
  it("sanitises to letters, digits, _ and -", () => {
    expect(sanitize("get.issue/comments v2")).toBe("get_issue_comments_v2");
    expect(sanitize("")).toBe("_");
  });

  it("gives mcp__<server>__<tool>, unique, with the clean original first", () => {
    const names = toolNamer("gh").assign(["a.b", "a_b", "x"]);
    expect(names.get("a_b")).toBe("mcp__gh__a_b");
    expect(names.get("a.b")).toBe("mcp__gh__a_b_2");
    expect(names.get("x")).toBe("mcp__gh__x");
  });

  it("keeps a name once given, when a colliding tool appears later", () => {
    const namer = toolNamer("gh");
    expect(namer.assign(["a.b"]).get("a.b")).toBe("mcp__gh__a_b");
    const later = namer.assign(["a.b", "a_b"]);
    expect(later.get("a.b")).toBe("mcp__gh__a_b");
    expect(later.get("a_b")).toBe("mcp__gh__a_b_2");
  });

  it("fits long names in 64 characters, still unique", () => {
    const long = ["x".repeat(80), `${"x".repeat(79)}y`];
    const names = toolNamer("server").assign(long);
    for (const name of names.values()) expect(name.length).toBeLessThanOrEqual(MAX_NAME_LENGTH);
    expect(new Set(names.values()).size).toBe(2);
  });

  it("makes server parts unique and lets helpers claim names after the tools", () => {
    expect([...serverNamer().assign(["my server", "my_server"]).values()]).toEqual([
      "my_server_2",
      "my_server",
    ]);
    const namer = toolNamer("s");
    namer.assign(["list_resources"]);
    expect(namer.claim("\u0000list_resources", "list_resources")).toBe("mcp__s__list_resources_2");
    expect(namer.claim("\u0000list_resources", "list_resources")).toBe("mcp__s__list_resources_2");
  });
});

describe("server parts", () => {
  it("never hold `__` or end in `_`, so mcp__docs cannot name a server called docs__evil", () => {
    const parts = serverNamer().assign(["docs", "docs__evil", "a___b_", "__", "x_"]);
    expect(parts.get("docs")).toBe("docs");
    expect(parts.get("docs__evil")).toBe("docs_evil");
    expect(parts.get("a___b_")).toBe("a_b");
    expect(parts.get("__")).toBe("server");
    expect(parts.get("x_")).toBe("x");
    for (const part of parts.values()) {
      expect(part).not.toMatch(/__|_$/);
      // The tool names split back to their server at the second `__`.
      const tool = toolNamer(part).assign(["do__it"]).get("do__it")!;
      expect(/^mcp__(.+?)__/.exec(tool)?.[1]).toBe(part);
    }
  });
});

describe("access from annotations", () => {
  it("lifts the ask only for readOnlyHint under a trusting policy, never for contradictions", () => {
    expect(accessOf({}, "trust")).toBe("write");
    expect(accessOf({ annotations: { readOnlyHint: true } }, "trust")).toBe("read");
    expect(accessOf({ annotations: { readOnlyHint: true } }, "ignore")).toBe("write");
    expect(accessOf({ annotations: { readOnlyHint: true, destructiveHint: true } }, "trust")).toBe("write");
    expect(accessOf({ annotations: { readOnlyHint: false } }, "trust")).toBe("write");
    expect(accessOf({ annotations: { destructiveHint: false } }, "trust")).toBe("write");
  });

  it("a read-only tool that reaches an open world is network, never looser than its hints", () => {
    expect(accessOf({ annotations: { readOnlyHint: true, openWorldHint: true } }, "trust")).toBe("network");
    expect(accessOf({ annotations: { readOnlyHint: true, openWorldHint: false } }, "trust")).toBe("read");
    expect(accessOf({ annotations: { openWorldHint: true } }, "trust")).toBe("write");
    expect(
      accessOf({ annotations: { readOnlyHint: true, openWorldHint: true, destructiveHint: true } }, "trust"),
    ).toBe("write");
  });
});
