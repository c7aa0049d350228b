// Composition: flags → CodingAgentOptions (official extensions, discovery, model, session, cwd).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listModels } from "@keel/ai";
import { type CodingAgentOptions, defaultSessionDir } from "@keel/coding-agent";
import { createSession } from "@keel/session";
import { afterAll, describe, expect, it } from "vitest";
import { parseCliArgs, SUBCOMMANDS } from "../src/args.js";
import { composeOptions } from "../src/compose.js";
import { officialExtensions } from "../src/official.js";

const base = mkdtempSync(join(tmpdir(), "keel-compose-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function compose(argv: string[]): CodingAgentOptions {
  const parsed = parseCliArgs(argv)._unsafeUnwrap();
  if (parsed.kind !== "run") throw new Error("expected a run");
  const composed = composeOptions(parsed.flags, base);
  if (composed.isErr()) throw new Error(composed.error.message);
  return composed.value;
}

function composeError(argv: string[]): string {
  const parsed = parseCliArgs(argv)._unsafeUnwrap();
  if (parsed.kind !== "run") throw new Error("expected a run");
  const composed = composeOptions(parsed.flags, base);
  if (composed.isOk()) throw new Error("expected an error");
  return composed.error.message;
}

describe("composeOptions", () => {
  it("turns the official extensions on and discovery on by default", () => {
    const options = compose(["-p", "x"]);
    expect(options.extensions?.map((e) => e.id)).toEqual([
      "todo",
      "skills",
      "web-search",
      "mcp",
      "connector",
      "subagent",
    ]);
    expect(options.discoverExtensions).toBe(true);
    expect(options.cwd).toBe(base);
    expect(options.session).toEqual({ mode: "new" });
    expect(options.model).toBeUndefined();
  });

  it("--no-extensions drops the official ones and discovery but keeps -e paths", () => {
    const options = compose(["--no-extensions", "-e", "ext/a.ts"]);
    expect(options.extensions).toEqual([]);
    expect(options.discoverExtensions).toBe(false);
    expect(options.extensionPaths).toEqual([join(base, "ext/a.ts")]);
  });

  it("passes the behaviour flags through", () => {
    const options = compose([
      "--permission-mode",
      "plan",
      "--max-turns",
      "3",
      "--append-system-prompt",
      "Answer in French.",
      "--model",
      "openai/gpt-5",
    ]);
    expect(options).toMatchObject({
      permissionMode: "plan",
      maxTurns: 3,
      appendSystemPrompt: "Answer in French.",
      model: "openai/gpt-5",
    });
  });

  it("reads --settings and --mcp-config from files or inline JSON, and refuses what is not Claude Code's shape", () => {
    writeFileSync(join(base, "settings.json"), JSON.stringify({ env: { FROM: "file" } }));
    writeFileSync(
      join(base, "a.mcp.json"),
      JSON.stringify({ mcpServers: { one: { command: "a" }, two: { command: "a2" } } }),
    );
    const options = compose([
      "--settings",
      "settings.json",
      "--mcp-config",
      "a.mcp.json",
      '{"mcpServers":{"two":{"command":"b"}}}',
      "--strict-mcp-config",
    ]);
    expect(options.settings).toEqual({
      source: join(base, "settings.json"),
      value: { env: { FROM: "file" } },
    });
    expect(options.extensionConfig).toEqual({
      mcp: { servers: { one: { command: "a" }, two: { command: "b" } }, only: true },
    });
    expect(compose(["--settings", '{"model":"x"}']).settings).toEqual({
      source: "--settings",
      value: { model: "x" },
    });
    expect(compose(["--strict-mcp-config"]).extensionConfig).toEqual({ mcp: { servers: {}, only: true } });
    expect(compose(["-p", "x"]).extensionConfig).toBeUndefined();
    expect(composeError(["--settings", "missing.json"])).toMatch(
      /--settings missing\.json: cannot read it \(ENOENT\)/,
    );
    expect(composeError(["--settings", "{oops"])).toMatch(/not valid JSON/);
    expect(composeError(["--mcp-config", '{"servers":{}}'])).toMatch(/expected \{"mcpServers"/);
  });

  it("--provider picks the provider's first catalog model, or qualifies a bare --model", () => {
    const first = listModels("openai")[0]!;
    expect(compose(["--provider", "openai"]).model).toBe(`openai/${first.id}`);
    expect(compose(["--provider", "openai", "--model", "gpt-5"]).model).toBe("openai/gpt-5");
    expect(composeError(["--provider", "nope"])).toMatch(/not in the model catalog/);
    expect(composeError(["--provider", "openai", "--model", "anthropic/claude-sonnet-4-6"])).toMatch(
      /another provider/,
    );
  });

  it("maps session flags onto the kernel's session choice", () => {
    expect(compose(["-c"]).session).toEqual({ mode: "continue" });
    expect(compose(["-r", "abc"]).session).toEqual({ mode: "resume", session: "abc" });
    expect(compose(["-r", "abc", "--fork"]).session).toEqual({ mode: "fork", session: "abc" });
    expect(compose(["--no-session"]).session).toEqual({ mode: "ephemeral" });
  });

  it("-c --fork forks the newest session of the directory, and says so when there is none", async () => {
    const previous = process.env.KEEL_HOME;
    process.env.KEEL_HOME = join(base, "home");
    try {
      expect(composeError(["-c", "--fork"])).toMatch(/no session to fork/);
      const created = await createSession({ dir: defaultSessionDir(join(base, "home"), base), cwd: base });
      const session = created._unsafeUnwrap();
      await session.close();
      expect(compose(["-c", "--fork"]).session).toEqual({ mode: "fork", session: session.path });
    } finally {
      if (previous === undefined) delete process.env.KEEL_HOME;
      else process.env.KEEL_HOME = previous;
    }
  });

  it("resolves --cwd against the start directory and refuses a missing one", () => {
    expect(compose(["--cwd", "."]).cwd).toBe(base);
    expect(composeError(["--cwd", "does-not-exist"])).toMatch(/not a directory/);
  });
});

describe("the official extensions", () => {
  it("each module loads the definition of its id, from its package", async () => {
    for (const module of officialExtensions()) expect((await module.load()).id).toBe(module.id);
  });
});

describe("the official extensions' subcommands", () => {
  it("are all in SUBCOMMANDS (a word missing there would be read as a prompt)", async () => {
    const loaded = await Promise.all(officialExtensions().map((e) => e.load()));
    const contributed = loaded.flatMap((e) => (e.cli ?? []).map((c) => c.name));
    expect(contributed.length).toBeGreaterThan(0);
    expect(SUBCOMMANDS).toEqual(expect.arrayContaining(contributed));
  });
});
