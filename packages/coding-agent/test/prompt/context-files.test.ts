// Context files are read within bounds and only when trust admits them: regular files only
// (a link to /dev/zero or a FIFO is refused, never read), at most 64 KB, never past a Read
// deny rule, and a repository nested in an untrusted one does not open the outer one's files.
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
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
  const { files, reports } = await loadFiles(cwd, extra);
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

describe("Claude Code's memory files", () => {
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };

  it("reads AGENTS.md, CLAUDE.md, .claude/CLAUDE.md and CLAUDE.local.md of a folder, in that order", async () => {
    box = sandbox();
    write(join(box.workspace, "CLAUDE.md"), "claude");
    write(join(box.workspace, "AGENTS.md"), "agents");
    write(join(box.workspace, ".claude", "CLAUDE.md"), "dot claude");
    write(join(box.workspace, "CLAUDE.local.md"), "local");
    const { contents } = await load(box.workspace);
    expect(contents).toEqual(["agents", "claude", "dot claude", "local"]);
  });

  it("has one file once: CLAUDE.md linked to AGENTS.md, or the same text under both names", async () => {
    box = sandbox();
    write(join(box.workspace, "AGENTS.md"), "shared rules\n");
    symlinkSync("AGENTS.md", join(box.workspace, "CLAUDE.md"));
    write(join(box.workspace, "sub", "AGENTS.md"), "same text");
    write(join(box.workspace, "sub", "CLAUDE.md"), "same text\n\n");
    const { contents, reports } = await load(join(box.workspace, "sub"));
    expect(contents).toEqual(["shared rules\n", "same text"]);
    expect(reports).toEqual([]);
  });

  it("reads ~/.claude/CLAUDE.md and ~/.claude/rules only when given the folder (the opt-out leaves it out)", async () => {
    box = sandbox();
    const claudeHome = join(box.home, "..", "user", ".claude");
    write(join(claudeHome, "CLAUDE.md"), "my own habits");
    write(join(claudeHome, "rules", "tone.md"), "be terse");
    write(join(box.workspace, "AGENTS.md"), "project");
    expect((await load(box.workspace, { claudeHome })).contents).toEqual([
      "my own habits",
      "be terse",
      "project",
    ]);
    expect((await load(box.workspace)).contents).toEqual(["project"]);
  });

  it("follows @imports: relative to the importing file, ~/ in the user's home, nested, each file once, a cycle ends", async () => {
    box = sandbox();
    const userHome = join(box.home, "..", "user");
    write(join(userHome, ".claude", "mine.md"), "personal notes");
    write(
      join(box.workspace, "CLAUDE.md"),
      "See @docs/style.md and @~/.claude/mine.md for more.\nMail me@example.com, ask @someone, browse @docs/.",
    );
    write(join(box.workspace, "docs", "style.md"), "style: @nested/deep.md");
    write(
      join(box.workspace, "docs", "nested", "deep.md"),
      "deep, back to @../style.md and @../../CLAUDE.md",
    );
    const { files, reports } = await loadFiles(box.workspace, { claudeHome: join(userHome, ".claude") });
    expect(files.map((f) => f.content)).toEqual([
      "See @docs/style.md and @~/.claude/mine.md for more.\nMail me@example.com, ask @someone, browse @docs/.",
      "style: @nested/deep.md",
      "deep, back to @../style.md and @../../CLAUDE.md",
      "personal notes",
    ]);
    expect(reports).toEqual([]);
  });

  it("does not import from code spans or fenced blocks", async () => {
    box = sandbox();
    write(join(box.workspace, "a.md"), "A");
    write(join(box.workspace, "b.md"), "B");
    write(join(box.workspace, "c.md"), "C");
    write(join(box.workspace, "CLAUDE.md"), "use `@a.md` literally\n```\n@b.md\n```\nbut @c.md counts");
    const { contents } = await load(box.workspace);
    expect(contents).toEqual(["use `@a.md` literally\n```\n@b.md\n```\nbut @c.md counts", "C"]);
  });

  it("leaves out an import outside the project with one notice, and one a Read deny rule covers", async () => {
    box = sandbox();
    const outside = join(box.home, "..", "elsewhere.md");
    write(outside, "OUTSIDE TEXT");
    write(join(box.workspace, ".env.md"), "SECRET TEXT");
    write(join(box.workspace, "CLAUDE.md"), `@${outside}\n@${outside}\n@.env.md`);
    write(join(box.workspace, "sub", "AGENTS.md"), `@../../elsewhere.md`);
    const denied = async (path: string) => (path.endsWith(".env.md") ? "denied by Read(.env*)" : undefined);
    const { contents, reports } = await load(join(box.workspace, "sub"), { denied });
    expect(contents.join("\n")).not.toMatch(/OUTSIDE TEXT|SECRET TEXT/);
    expect(reports.filter((r) => r.includes("elsewhere.md"))).toHaveLength(1);
    expect(reports.join("\n")).toMatch(
      /elsewhere\.md \(imported by .*CLAUDE\.md\) is not in the system prompt/,
    );
    expect(reports.join("\n")).toMatch(/\.env\.md is not in the system prompt: denied by Read\(\.env\*\)/);
  });

  it("takes out block-level HTML comments (and the imports inside them), as Claude Code does; code keeps them", async () => {
    box = sandbox();
    write(join(box.workspace, "hidden.md"), "HIDDEN");
    write(
      join(box.workspace, "CLAUDE.md"),
      "<!-- maintainers: @hidden.md -->\nkeep\n<!--\nmulti\nline -->\ntext <!-- inline stays -->\n```\n<!-- in code -->\n```",
    );
    const { contents } = await load(box.workspace);
    expect(contents).toEqual(["keep\ntext <!-- inline stays -->\n```\n<!-- in code -->\n```"]);
    write(join(box.workspace, "CLAUDE.md"), "before\n<!-- never closed\nafter");
    expect((await load(box.workspace)).contents).toEqual(["before\n<!-- never closed\nafter"]);
  });

  it("leaves out a project rule linked outside the project, and takes a linked rule in ~/.claude/rules", async () => {
    box = sandbox();
    const dotfiles = join(box.home, "..", "dotfiles");
    write(join(dotfiles, "secret.md"), "PRIVATE KEY");
    write(join(dotfiles, "mine.md"), "my shared rule");
    mkdirSync(join(box.workspace, ".claude", "rules"), { recursive: true });
    symlinkSync(join(dotfiles, "secret.md"), join(box.workspace, ".claude", "rules", "x.md"));
    const claudeHome = join(box.home, "..", "user", ".claude");
    mkdirSync(join(claudeHome, "rules"), { recursive: true });
    symlinkSync(join(dotfiles, "mine.md"), join(claudeHome, "rules", "mine.md"));
    const { contents, reports } = await load(box.workspace, { claudeHome });
    expect(contents).toEqual(["my shared rule"]);
    expect(reports.join("\n")).toMatch(
      /rules\/x\.md is not in the system prompt: it leads outside the project/,
    );
  });

  it("follows imports at most five hops deep", async () => {
    box = sandbox();
    for (let i = 1; i <= 7; i++) write(join(box.workspace, `f${i}.md`), `level ${i} @f${i + 1}.md`);
    write(join(box.workspace, "CLAUDE.md"), "@f1.md");
    const { contents, reports } = await load(box.workspace);
    expect(contents).toEqual(["@f1.md", ...[1, 2, 3, 4, 5].map((i) => `level ${i} @f${i + 1}.md`)]);
    expect(reports.join("\n")).toMatch(/f5\.md: its imports are not followed \(more than 5 hops/);
  });

  it("reads .claude/rules/**: rules without paths go in, rules with paths are kept aside with their globs", async () => {
    box = sandbox();
    write(join(box.workspace, ".claude", "rules", "general.md"), "always tabs");
    write(
      join(box.workspace, ".claude", "rules", "web", "react.md"),
      '---\npaths:\n  - "src/**/*.tsx"\n---\nhooks at the top',
    );
    write(
      join(box.workspace, ".claude", "rules", "api.md"),
      "---\npaths: api/**/*.{ts,js}, lib/*.ts\n---\nvalidate input",
    );
    // Unquoted globs YAML would read as aliases, as Claude Code takes them.
    write(join(box.workspace, ".claude", "rules", "z.md"), "---\npaths: **/*.go, **/go.mod\n---\ngo fmt");
    write(join(box.workspace, ".claude", "rules", "zz.md"), "---\npaths:\n  - **/*.py\n---\nblack");
    // Lenient like Claude Code: an unquoted ": " in a value does not lose the rule.
    write(
      join(box.workspace, ".claude", "rules", "notes.md"),
      "---\ndescription: note: this\n---\nwrite notes",
    );
    const { files, reports } = await loadFiles(box.workspace);
    expect(files.map((f) => [f.content, f.scope?.patterns])).toEqual([
      ["validate input", ["api/**/*.{ts,js}", "lib/*.ts"]],
      ["always tabs", undefined],
      ["write notes", undefined],
      ["hooks at the top", ["src/**/*.tsx"]],
      ["go fmt", ["**/*.go", "**/go.mod"]],
      ["black", ["**/*.py"]],
    ]);
    expect(files[0]!.scope!.base).toBe(box.workspace);
    expect(reports).toEqual([]);
  });
});

async function loadFiles(cwd: string, extra: Partial<ContextFileOptions> = {}) {
  const reports: string[] = [];
  const files = await loadContextFiles({
    cwd,
    home: box.home,
    projectRoot: box.workspace,
    trusted: true,
    report: (message) => reports.push(message),
    ...extra,
  });
  return { files, reports };
}
