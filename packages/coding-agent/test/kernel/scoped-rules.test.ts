// Claude Code's path-scoped rules: kept out of the system prompt, told once by a notice appended
// after the first call that touches a matching file, so every request stays a prefix of the next.
import { afterEach, describe, expect, it } from "vitest";
import {
  assertPrefixRetained,
  fauxProvider,
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
    const agent = await startKernel({
      cwd: f.workspace,
      home: f.keelHome,
      userHome: f.home,
      model: model.model,
      streamOptions: model.streamOptions,
    });
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
