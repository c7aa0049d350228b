// The system prompt's context files: the Keel home's, then each directory from the root down to
// cwd; for an untrusted project none but the Keel home's is read. Through the kernel the prompt carries them,
// with cwd and date, and stays byte-identical for the whole session.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent, trustProject } from "../../src/index.js";
import { loadContextFiles } from "../../src/prompt/context-files.js";
import { faux, type Sandbox, sandbox } from "../kernel/helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

function layout() {
  box = sandbox();
  const sub = join(box.workspace, "pkg", "deep");
  mkdirSync(sub, { recursive: true });
  writeFileSync(join(box.home, "AGENTS.md"), "home rules");
  writeFileSync(join(box.workspace, "..", "AGENTS.md"), "outer rules"); // above the project root
  writeFileSync(join(box.workspace, "AGENTS.md"), "project rules");
  writeFileSync(join(box.workspace, "pkg", "CLAUDE.md"), "package rules (CLAUDE.md)");
  return sub;
}

describe("context files", () => {
  it("reads home, ancestors and the trusted project from the root down, AGENTS.md before CLAUDE.md", async () => {
    const cwd = layout();
    const files = await loadContextFiles({ cwd, home: box.home, projectRoot: box.workspace, trusted: true });
    expect(files.map((f) => f.content)).toEqual([
      "home rules",
      "outer rules",
      "project rules",
      "package rules (CLAUDE.md)",
    ]);
  });

  it("says so when a context file exists but cannot be read, and leaves it out", async () => {
    const cwd = layout();
    mkdirSync(join(box.workspace, "pkg", "deep", "AGENTS.md")); // exists, but EISDIR on read
    const reports: string[] = [];
    const files = await loadContextFiles({
      cwd,
      home: box.home,
      projectRoot: box.workspace,
      trusted: true,
      report: (m) => reports.push(m),
    });
    expect(files.map((f) => f.content)).toEqual([
      "home rules",
      "outer rules",
      "project rules",
      "package rules (CLAUDE.md)",
    ]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain(join("pkg", "deep", "AGENTS.md"));
    expect(reports[0]).toContain("not in the system prompt");
  });

  it("reads nothing of an untrusted project, nor of the folders above it", async () => {
    const cwd = layout();
    const files = await loadContextFiles({ cwd, home: box.home, projectRoot: box.workspace, trusted: false });
    expect(files.map((f) => f.content)).toEqual(["home rules"]);
  });

  it("goes into a system prompt with cwd and date that never changes mid-session", async () => {
    const cwd = layout();
    trustProject(box.workspace, { home: box.home });
    const f = faux({
      turns: [{ toolCalls: [{ name: "LS", arguments: {} }] }, { text: "done" }, { text: "again" }],
    });
    const agent = (
      await createCodingAgent({
        cwd,
        home: box.home,
        model: f.model,
        streamOptions: f.streamOptions,
        appendSystemPrompt: "Be terse.",
      })
    )._unsafeUnwrap();
    await agent.prompt("look");
    writeFileSync(join(box.workspace, "AGENTS.md"), "edited mid-session");
    await agent.prompt("and again");
    await agent.close();
    const systems = f.requests.map((r) => JSON.stringify(r.body.system));
    expect(new Set(systems).size).toBe(1);
    const system = (f.requests[0]!.body.system as { text: string }[])[0]!.text;
    for (const text of ["home rules", "outer rules", "project rules", "package rules", "Be terse."])
      expect(system).toContain(text);
    expect(system).toContain(`Working directory: ${cwd}`);
    expect(system).toMatch(/Date: \d{4}-\d{2}-\d{2}/);
    expect(system).not.toContain("edited mid-session");
  });
});
