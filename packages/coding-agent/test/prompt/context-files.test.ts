// Context files are read within bounds and only when trust admits them: regular files only
// (a link to /dev/zero or a FIFO is refused, never read), at most 64 KB, never past a Read
// deny rule, and a repository nested in an untrusted one does not open the outer one's files.
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ContextFileOptions,
  loadContextFiles,
  MAX_CONTEXT_BYTES,
} from "../../src/prompt/context-files.js";
import { type Sandbox, sandbox } from "../kernel/helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

async function load(cwd: string, extra: Partial<ContextFileOptions> = {}) {
  const reports: string[] = [];
  const files = await loadContextFiles({
    cwd,
    home: box.home,
    projectRoot: box.workspace,
    trusted: true,
    report: (message) => reports.push(message),
    ...extra,
  });
  return { contents: files.map((f) => f.content), reports };
}

describe("context files", () => {
  it("refuses a link to /dev/zero and a FIFO, says so, and reads on", async () => {
    box = sandbox();
    const sub = join(box.workspace, "sub");
    mkdirSync(join(sub, "fifo"), { recursive: true });
    writeFileSync(join(box.workspace, "AGENTS.md"), "root rules");
    symlinkSync("/dev/zero", join(sub, "AGENTS.md"));
    execFileSync("mkfifo", [join(sub, "fifo", "CLAUDE.md")]);
    const { contents, reports } = await load(join(sub, "fifo"));
    expect(contents).toEqual(["root rules"]);
    expect(reports).toHaveLength(2);
    expect(reports.join("\n")).toMatch(/sub\/AGENTS\.md is not in the system prompt: not a regular file/);
    expect(reports.join("\n")).toMatch(/fifo\/CLAUDE\.md is not in the system prompt: not a regular file/);
  });

  it("reads at most 64 KB of a context file and says it was cut", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "AGENTS.md"), "x".repeat(MAX_CONTEXT_BYTES + 1000));
    const { contents, reports } = await load(box.workspace);
    expect(contents[0]).toHaveLength(MAX_CONTEXT_BYTES);
    expect(reports[0]).toMatch(/only its first 65536 bytes/);
  });

  it("leaves out a file a Read deny rule covers, by its path or where its link leads", async () => {
    box = sandbox();
    const secret = join(box.home, "..", "secret.txt");
    writeFileSync(secret, "KEY MATERIAL");
    mkdirSync(join(box.workspace, "sub"));
    symlinkSync(secret, join(box.workspace, "sub", "AGENTS.md"));
    const denied = async (path: string) =>
      path.endsWith("secret.txt") ? "denied by Read(secret)" : undefined;
    const { contents, reports } = await load(join(box.workspace, "sub"), { denied });
    expect(contents.join("")).not.toContain("KEY MATERIAL");
    expect(reports[0]).toMatch(/sub\/AGENTS\.md is not in the system prompt: denied by Read\(secret\)/);
  });

  it("does not read an outer repository's file for a repository nested in it, unless that one is trusted", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "AGENTS.md"), "OUTER");
    const inner = join(box.workspace, "vendor", "inner");
    mkdirSync(join(inner, ".git"), { recursive: true });
    writeFileSync(join(inner, "AGENTS.md"), "INNER");
    const asked: string[] = [];
    const untrusted = await load(inner, {
      projectRoot: inner,
      trustAbove: (outer) => {
        asked.push(outer);
        return "untrusted";
      },
    });
    expect(untrusted.contents).toEqual(["INNER"]);
    expect(asked).toContain(box.workspace);
    expect(untrusted.reports.join("\n")).toMatch(/belongs to .*a project that is not trusted/);
    const trusted = await load(inner, { projectRoot: inner, trustAbove: () => "trusted" });
    expect(trusted.contents).toEqual(["OUTER", "INNER"]);
  });
});
