// Command files read and expanded as Claude Code documents them: arguments split like a shell,
// `$ARGUMENTS` / `$1`…`$9` / `` !`cmd` `` filled in, front matter read leniently, subfolders naming
// the origin (not the command), and names taken by others giving way to the full name.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { splitToolRules as splitAllowedTools } from "@keel/extension-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type CommandRoot, commandRoots, discoverCommandFiles } from "../../src/commands/files/discover.js";
import {
  fillShellOutputs,
  shellCommands,
  splitArguments,
  substituteArguments,
} from "../../src/commands/files/expand.js";
import { nameFiles } from "../../src/commands/files/register.js";
import { kernelFixture } from "../../src/testing.js";

describe("expanding a command file's body", () => {
  it("splits arguments like a shell: quotes group, backslashes escape, an unclosed quote runs on", () => {
    expect(splitArguments(`src/a.ts "two words" 'single q' a\\ b`)).toEqual([
      "src/a.ts",
      "two words",
      "single q",
      "a b",
    ]);
    expect(splitArguments(`  `)).toEqual([]);
    expect(splitArguments(`x "say \\"hi\\""`)).toEqual(["x", 'say "hi"']);
    expect(splitArguments(`"open end`)).toEqual(["open end"]);
  });

  it("puts $ARGUMENTS and $1…$9 in place; a missing one is empty; $10 is not $1", () => {
    expect(substituteArguments("Review $1 ($2) — all: $ARGUMENTS; none: [$3]", `src/a.ts fast`)).toBe(
      "Review src/a.ts (fast) — all: src/a.ts fast; none: []",
    );
    expect(substituteArguments("cost $10", "a")).toBe("cost $10\n\nARGUMENTS: a");
    // `$&` in the arguments stays text (no replacement patterns).
    expect(substituteArguments("x $ARGUMENTS", "$& $1")).toBe("x $& $1");
  });

  it("appends what the user typed when the body names no argument, and nothing when they typed none", () => {
    expect(substituteArguments("Tidy up.", "the tests")).toBe("Tidy up.\n\nARGUMENTS: the tests");
    expect(substituteArguments("Tidy up.", "")).toBe("Tidy up.");
  });

  it("finds !`cmd` at a line start or after a space, in order, and fills their outputs in", () => {
    const text = "Status:\n!`git status --short`\nBranch: !`git branch --show-current` wow!`not this`";
    expect(shellCommands(text)).toEqual(["git status --short", "git branch --show-current"]);
    expect(fillShellOutputs(text, ["M a.ts\n", "main\n"])).toBe(
      "Status:\nM a.ts\nBranch: main wow!`not this`",
    );
  });

  it("splits allowed-tools on commas and spaces outside parentheses", () => {
    expect(splitAllowedTools("Bash(git add:*), Bash(git status:*) Read")).toEqual([
      "Bash(git add:*)",
      "Bash(git status:*)",
      "Read",
    ]);
  });
});

describe("finding command files", () => {
  const fixtures: ReturnType<typeof kernelFixture>[] = [];
  afterEach(() => {
    for (const f of fixtures.splice(0)) f.cleanup();
  });
  const setup = () => {
    const f = kernelFixture({ name: "cmdfiles" });
    fixtures.push(f);
    const put = (path: string, text: string) => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    };
    const roots = (trusted: boolean, claudeUserFiles = true): CommandRoot[] =>
      commandRoots({
        projectRoot: f.workspace,
        trusted,
        keelHome: f.keelHome,
        userHome: f.home,
        claudeUserFiles,
      });
    return { f, put, roots };
  };

  it("reads front matter leniently, defaults the description to the body's first line, and names subfolders as the origin", () => {
    const { f, put, roots } = setup();
    const dir = join(f.workspace, ".claude", "commands");
    put(
      join(dir, "review.md"),
      "---\ndescription: Review a file\nargument-hint: [file] [focus]\nallowed-tools: Bash(git diff:*), Read(/src/**)\nmodel: anthropic/claude-haiku-4-5\ndisable-model-invocation: true\n---\nReview $1.",
    );
    put(join(dir, "frontend", "component.md"), "# Make a component\n\nCall it $1.");
    // Not valid YAML as written (a colon in the value); read after quoting it.
    put(join(dir, "colon.md"), "---\ndescription: Fix: the thing\n---\nFix it.");
    const found = discoverCommandFiles(roots(true), f.workspace);
    const byName = Object.fromEntries(found.files.map((c) => [c.name, c]));
    expect(byName.review).toMatchObject({
      description: "Review a file",
      argumentHint: "[file] [focus]",
      allowedTools: ["Bash(git diff:*)", `Read(/${join(f.workspace, "src/**")})`],
      model: "anthropic/claude-haiku-4-5",
      disableModelInvocation: true,
      scope: "project",
      dirs: [],
      shown: ".claude/commands/review.md",
    });
    expect(byName.component).toMatchObject({ description: "Make a component", dirs: ["frontend"] });
    expect(byName.colon?.description).toBe("Fix: the thing");
    expect(found.problems).toEqual([expect.stringMatching(/^\.claude\/commands\/colon\.md: not valid YAML/)]);
  });

  it("reads nothing of an untrusted project, and ~/.claude only while claude.userFiles is on", () => {
    const { f, put, roots } = setup();
    put(join(f.workspace, ".claude", "commands", "p.md"), "Project.");
    put(join(f.home, ".claude", "commands", "u.md"), "User.");
    put(join(f.keelHome, "commands", "k.md"), "Keel user.");
    const names = (r: CommandRoot[]) => discoverCommandFiles(r, f.workspace).files.map((c) => c.shown);
    expect(names(roots(false))).toEqual(["~/.keel/commands/k.md", "~/.claude/commands/u.md"]);
    expect(names(roots(false, false))).toEqual(["~/.keel/commands/k.md"]);
    expect(names(roots(true))).toEqual([
      "~/.keel/commands/k.md",
      "~/.claude/commands/u.md",
      ".claude/commands/p.md",
    ]);
  });

  it("says once per bad file why it is not used: bad YAML, a bad name, a link out of the project, a bad rule", () => {
    const { f, put, roots } = setup();
    const dir = join(f.workspace, ".claude", "commands");
    put(join(dir, "broken.md"), "---\ndescription: [unclosed\n---\nBody.");
    put(join(dir, "has space.md"), "Body.");
    put(join(f.root, "outside.md"), "Secret.");
    symlinkSync(join(f.root, "outside.md"), join(dir, "linked.md"));
    put(join(dir, "rules.md"), "---\nallowed-tools: Bash(git status:*), Bad(rule\n---\nBody.");
    put(join(dir, "ok.md"), "Fine.");
    const found = discoverCommandFiles(roots(true), f.workspace);
    expect(found.files.map((c) => c.name).sort()).toEqual(["ok", "rules"]);
    expect(found.files.find((c) => c.name === "rules")?.allowedTools).toEqual(["Bash(git status:*)"]);
    expect(found.problems).toHaveLength(4);
    expect(found.problems.join("\n")).toMatch(/broken\.md: .*fix its front matter/);
    expect(found.problems.join("\n")).toMatch(/"has space" cannot be part of a command name/);
    expect(found.problems.join("\n")).toMatch(/linked\.md: links outside the project/);
    expect(found.problems.join("\n")).toMatch(
      /rules\.md: allowed-tools: "Bad\(rule" is not a permission rule/,
    );
  });

  it("gives a taken name up for the full name: Keel's commands first, then the user's files over the project's", () => {
    const { f, put, roots } = setup();
    put(join(f.workspace, ".claude", "commands", "init.md"), "Project init.");
    put(join(f.workspace, ".claude", "commands", "review.md"), "Project review.");
    put(join(f.workspace, ".claude", "commands", "docs", "review.md"), "Docs review.");
    put(join(f.home, ".claude", "commands", "review.md"), "User review.");
    put(join(f.workspace, ".keel", "commands", "same.md"), "Keel's.");
    put(join(f.workspace, ".claude", "commands", "same.md"), "Claude's.");
    put(join(f.keelHome, "commands", "init.md"), "Keel user init.");
    put(join(f.home, ".claude", "commands", "init.md"), "Claude user init.");
    const found = discoverCommandFiles(roots(true), f.workspace);
    const { named, problems } = nameFiles(found.files, (name) =>
      name === "init" ? "Keel's own" : undefined,
    );
    expect(Object.fromEntries(named.map((n) => [n.file.shown, n.name]))).toEqual({
      "~/.claude/commands/review.md": "review",
      ".keel/commands/same.md": "same",
      ".claude/commands/same.md": "project:same",
      "~/.keel/commands/init.md": "user:init",
      ".claude/commands/init.md": "project:init",
      ".claude/commands/review.md": "project:review",
      ".claude/commands/docs/review.md": "project:docs:review",
    });
    expect(named.find((n) => n.name === "project:init")?.displacedBy).toBe("Keel's own");
    expect(problems).toEqual([
      "~/.claude/commands/init.md: /user:init is already ~/.keel/commands/init.md; this file is not used",
    ]);
  });
});
