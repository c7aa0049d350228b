// Command files in a real kernel: registered in the one registry (source "custom", owner the file)
// only in a trusted project, a name Keel holds given up for the full name with one notice, and a
// command's prompt carrying its model and allowed-tools as options for that one run.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Diagnostic } from "@keel/extension-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { fauxProvider, kernelFixture } from "../../src/testing.js";

const fixtures: ReturnType<typeof kernelFixture>[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

async function kernel(trusted: boolean) {
  const f = kernelFixture({ name: "cmdkernel" });
  fixtures.push(f);
  const put = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  put(
    join(f.workspace, ".claude", "commands", "hello.md"),
    "---\nargument-hint: <who>\nallowed-tools: Bash(git log:*)\nmodel: anthropic/claude-haiku-4-5\n---\nSay hello to $1.",
  );
  put(join(f.workspace, ".claude", "commands", "init.md"), "Our own init.");
  put(join(f.home, ".claude", "commands", "mine.md"), "Mine, from the user's folder.");
  if (trusted) f.trust();
  const faux = fauxProvider({ turns: [] });
  const diagnostics: Diagnostic[] = [];
  const created = await createCodingAgent({
    cwd: f.workspace,
    home: f.keelHome,
    userHome: f.home,
    model: faux.model,
    streamOptions: faux.streamOptions,
    discoverExtensions: false,
    onEvent: (e) => {
      if (e.type === "diagnostic") diagnostics.push(e.diagnostic);
    },
  });
  if (created.isErr()) throw new Error(created.error.message);
  return { agent: created.value, diagnostics };
}

describe("command files in the kernel", () => {
  it("registers them as custom commands; Keel's /init keeps its name; the prompt carries the file's model and rules", async () => {
    const { agent, diagnostics } = await kernel(true);
    const custom = agent.commands.list().filter((c) => c.source.kind === "custom");
    expect(custom).toEqual([
      {
        name: "mine",
        description: "Mine, from the user's folder. (user)",
        source: { kind: "custom", owner: "~/.claude/commands/mine.md" },
      },
      {
        name: "hello",
        description: "Say hello to $1. (project)",
        argumentHint: "<who>",
        source: { kind: "custom", owner: ".claude/commands/hello.md" },
      },
      {
        name: "project:init",
        description: "Our own init. (project)",
        source: { kind: "custom", owner: ".claude/commands/init.md" },
      },
    ]);
    expect(agent.commands.get("init")?.source.kind).toBe("builtin");
    expect(diagnostics.filter((d) => d.message.includes("answer to their full name"))).toHaveLength(1);

    const ran = await agent.commands.run('/hello "the harbour master"');
    expect(ran._unsafeUnwrap()).toEqual({
      prompt: "Say hello to the harbour master.",
      promptOptions: { model: "anthropic/claude-haiku-4-5", allow: ["Bash(git log:*)"] },
    });
    await agent.close();
  });

  it("reads none of an untrusted project's files, and still the user's", async () => {
    const { agent } = await kernel(false);
    const names = agent.commands
      .list()
      .filter((c) => c.source.kind === "custom")
      .map((c) => c.name);
    expect(names).toEqual(["mine"]);
    await agent.close();
  });
});
