// The command line: every flag parsed, contradictions and bad values refused, help complete.

import { THINKING_LEVELS } from "@keel/ai";
import { describe, expect, it } from "vitest";
import { type CliFlags, parseCliArgs, THINKING_FLAG_LEVELS } from "../src/args.js";
import { HELP } from "../src/help.js";

function flags(argv: string[]): CliFlags {
  const parsed = parseCliArgs(argv);
  if (parsed.isErr()) throw new Error(parsed.error.message);
  if (parsed.value.kind !== "run") throw new Error(`expected a run, got ${parsed.value.kind}`);
  return parsed.value.flags;
}

function usageError(argv: string[]): string {
  const parsed = parseCliArgs(argv);
  if (parsed.isOk()) throw new Error(`expected a usage error for ${argv.join(" ")}`);
  return parsed.error.message;
}

describe("parseCliArgs", () => {
  it("parses every option", () => {
    const f = flags([
      "-p",
      "--output-format",
      "stream-json",
      "--include-partial-messages",
      "--model",
      "openai/gpt-5",
      "-c",
      "--fork",
      "--permission-mode",
      "acceptEdits",
      "--max-turns",
      "7",
      "--append-system-prompt",
      "Be brief.",
      "--system-prompt",
      "You review code.",
      "--allowedTools",
      "Bash(git log:*) Read,Edit",
      "--allowed-tools",
      "Bash(npm run test *)",
      "--disallowedTools",
      "Bash(rm:*)",
      "--add-dir",
      "../docs",
      "--settings",
      '{"env":{"A":"1"}}',
      "--mcp-config",
      "servers.json",
      '{"mcpServers":{}}',
      "--strict-mcp-config",
      "-e",
      "a.ts",
      "--extension",
      "b",
      "--no-extensions",
      "--cwd",
      "/tmp",
      "--debug",
      "fix",
      "the bug",
    ]);
    expect(f).toEqual({
      print: true,
      prompt: "fix the bug",
      outputFormat: "stream-json",
      inputFormat: "text",
      includePartialMessages: true,
      model: "openai/gpt-5",
      provider: undefined,
      session: { kind: "continue", fork: true },
      permissionMode: "acceptEdits",
      maxTurns: 7,
      appendSystemPrompt: "Be brief.",
      systemPrompt: "You review code.",
      // Claude Code's separators: commas and spaces outside parentheses.
      allowedTools: ["Bash(git log:*)", "Read", "Edit", "Bash(npm run test *)"],
      disallowedTools: ["Bash(rm:*)"],
      addDirs: ["../docs"],
      settings: '{"env":{"A":"1"}}',
      // Claude Code's several values after one --mcp-config.
      mcpConfigs: ["servers.json", '{"mcpServers":{}}'],
      strictMcpConfig: true,
      extensions: ["a.ts", "b"],
      noExtensions: true,
      cwd: "/tmp",
      debug: true,
      waitChildrenMs: 300_000,
    });
  });

  it("ends --mcp-config's values at the first word that is neither a .json path nor a JSON object", () => {
    const f = flags(["-p", "--mcp-config", "a.json", "b.json", "fix config.json", "please"]);
    expect(f.mcpConfigs).toEqual(["a.json", "b.json"]);
    expect(f.prompt).toBe("fix config.json please");
    expect(flags(["--mcp-config", "x", "--mcp-config", "y.json"]).mcpConfigs).toEqual(["x", "y.json"]);
    expect(usageError(["--settings", " "])).toMatch(/--settings needs/);
  });

  it("takes a first word naming a subcommand as that subcommand, with the rest as its arguments", () => {
    expect(parseCliArgs(["install", "./ext.tgz", "--project"])._unsafeUnwrap()).toEqual({
      kind: "subcommand",
      name: "install",
      argv: ["./ext.tgz", "--project"],
    });
    expect(parseCliArgs(["mcp", "list"])._unsafeUnwrap()).toMatchObject({ kind: "subcommand", name: "mcp" });
    // Anything else is still a prompt.
    expect(parseCliArgs(["install", "it"])._unsafeUnwrap().kind).toBe("subcommand");
    expect(parseCliArgs(["please", "install", "it"])._unsafeUnwrap().kind).toBe("run");
  });

  it("defaults to a new session, text output and no prompt", () => {
    const f = flags([]);
    expect(f.print).toBe(false);
    expect(f.prompt).toBeUndefined();
    expect(f.outputFormat).toBe("text");
    expect(f.session).toEqual({ kind: "new" });
    expect(f.extensions).toEqual([]);
  });

  it("takes -r with an id, and without one (picker) when nothing or a flag follows", () => {
    expect(flags(["-r", "abc", "-p", "go"]).session).toEqual({ kind: "resume", id: "abc", fork: false });
    expect(flags(["--resume=abc", "--fork"]).session).toEqual({ kind: "resume", id: "abc", fork: true });
    expect(flags(["-r"]).session).toEqual({ kind: "resume", id: undefined, fork: false });
    expect(flags(["--resume", "--permission-mode", "plan"]).session).toEqual({
      kind: "resume",
      id: undefined,
      fork: false,
    });
  });

  it("takes --input-format stream-json and --include-partial-messages only with stream-json print output", () => {
    expect(flags(["-p", "--input-format", "stream-json", "--output-format", "stream-json"])).toMatchObject({
      inputFormat: "stream-json",
      prompt: undefined,
    });
    expect(flags(["-p", "x"]).includePartialMessages).toBe(false);
    expect(usageError(["-p", "--input-format", "stream-json"])).toMatch(
      /needs print mode with stream-json output/,
    );
    expect(usageError(["--input-format", "stream-json", "--output-format", "stream-json"])).toMatch(
      /only applies to print mode|needs print mode/,
    );
    expect(
      usageError(["-p", "--input-format", "stream-json", "--output-format", "stream-json", "hi"]),
    ).toMatch(/reads the prompts from stdin/);
    expect(usageError(["-p", "--input-format", "ndjson"])).toMatch(/input-format/);
    expect(usageError(["-p", "x", "--include-partial-messages"])).toMatch(
      /needs print mode with --output-format stream-json/,
    );
  });

  it("maps --no-session to an ephemeral session", () => {
    expect(flags(["--no-session", "-p", "x"]).session).toEqual({ kind: "ephemeral" });
  });

  it("takes --read-only with -c or -r <id> to show a session, and nothing that would add to it", () => {
    expect(flags(["--read-only", "-c"]).session).toEqual({ kind: "inspect", id: undefined });
    expect(flags(["--read-only", "-r", "abc", "--output-format", "json"])).toMatchObject({
      session: { kind: "inspect", id: "abc" },
      outputFormat: "json",
    });
    expect(usageError(["--read-only"])).toMatch(/needs the session to show/);
    expect(usageError(["--read-only", "-r"])).toMatch(/needs the session to show/);
    expect(usageError(["--read-only", "-c", "--fork"])).toMatch(/Pick one/);
    expect(usageError(["--read-only", "--no-session"])).toMatch(/--no-session/);
    expect(usageError(["--read-only", "-c", "do more"])).toMatch(/takes no prompt.*--fork/);
  });

  it("answers help and version before anything else", () => {
    expect(parseCliArgs(["-p", "--help"])._unsafeUnwrap()).toEqual({ kind: "help" });
    expect(parseCliArgs(["--version"])._unsafeUnwrap()).toEqual({ kind: "version" });
    expect(parseCliArgs(["-v"])._unsafeUnwrap()).toEqual({ kind: "version" });
  });

  it("refuses unknown flags, bad values and contradictions with a message", () => {
    expect(usageError(["--bogus"])).toMatch(/--bogus/);
    expect(usageError(["-p", "--output-format", "xml"])).toMatch(/text, json, stream-json/);
    expect(usageError(["--output-format", "json"])).toMatch(/print mode/);
    expect(usageError(["--permission-mode", "yolo"])).toMatch(/bypassPermissions/);
    expect(usageError(["--max-turns", "0"])).toMatch(/positive whole number/);
    expect(usageError(["--max-turns", "2.5"])).toMatch(/positive whole number/);
    expect(usageError(["-c", "-r", "abc"])).toMatch(/not both/);
    expect(usageError(["--fork"])).toMatch(/--continue or --resume/);
    expect(usageError(["--no-session", "-c"])).toMatch(/--no-session/);
    expect(usageError(["-p", "-r"])).toMatch(/needs a session id in print mode/);
    expect(usageError(["--model", ""])).toMatch(/--model/);
    expect(usageError(["-p", "--wait-children=-1"])).toMatch(/--wait-children takes seconds/);
    expect(usageError(["-p", "--wait-children", "soon"])).toMatch(/--wait-children takes seconds/);
    expect(usageError(["--wait-children", "5"])).toMatch(/only applies to print mode/);
  });

  it("takes --wait-children in seconds (fractions too), five minutes by default", () => {
    const flags = (argv: string[]) => {
      const parsed = parseCliArgs(argv)._unsafeUnwrap();
      if (parsed.kind !== "run") throw new Error(parsed.kind);
      return parsed.flags;
    };
    expect(flags(["-p", "hi"]).waitChildrenMs).toBe(300_000);
    expect(flags(["-p", "--wait-children", "0", "hi"]).waitChildrenMs).toBe(0);
    expect(flags(["-p", "--wait-children", "2.5", "hi"]).waitChildrenMs).toBe(2_500);
  });

  it("lists every long option in --help", () => {
    const options = [
      "--print",
      "--output-format",
      "--input-format",
      "--include-partial-messages",
      "--model",
      "--provider",
      "--continue",
      "--resume",
      "--fork",
      "--read-only",
      "--no-session",
      "--permission-mode",
      "--max-turns",
      "--append-system-prompt",
      "--extension",
      "--no-extensions",
      "--cwd",
      "--wait-children",
      "--version",
      "--help",
      "--refresh",
      "--json",
    ];
    for (const option of options) expect(HELP).toContain(option);
    for (const v of [
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "ANTHROPIC_BASE_URL",
      "OPENAI_BASE_URL",
      "KEEL_HOME",
    ])
      expect(HELP).toContain(v);
  });

  it("parses the models subcommand and its flags, and only as the first argument", () => {
    expect(parseCliArgs(["models"])._unsafeUnwrap()).toEqual({
      kind: "models",
      flags: { provider: undefined, refresh: false, json: false, cwd: undefined },
    });
    expect(parseCliArgs(["models", "--provider", "zai", "--refresh", "--json"])._unsafeUnwrap()).toEqual({
      kind: "models",
      flags: { provider: "zai", refresh: true, json: true, cwd: undefined },
    });
    expect(parseCliArgs(["models", "-h"])._unsafeUnwrap()).toEqual({ kind: "help" });
    expect(parseCliArgs(["models", "--model", "x"])._unsafeUnwrapErr().message).toMatch(
      /^keel models: Unknown option '--model'/,
    );
    // A prompt that merely contains the word is a prompt.
    expect(parseCliArgs(["-p", "models"])._unsafeUnwrap()).toMatchObject({
      kind: "run",
      flags: { prompt: "models" },
    });
    expect(parseCliArgs(["models are great"])._unsafeUnwrap()).toMatchObject({ kind: "run" });
  });
});

describe("--thinking", () => {
  it("takes the kernel's levels (repeated in the bin, which loads no kernel)", () => {
    expect([...THINKING_FLAG_LEVELS]).toEqual(THINKING_LEVELS.filter((l) => l !== "none"));
    const parsed = parseCliArgs(["--thinking", "high", "-p", "hi"])._unsafeUnwrap();
    expect(parsed.kind === "run" && parsed.flags.thinking).toBe("high");
  });
});
