// The front ends read declarations, not names: a built-in tool added in one file (the kernel's
// test fixture) and an official extension's tool are shown by the TUI and print mode as their
// tools summarise them, with no table in the CLI; and no official tool's name appears in the
// kernel's or the CLI's sources outside its own package (the boundary this rests on).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Model } from "@keel/ai";
import { type CodingAgentEvent, createBuiltinTools, createCodingAgent } from "@keel/coding-agent";
import connector from "@keel/ext-connector";
import mcp from "@keel/ext-mcp";
import skills from "@keel/ext-skills";
import subagent from "@keel/ext-subagent";
import todo from "@keel/ext-todo";
import webSearch from "@keel/ext-web-search";
import { listTools } from "@keel/extension-sdk";
import { createFauxFetch, fauxModel, type Scenario } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createAppendTool } from "../../../packages/coding-agent/test/fixtures/append-tool.js";
import { toolTitle } from "../src/format.js";
import { eventLine } from "../src/print/events.js";
import { type ToolItem, Transcript } from "../src/tui/transcript.js";
import { validators } from "./print-schema.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "../../..");

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function run(
  scenario: Scenario,
  extensions: Parameters<typeof createCodingAgent>[0]["extensions"] = [],
) {
  dir = mkdtempSync(join(tmpdir(), "keel-declared-"));
  const transport = createFauxFetch(scenario);
  const events: CodingAgentEvent[] = [];
  const created = await createCodingAgent({
    cwd: dir,
    home: join(dir, ".home"),
    model: fauxModel("anthropic-messages") as Model,
    streamOptions: { fetch: transport.fetch, apiKey: "test" },
    permissionMode: "bypassPermissions",
    discoverExtensions: false,
    extensions,
    sessionDir: join(dir, ".sessions"),
    testing: { builtinTools: (cwd) => [createAppendTool(cwd)] },
    onEvent: (e) => events.push(e),
  });
  if (created.isErr()) throw new Error(created.error.message);
  const agent = created.value;
  await agent.prompt("go");
  return { agent, events };
}

const toolItems = (t: Transcript) => t.done.filter((i): i is ToolItem => i.kind === "tool");

describe("front ends show a call as its tool describes it", () => {
  it("a new built-in tool: the TUI line, a resumed history and the stream-json line", async () => {
    const { agent, events } = await run({
      turns: [
        { toolCalls: [{ name: "Append", arguments: { file: "notes.txt", text: "hello" } }] },
        { text: "ok" },
      ],
    });
    const live = new Transcript();
    for (const e of events) live.apply(e);
    const [item] = toolItems(live);
    expect(toolTitle(item!.name, item!.summary)).toBe("Append(5 chars to notes.txt)");

    const resumed = new Transcript();
    resumed.toolSummary = (name, args) => agent.describeToolCall(name, args).summary;
    resumed.replay(agent.history());
    expect(toolItems(resumed).map((i) => i.summary)).toEqual(["5 chars to notes.txt"]);

    const start = events.find((e) => e.type === "tool_start")!;
    const line = eventLine(start, null);
    expect(line).toMatchObject({
      type: "tool_start",
      toolName: "Append",
      summary: "5 chars to notes.txt",
      access: "write",
    });
    expect(validators().StreamLine(line), JSON.stringify(validators().StreamLine.errors)).toBe(true);
    await agent.close();
  });

  it("an extension's tool summarises itself: UpdateTodos is '2 items' with no table in the CLI", async () => {
    const { agent, events } = await run(
      {
        turns: [
          {
            toolCalls: [
              {
                name: "UpdateTodos",
                arguments: {
                  todos: [
                    { id: "1", content: "a", status: "in_progress" },
                    { id: "2", content: "b", status: "pending" },
                  ],
                },
              },
            ],
          },
          { text: "ok" },
        ],
      },
      [todo],
    );
    const start = events.find((e) => e.type === "tool_start");
    expect(start).toMatchObject({ toolName: "UpdateTodos", summary: "2 items", access: "none" });
    const live = new Transcript();
    for (const e of events) live.apply(e);
    expect(toolItems(live).map((i) => toolTitle(i.name, i.summary))).toEqual(["UpdateTodos(2 items)"]);
    await agent.close();
  });
});

function sources(root: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (/\.(ts|tsx|mts)$/.test(name)) out.push(path);
  }
  return out;
}

describe("the boundary: no tool is special-cased outside its own package", () => {
  const kernel = sources(join(repo, "packages/coding-agent/src"));
  const cli = sources(join(repo, "apps/cli/src"));
  const official = [todo, subagent, webSearch, skills, mcp, connector].flatMap((ext) =>
    listTools(ext as Parameters<typeof listTools>[0]).map((t) => t.name),
  );
  const builtins = createBuiltinTools({ cwd: tmpdir() }).map((t) => t.name);

  it("reads the official tools from the extensions themselves", () => {
    expect(official).toEqual(
      expect.arrayContaining([
        "UpdateTodos",
        "SpawnAgent",
        "GetAgentResult",
        "WebFetch",
        "WebSearch",
        "Skill",
      ]),
    );
    expect(builtins).toEqual(expect.arrayContaining(["Read", "Write", "Edit", "Bash", "Glob", "Grep", "LS"]));
  });

  it("no official extension tool is named anywhere in the kernel or the CLI", () => {
    const hits: string[] = [];
    for (const file of [...kernel, ...cli]) {
      const lines = readFileSync(file, "utf8").split("\n");
      lines.forEach((line, i) => {
        for (const name of official)
          if (new RegExp(`\\b${name}\\b`).test(line)) hits.push(`${relative(repo, file)}:${i + 1}: ${name}`);
      });
    }
    expect(hits).toEqual([]);
  });

  it("no built-in tool's name is a string in the CLI's code, nor in the kernel's outside its own file", () => {
    // The permission vocabulary (`Read(…)`, `Edit(…)`, `Bash(…)` rule words) is spelt once, in
    // rules.ts; each built-in tool names itself in its own file under src/tools/. Comments may
    // speak of them (a rule's syntax, an example); code may not test for them.
    const allowed = (file: string) =>
      file.endsWith(join("permissions", "rules.ts")) || file.includes(join("coding-agent", "src", "tools"));
    const hits: string[] = [];
    for (const file of [...kernel.filter((f) => !allowed(f)), ...cli]) {
      const lines = readFileSync(file, "utf8").split("\n");
      lines.forEach((line, i) => {
        const code = line.trimStart().startsWith("*") ? "" : line.replace(/\/\/.*$/, "");
        for (const name of builtins)
          if (new RegExp(`["']${name}["']`).test(code))
            hits.push(`${relative(repo, file)}:${i + 1}: ${name}`);
      });
    }
    expect(hits).toEqual([]);
  });
});
