// Commands in print mode come from the kernel's one registry: /help lists it (built-in and the
// official extensions' commands, none of the TUI's own); an unknown /command is refused with exit 2
// and the close match, and nothing reaches the model; an MCP server's prompt, known from its last
// listing, runs in `keel -p` (connecting the server) and its text is what the model gets; with the
// todo extension off there is no /todos. And no command name is special-cased in the CLI's source
// outside the module that defines the command.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { RecordedRequest } from "@keel/testing";
import { describe, expect, it } from "vitest";
import type { Controller } from "../src/tui/controller.js";
import { tuiCommands } from "../src/tui/host-commands.js";
import { CLI_ROOT, lines, MODEL, mockSuite, runKeel, type Workspace } from "./helpers.js";

const suite = mockSuite();
const MARKER = fileURLToPath(new URL("./mcp-fixtures/marker-server.mjs", import.meta.url));
const args = (ws: Workspace) => ["--model", MODEL, "--cwd", ws.repo];

function configure(ws: Workspace, extra: Record<string, unknown> = {}): void {
  writeFileSync(
    join(ws.home, "config.json"),
    JSON.stringify({
      permissions: { allow: ["mcp__marker"] },
      extensions: {
        mcp: {
          config: {
            servers: { marker: { command: process.execPath, args: [MARKER], env: { PROMPTS: "1" } } },
          },
        },
        ...extra,
      },
    }),
  );
}

type Json = Record<string, unknown>;
const userTexts = (r: RecordedRequest | undefined): string[] =>
  ((r?.body.messages ?? []) as Json[])
    .filter((m) => m.role === "user")
    .flatMap((m) =>
      typeof m.content === "string"
        ? [m.content]
        : (m.content as Json[]).flatMap((b) => (typeof b.text === "string" ? [b.text] : [])),
    );

/** The names `keel -p /help` lists: what the registry holds in print mode. */
function helpNames(stdout: string): string[] {
  return [...stdout.matchAll(/^\/(\S+)/gm)].map((m) => m[1]!);
}

describe("keel -p and the command registry", () => {
  it("/help lists the registry; an unknown command exits 2 with the close match and never reaches the model", async () => {
    const { server, ws } = suite.fresh([]);
    const help = await runKeel(["-p", "/help", ...args(ws)], { server, ws });
    expect(help.code, help.stderr).toBe(0);
    const names = helpNames(help.stdout);
    // Built-in commands and the official extensions' own, from the one registry.
    expect(names).toEqual(
      expect.arrayContaining(["help", "model", "compact", "trust", "todos", "skills", "mcp"]),
    );
    // The TUI's own commands are not print mode's.
    expect(names).not.toContain("quit");
    expect(names).not.toContain("resume");

    const typo = await runKeel(["-p", "/compcat now", ...args(ws)], { server, ws });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Unknown command /compcat.");
    expect(typo.stderr).not.toContain("Did you mean");
    const near = await runKeel(["-p", "/forc", ...args(ws), "--output-format", "json"], { server, ws });
    expect(near.code).toBe(2);
    expect(near.stderr).toContain("Unknown command /forc. Did you mean /fork?");
    expect(near.stdout).toBe("");
    // The TUI's /quit is no command here either.
    const quit = await runKeel(["-p", "/quit", ...args(ws)], { server, ws });
    expect(quit.code).toBe(2);
    expect(quit.stderr).toContain("Unknown command /quit.");
    expect(server.requests).toHaveLength(0);
  });

  it("an MCP prompt known from the server's last listing runs in -p; a mistyped one is refused with it as the match", async () => {
    const { server, ws } = suite.fresh([
      { toolCalls: [{ name: "SearchTools", arguments: { query: "mcp__marker__hello" } }] },
      { toolCalls: [{ name: "ExecuteTool", arguments: { toolRef: "mcp__marker__hello", arguments: {} } }] },
      { text: "Listed." },
    ]);
    configure(ws);
    // A first run waits for the server (its search needs it), so its listing is kept: tools, then
    // prompts, answered in order before the call that follows them.
    const first = await runKeel(["-p", "look for hello", ...args(ws)], { server, ws });
    expect(first.code, first.stderr).toBe(0);

    server.setScenario({ turns: [{ text: "Reviewed." }] });
    server.requests.length = 0;
    const ran = await runKeel(
      ["-p", "/mcp__marker__review src/a.ts", ...args(ws), "--output-format", "stream-json"],
      { server, ws },
    );
    expect(ran.code, ran.stderr).toBe(0);
    // The prompt's text (from prompts/get, its argument filled in) is what the model was sent.
    expect(userTexts(server.requests[0])).toContain("Review src/a.ts with care.");
    expect(lines(ran.stdout).at(-1)).toMatchObject({ type: "result", text: "Reviewed." });

    server.requests.length = 0;
    const typo = await runKeel(["-p", "/mcp__marker__reveiw src/a.ts", ...args(ws)], { server, ws });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Did you mean /mcp__marker__review?");
    expect(server.requests).toHaveLength(0);
  });

  it("with the todo extension off, /todos is no command", async () => {
    const { server, ws } = suite.fresh([]);
    writeFileSync(join(ws.home, "config.json"), JSON.stringify({ extensions: { todo: { enabled: false } } }));
    const help = await runKeel(["-p", "/help", ...args(ws)], { server, ws });
    expect(help.code, help.stderr).toBe(0);
    expect(helpNames(help.stdout)).not.toContain("todos");
    const todos = await runKeel(["-p", "/todos", ...args(ws)], { server, ws });
    expect(todos.code).toBe(2);
    expect(todos.stderr).toContain("Unknown command /todos.");
  });
});

/** Every TypeScript file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** The source without comments, so prose that mentions a command is not counted. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

describe("the CLI special-cases no command name", () => {
  it("outside the module that defines the command, no source compares, switches on or tabulates a command name", async () => {
    const { server, ws } = suite.fresh([]);
    const help = await runKeel(["-p", "/help", ...args(ws)], { server, ws });
    expect(help.code, help.stderr).toBe(0);
    const own = tuiCommands({} as Controller).map((c) => c.name);
    const names = [...new Set([...helpNames(help.stdout), ...own])];
    expect(names.length).toBeGreaterThan(15);
    const alternatives = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
    const literal = `["'\`]/?(?:${alternatives})["'\`]`;
    const patterns = [
      // `name === "help"`, `parsed.name !== "compact"`
      new RegExp(`\\b(?:\\w+\\.)?name\\s*[!=]==\\s*${literal}`),
      new RegExp(`${literal}\\s*[!=]==\\s*(?:\\w+\\.)?name\\b`),
      // A table of commands: `{ name: "todos", … }`
      new RegExp(`\\bname:\\s*${literal}`),
      // A command written out as a string of its own: "/todos"
      new RegExp(`["'\`]/(?:${alternatives})["'\`]`),
    ];
    const definedHere = join(CLI_ROOT, "src", "tui", "host-commands.ts");
    const found: string[] = [];
    for (const file of sources(join(CLI_ROOT, "src"))) {
      if (file === definedHere) continue;
      const text = code(readFileSync(file, "utf8"));
      // A switch over a command's name is special-casing whatever its cases are.
      if (/switch\s*\(\s*(?:\w+\.)?name\s*\)/.test(text))
        found.push(`${relative(CLI_ROOT, file)}: switch (name)`);
      for (const pattern of patterns) {
        const hit = pattern.exec(text);
        if (hit) found.push(`${relative(CLI_ROOT, file)}: ${hit[0]}`);
      }
    }
    expect(found).toEqual([]);
  });
});
