import type { MentionSource } from "@keel/extension-sdk";
import { describe, expect, it } from "vitest";
import { MentionTable, splitMention } from "../../src/host/mentions.js";

function source(id: string, prefixes: string[], extra: Partial<MentionSource> = {}): MentionSource {
  return {
    id,
    prefixes: () => prefixes,
    complete: ({ ref }) => [{ ref: `${ref}-1` }, { ref: `${ref}-2`, label: "two" }],
    resolve: ({ prefix, ref }) => ({ ok: true, content: [{ type: "text", text: `${prefix}|${ref}` }] }),
    ...extra,
  };
}

describe("extension mention sources", () => {
  it("splits at the first colon, and only where the prefix is a name", () => {
    expect(splitMention("docs:file:///a.md")).toEqual({ prefix: "docs", ref: "file:///a.md" });
    expect(splitMention("src/a.ts")).toBeUndefined();
    expect(splitMention(":x")).toBeUndefined();
    expect(splitMention("a b:c")).toBeUndefined();
  });

  it("completes prefixes, then a source's refs; the first source keeps a prefix two answer", async () => {
    const reports: string[] = [];
    const table = new MentionTable((id, m) => reports.push(`${id}: ${m}`));
    expect(table.add("mcp", source("resources", ["docs", "wiki"])).ok).toBe(true);
    expect(
      table.add("other", source("dup", ["docs"], { resolve: () => ({ ok: false, message: "other" }) })).ok,
    ).toBe(true);
    expect(table.add("mcp", source("resources", ["x"]))).toEqual({
      ok: false,
      message: "mention source resources is already registered",
    });
    expect(await table.complete("d")).toEqual([{ prefix: "docs", ref: "", source: "mcp" }]);
    expect((await table.complete("")).map((c) => c.prefix)).toEqual(["docs", "wiki"]);
    expect(await table.complete("docs:gu")).toEqual([
      { prefix: "docs", ref: "gu-1", source: "mcp" },
      { prefix: "docs", ref: "gu-2", label: "two", source: "mcp" },
    ]);
    expect(await table.resolve({ prefix: "docs", ref: "r" })).toEqual({
      ok: true,
      content: [{ type: "text", text: "docs|r" }],
    });
    expect(await table.resolve({ prefix: "nobody", ref: "r" })).toBeUndefined();
    table.removeAll("mcp");
    expect(await table.resolve({ prefix: "docs", ref: "r" })).toEqual({ ok: false, message: "other" });
    expect(reports).toEqual([]);
  });

  it("a source that throws or answers nonsense is reported and answers nothing; others go on", async () => {
    const reports: string[] = [];
    const table = new MentionTable((id, m) => reports.push(`${id}: ${m}`));
    table.add("bad", {
      id: "bad",
      prefixes: () => {
        throw new Error("boom");
      },
      resolve: () => ({ ok: true, content: [] }),
    });
    table.add("odd", {
      id: "odd",
      prefixes: () => ["odd", "not a prefix", 7 as never],
      complete: () => {
        throw new Error("no list");
      },
      resolve: () => "text" as never,
    });
    expect((await table.complete("")).map((c) => c.prefix)).toEqual(["odd"]);
    expect(await table.complete("odd:x")).toEqual([]);
    expect(await table.resolve({ prefix: "odd", ref: "x" })).toEqual({
      ok: false,
      message: "extension odd answered the mention with nothing usable",
    });
    expect(reports).toContain("bad: mention source bad: prefixes() threw: Error: boom");
    expect(reports).toContain("odd: mention completion for @odd: no list");
    expect(table.add("x", { id: "x" } as never).ok).toBe(false);
  });
});
