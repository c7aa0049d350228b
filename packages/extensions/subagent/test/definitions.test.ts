// Agent definitions: Keel's and Claude Code's markdown read as written, bad files refused with why,
// JavaScript front matter never run, precedence and trust of the folders, re-reading on change,
// and the model a definition names.
import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ModelsAccess } from "@keel/extension-sdk";

type Model = ReturnType<ModelsAccess["current"]>;

import { afterEach, describe, expect, it } from "vitest";
import { AgentFiles, agentFolders, chooseModel, parseDefinition, subagentExtension } from "../src/index.js";
import { type Sandbox, sandbox } from "./harness.js";

let box: Sandbox | undefined;
afterEach(() => box?.cleanup());

const KEEL_REVIEWER = `---
name: reviewer
description: Reviews a diff for bugs and missing tests.
tools: [Read, Grep]
model: anthropic/claude-haiku-5-5
maxTurns: 6
---
You review diffs. List each problem with file and line.
`;

// A definition as Claude Code users keep it in .claude/agents/, unchanged.
const CLAUDE_AUDITOR = `---
name: security-auditor
description: Use PROACTIVELY after changes to auth code. Audits for vulnerabilities.
tools: Read, Grep, Glob, Task(explore)
disallowedTools: Bash
model: sonnet
permissionMode: plan
color: red
---

You are a security auditor.
`;

describe("parseDefinition", () => {
  it("reads Keel's format: name, description, tools, model, maxTurns, body as instructions", () => {
    const parsed = parseDefinition(KEEL_REVIEWER, "/x/reviewer.md", "project", "reviewer")._unsafeUnwrap();
    expect(parsed).toMatchObject({
      name: "reviewer",
      description: "Reviews a diff for bugs and missing tests.",
      tools: ["Read", "Grep"],
      model: "anthropic/claude-haiku-5-5",
      maxTurns: 6,
      instructions: "You review diffs. List each problem with file and line.",
      source: "project",
      notes: [],
    });
  });

  it("reads Claude Code's format unchanged, and says what has no effect", () => {
    const parsed = parseDefinition(CLAUDE_AUDITOR, "/x/a.md", "claude", "a")._unsafeUnwrap();
    expect(parsed).toMatchObject({
      name: "security-auditor",
      tools: ["Read", "Grep", "Glob"],
      disallowedTools: ["Bash"],
      model: "sonnet",
      instructions: "You are a security auditor.",
    });
    expect(parsed.notes).toEqual([
      "tools: Task(explore) has no effect (child agents do not start agents)",
      "permissionMode: children run under the session's permission mode and rules, never another",
      "color: not shown",
    ]);
  });

  it("takes the file's stem as name when front matter has none; inherit means the parent's model", () => {
    const parsed = parseDefinition(
      "---\ndescription: d\nmodel: inherit\n---\nbody",
      "/x/helper.md",
      "user",
      "helper",
    );
    expect(parsed._unsafeUnwrap()).toMatchObject({ name: "helper", instructions: "body" });
    expect(parsed._unsafeUnwrap().model).toBeUndefined();
  });

  it("refuses a file with no description, a bad name, a bad maxTurns or a bad tools list, saying why", () => {
    const why = (text: string) => parseDefinition(text, "/x/f.md", "user", "f")._unsafeUnwrapErr().message;
    expect(why("---\nname: f\n---\nbody")).toMatch(/needs a description/);
    expect(why("---\nname: Not Valid\ndescription: d\n---\n")).toMatch(
      /lowercase letters, digits and dashes/,
    );
    expect(why("---\ndescription: d\nmaxTurns: 0\n---\n")).toMatch(/maxTurns must be a whole number/);
    expect(why("---\ndescription: d\ntools: {a: 1}\n---\n")).toMatch(/tools must be a list/);
    expect(why("---\ndescription: [unclosed\n---\n")).toMatch(/front matter could not be read/);
  });

  it("never runs JavaScript front matter", () => {
    const marker = "__keelSubagentFrontMatterRan";
    const text = `---js\n{ description: (globalThis.${marker} = true, "evil") }\n---\nbody`;
    const parsed = parseDefinition(text, "/x/evil.md", "project", "evil");
    expect(parsed._unsafeUnwrapErr().message).toMatch(/"---js" is not read \(never evaluated\)/);
    expect((globalThis as Record<string, unknown>)[marker]).toBeUndefined();
  });
});

describe("AgentFiles", () => {
  const write = (dir: string, name: string, description: string) =>
    writeFileSync(
      join(dir, name),
      `---\nname: ${name.replace(/\.md$/, "")}\ndescription: ${description}\n---\nbody`,
    );

  it("lets a project replace the user's agent and the user's replace a built-in; an untrusted project is not read", () => {
    box = sandbox();
    const user = box.write("home/.keel/agents/.keep", "");
    const claude = box.write("repo/.claude/agents/.keep", "");
    const project = box.write("repo/.keel/agents/.keep", "");
    write(join(user, ".."), "explore.md", "the user's explorer");
    write(join(user, ".."), "helper.md", "the user's helper");
    write(join(claude, ".."), "helper.md", "the project's Claude Code helper");
    write(join(project, ".."), "helper.md", "the project's Keel helper");
    write(join(project, ".."), "reviewer.md", "the project's reviewer");
    const workspace = { cwd: box.workspace, projectRoot: box.workspace, keelHome: box.home };

    const trusted = new AgentFiles(agentFolders({ ...workspace, trusted: true }));
    expect(trusted.refresh()?.problems).toEqual([]);
    const agents = trusted.set.agents;
    expect([...agents.keys()]).toEqual(["general-purpose", "explore", "helper", "reviewer"]);
    expect(agents.get("explore")!.description).toBe("the user's explorer");
    expect(agents.get("helper")!.description).toBe("the project's Keel helper");
    expect(trusted.set.replaced.map((a) => a.source)).toEqual(["builtin", "user", "claude"]);

    const untrusted = new AgentFiles(agentFolders({ ...workspace, trusted: false }));
    untrusted.refresh();
    expect([...untrusted.set.agents.keys()]).toEqual(["general-purpose", "explore", "helper"]);
    expect(untrusted.set.agents.get("helper")!.source).toBe("user");
  });

  it("reads subfolders and ~/.claude/agents (when the host gives it), leniently, a bad file a problem of its own", () => {
    box = sandbox();
    const claudeHome = join(box.workspace, "..", "user", ".claude");
    const personal = join(box.write("user/.claude/agents/.keep", ""), "..");
    const project = join(box.write("repo/.claude/agents/review/.keep", ""), "..");
    write(personal, "mine.md", "my personal agent");
    // Claude Code's generated descriptions: an unquoted `: ` inside the value.
    writeFileSync(
      join(project, "reviewer.md"),
      '---\nname: reviewer\ndescription: Use after a change. Examples: user: "check this" assistant: "on it"\ntools: Read\n---\nReview.',
    );
    writeFileSync(join(project, "deep.md"), "---\nname: Not A Name\ndescription: x\n---\n");
    const workspace = { cwd: box.workspace, projectRoot: box.workspace, keelHome: box.home, trusted: true };
    const files = new AgentFiles(agentFolders({ ...workspace, claudeHome }));
    const outcome = files.refresh();
    expect(outcome?.problems).toEqual([
      { path: join(project, "deep.md"), message: expect.stringMatching(/must be lowercase/) },
    ]);
    const reviewer = files.set.agents.get("reviewer")!;
    expect(reviewer.description).toBe('Use after a change. Examples: user: "check this" assistant: "on it"');
    expect(reviewer.tools).toEqual(["Read"]);
    expect(reviewer.notes.join("\n")).toMatch(/read after quoting description/);
    expect(files.set.agents.get("mine")?.path).toBe(join(personal, "mine.md"));
    const without = new AgentFiles(agentFolders(workspace));
    without.refresh();
    expect(without.set.agents.has("mine")).toBe(false);
    expect(without.set.agents.has("reviewer")).toBe(true);
  });

  it("reads the user's folder again when it changes, a project's only at session start", () => {
    box = sandbox();
    const userDir = join(box.write("home/.keel/agents/.keep", ""), "..");
    const projectDir = join(box.write("repo/.keel/agents/.keep", ""), "..");
    const files = new AgentFiles(
      agentFolders({ cwd: box.workspace, projectRoot: box.workspace, keelHome: box.home, trusted: true }),
    );
    expect(files.refresh()).toEqual({ changed: false, problems: [] });
    expect(files.refresh()).toBeUndefined();
    write(userDir, "helper.md", "first");
    expect(files.refresh()?.changed).toBe(true);
    write(userDir, "helper.md", "second, longer");
    utimesSync(join(userDir, "helper.md"), new Date(), new Date(Date.now() + 5000));
    expect(files.refresh()?.changed).toBe(true);
    expect(files.set.agents.get("helper")!.description).toBe("second, longer");
    writeFileSync(join(userDir, "broken.md"), "---\nname: broken\n---\n");
    expect(files.refresh()).toMatchObject({ changed: false, problems: [{ message: /needs a description/ }] });
    write(projectDir, "late.md", "added after the session started");
    expect(files.refresh()).toBeUndefined();
    expect(files.set.agents.has("late")).toBe(false);
  });
});

describe("trustPreview", () => {
  it("lists what a project's agents would add, with their tools and model, and files it would not use", async () => {
    box = sandbox();
    box.write("repo/.keel/agents/reviewer.md", KEEL_REVIEWER);
    box.write("repo/.claude/agents/auditor.md", CLAUDE_AUDITOR);
    box.write("repo/.keel/agents/broken.md", "---\nname: broken\n---\n");
    box.write("home/.keel/agents/mine.md", "---\ndescription: the user's own\n---\n");
    const lines = await subagentExtension.trustPreview!(
      { cwd: box.workspace, projectRoot: box.workspace },
      { signal: new AbortController().signal },
    );
    expect(lines).toEqual([
      "agent security-auditor (.claude/agents/auditor.md): Use PROACTIVELY after changes to auth code. Audits for vulnerabilities.; tools Read, Grep, Glob; model sonnet",
      "agent reviewer (.keel/agents/reviewer.md): Reviews a diff for bugs and missing tests.; tools Read, Grep; model anthropic/claude-haiku-5-5",
      "agent file .keel/agents/broken.md would not be used: it needs a description (when to use the agent): the model chooses agents by it",
    ]);
  });
});

describe("chooseModel", () => {
  const model = (provider: string, id: string, legacy = false) =>
    ({ provider, id, legacy }) as unknown as Model;
  const list = [
    model("anthropic", "claude-opus-5-5"),
    model("anthropic", "claude-sonnet-5-5"),
    model("anthropic", "claude-haiku-5-5"),
    model("anthropic", "claude-sonnet-4-6", true),
    model("openai", "gpt-6.2"),
  ];
  const access = (current: Model): ModelsAccess => ({
    current: () => current,
    list: () => list,
    resolve: (ref) => list.find((m) => `${m.provider}/${m.id}` === ref || m.id === ref),
    complete: async () => ({ ok: false, error: { type: "x", message: "x" } }),
    serverTools: () => [],
  });

  it("passes provider/id on, qualifies a known bare id, maps Claude Code's aliases to the newest of the family", () => {
    const anthropic = access(list[0]!);
    const chosen = (ref: string | undefined) => chooseModel(ref, anthropic)._unsafeUnwrap();
    expect(chosen(undefined)).toEqual({});
    expect(chosen("inherit")).toEqual({});
    expect(chosen("openai/gpt-6.2")).toEqual({ model: "openai/gpt-6.2" });
    expect(chosen("gpt-6.2")).toEqual({ model: "openai/gpt-6.2" });
    expect(chosen("sonnet")).toEqual({ model: "anthropic/claude-sonnet-5-5" });
    expect(chosen("haiku")).toEqual({ model: "anthropic/claude-haiku-5-5" });
  });

  it("keeps the session's model for an alias on another provider, and refuses an unknown id", () => {
    const openai = access(list[4]!);
    const alias = chooseModel("sonnet", openai)._unsafeUnwrap();
    expect(alias.note).toMatch(/this session runs openai/);
    expect(alias.model).toBeUndefined();
    expect(chooseModel("gpt-7", openai)._unsafeUnwrapErr()).toMatchObject({
      type: "unknown_model",
      message: /not one this session knows/,
    });
  });
});
