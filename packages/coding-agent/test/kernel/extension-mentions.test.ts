// Extensions' `@<prefix>:<ref>` mentions through the real kernel: completed as typed, attached to
// the prompt where the user wrote them (bounded, in order with file mentions), a failing source a
// note with nothing lost, an unanswered prefix read as a path, and what was sent stays a prefix.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineExtension, type ExtensionDefinition, type MentionSource } from "@keel/extension-sdk";
import { cacheLines } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent, MAX_MENTION_BYTES, promptParts } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

const docs: Record<string, string> = {
  "file:///guide.md": "# Guide\nRun make.\n",
  "file:///big.txt": "z".repeat(MAX_MENTION_BYTES + 10),
};

function withSource(source: Partial<MentionSource> = {}): ExtensionDefinition {
  return defineExtension({
    id: "docs-ext",
    lifecycle: {
      activate: (ctx) => {
        const added = ctx.mentions.add({
          id: "docs",
          prefixes: () => ["docs"],
          complete: ({ ref }) =>
            Object.keys(docs)
              .filter((uri) => uri.includes(ref))
              .map((uri) => ({ ref: uri, label: uri.slice(8) })),
          resolve: ({ ref }) =>
            docs[ref] !== undefined
              ? { ok: true, content: [{ type: "text", text: docs[ref]! }], title: ref.slice(8) }
              : { ok: false, message: `no resource ${ref}` },
          ...source,
        });
        if (!added.ok) throw new Error(added.message);
      },
    },
  }) as ExtensionDefinition;
}

async function open(f: ReturnType<typeof faux>, extensions: ExtensionDefinition[]) {
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    extensions,
    discoverExtensions: false,
  });
  if (created.isErr()) throw new Error(created.error.message);
  return created.value;
}

describe("extension mentions", () => {
  it("completes prefixes, then refs; attaches the resource where the user wrote it, next to a file", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "a.ts"), "export const a = 1;\n");
    const f = faux({ turns: [{ text: "Read both." }, { text: "Again." }] });
    const agent = await open(f, [withSource()]);
    expect(await agent.completeMention("do")).toEqual([{ prefix: "docs", ref: "", source: "docs-ext" }]);
    expect(await agent.completeMention("docs:gui")).toEqual([
      { prefix: "docs", ref: "file:///guide.md", label: "guide.md", source: "docs-ext" },
    ]);
    expect(await agent.completeMention("src/")).toEqual([]);
    const notes: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "diagnostic") notes.push(e.diagnostic.message);
    });
    expect((await agent.prompt("see @docs:file:///guide.md. and @a.ts")).isOk()).toBe(true);
    const raw = f.requests[0]!.raw;
    const mention = raw.indexOf(
      '<mention ref=\\"@docs:file:///guide.md\\" title=\\"guide.md\\">\\n# Guide\\nRun make.\\n</mention>',
    );
    expect(mention).toBeGreaterThan(0);
    expect(raw.indexOf('<file path=\\"a.ts\\">')).toBeGreaterThan(mention);
    expect(notes, JSON.stringify(notes)).toContain("attached @docs:file:///guide.md (guide.md, 18 B)");
    const user = agent.messages()[0]!;
    expect(user.role === "user" && promptParts(user.content)).toEqual({
      text: "see @docs:file:///guide.md. and @a.ts",
      attached: ["@docs:file:///guide.md", "a.ts"],
    });
    // The next request keeps the first one's bytes as its prefix.
    expect((await agent.prompt("and once more")).isOk()).toBe(true);
    const [first, second] = [cacheLines(f.requests[0]!), cacheLines(f.requests[1]!)];
    expect(second.slice(0, first.length)).toEqual(first);
    await agent.close();
  });

  it("cuts a long resource, notes a failing one and sends the rest; a prefix nobody answers is a path", async () => {
    box = sandbox();
    const f = faux({ turns: [{ text: "ok" }] });
    const agent = await open(f, [withSource()]);
    const notes: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "diagnostic") notes.push(e.diagnostic.message);
    });
    await agent.prompt("@docs:file:///big.txt @docs:file:///missing.md @other:thing");
    const raw = f.requests[0]!.raw;
    expect(raw).toContain(`truncated=\\"first ${MAX_MENTION_BYTES} of ${MAX_MENTION_BYTES + 10} bytes\\"`);
    expect(raw).not.toContain("z".repeat(MAX_MENTION_BYTES + 1));
    expect(notes).toContain("not attached: @docs:file:///missing.md (no resource file:///missing.md)");
    // "other:thing" is neither a source's prefix nor a file: left as text.
    expect(raw).toContain("@other:thing");
    expect(notes.some((n) => n.includes("@other"))).toBe(false);
    await agent.close();
  });

  it("a source that hangs or throws does not lose the prompt", async () => {
    box = sandbox();
    const f = faux({ turns: [{ text: "ok" }] });
    const agent = await open(f, [
      withSource({
        resolve: () => {
          throw new Error("server went away");
        },
        complete: () => new Promise(() => {}),
      }),
    ]);
    const notes: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "diagnostic") notes.push(e.diagnostic.message);
    });
    expect(await agent.completeMention("docs:x")).toEqual([]);
    expect((await agent.prompt("look at @docs:file:///guide.md")).isOk()).toBe(true);
    expect(notes).toContain("not attached: @docs:file:///guide.md (server went away)");
    expect(f.requests[0]!.raw).toContain("look at @docs:file:///guide.md");
    await agent.close();
  }, 15_000);
});
