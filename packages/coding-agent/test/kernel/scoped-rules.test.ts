// Claude Code's path-scoped rules: kept out of the system prompt, told once by a notice appended
// after the first call that touches a matching file, so every request stays a prefix of the next.
import { defineExtension, Type, textResult } from "@keel/extension-sdk";
import { afterEach, describe, expect, it } from "vitest";
import {
  assertPrefixRetained,
  fauxProvider,
  hosted,
  type KernelFixture,
  kernelFixture,
  startKernel,
} from "../../src/testing.js";

let f: KernelFixture;
afterEach(() => f?.cleanup());

const RULE = "Every exported TypeScript function has a doc comment.";
const read = (path: string) => ({ toolCalls: [{ name: "Read", arguments: { path } }] });

describe("path-scoped rules", () => {
  it("reach the model when a matching file is read, once, by appending", async () => {
    f = kernelFixture({ name: "rules" });
    f.write("repo/.claude/rules/typescript.md", `---\npaths:\n  - "src/**/*.ts"\n---\n${RULE}\n`);
    f.write("repo/.claude/rules/always.md", "Answer in English.");
    f.write("repo/src/a.ts", "export const a = 1;\n");
    f.write("repo/README.md", "readme\n");
    f.trust();
    const model = fauxProvider({
      turns: [
        read("README.md"),
        read("src/a.ts"),
        { text: "read both" },
        read("src/a.ts"),
        { text: "again" },
      ],
    });
    const agent = await startKernel(f.options(model));
    await agent.prompt("look around");
    await agent.prompt("once more");
    await agent.close();

    const raw = model.requests.map((r) => r.raw);
    const system = JSON.stringify(model.requests[0]!.body.system);
    expect(system).toContain("Answer in English.");
    expect(system).not.toContain(RULE);
    // After README.md: not yet. After src/a.ts: the rule, and never a second copy.
    expect(raw[1]).not.toContain(RULE);
    expect(raw[2]).toContain(RULE);
    for (const r of raw.slice(2)) expect(r.split(RULE).length - 1).toBe(1);
    expect(model.requests).toHaveLength(5);
    assertPrefixRetained(model.requests);
  });
});

describe("path-scoped rules in a child agent", () => {
  it("reach the child whose call read the matching file, in the child's own requests", async () => {
    f = kernelFixture({ name: "rules-child" });
    f.write("repo/.claude/rules/typescript.md", `---\npaths: "src/**/*.ts"\n---\n${RULE}\n`);
    f.write("repo/src/a.ts", "export const a = 1;\n");
    f.trust();
    const spawner = defineExtension({
      id: "spawner",
      tools: (tool) => [
        tool({
          name: "Spawn",
          description: "Run a child agent.",
          parameters: Type.Object({}),
          access: "none",
          async execute(_args, ctx) {
            const started = await ctx.runAgent({ prompt: "CHILD: read a.ts", title: "reader" });
            if (!started.ok) return textResult(started.error.message, undefined, true);
            return textResult((await started.run.result).text);
          },
        }),
      ],
    });
    let parentTurn = 0;
    let childTurn = 0;
    const isChild = (raw: string) => raw.includes("CHILD: read a.ts");
    const model = fauxProvider({
      turns: [],
      fallback: (r) =>
        isChild(r.raw)
          ? ([read("src/a.ts"), { text: "child read it" }][childTurn++] ?? { text: "child done" })
          : ([{ toolCalls: [{ name: "Spawn", arguments: {} }] }, { text: "parent done" }][parentTurn++] ?? {
              text: "parent done",
            }),
    });
    const agent = await startKernel({ ...f.options(model), extensions: [hosted(spawner)] });
    await agent.prompt("spawn a reader");
    await agent.close();
    const child = model.requests.filter((r) => isChild(r.raw));
    const parent = model.requests.filter((r) => !isChild(r.raw));
    expect(child).toHaveLength(2);
    expect(child[1]!.raw).toContain(RULE);
    for (const r of parent) expect(r.raw).not.toContain(RULE);
    assertPrefixRetained(child);
  });
});
