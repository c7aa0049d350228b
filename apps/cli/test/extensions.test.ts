// Extensions from the user's side, through the built bin: the README's one-file tool example
// copied verbatim into ~/.keel/extensions runs its tool; TypeScript is stripped once per content
// and loads as TypeScript writes it; one extension failing to activate leaves
// the others (todo among them) working; -e of a missing file exits 2; and an npm package installed
// with `keel install` from a local tarball loads on the next start and goes with `keel uninstall`.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI_ROOT, MODEL, mockSuite, runKeel, withoutSearchHint } from "./helpers.js";

const { fresh } = mockSuite();

type Json = Record<string, unknown>;
const toolNames = (body: Json) => (body.tools as { name: string }[]).map((t) => t.name);
const toolResults = (body: Json): string[] =>
  (body.messages as { content: unknown }[]).flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as Json[]).filter((b) => b.type === "tool_result").map((b) => JSON.stringify(b.content))
      : [],
  );

/** The README's fenced block that starts with `// ~/.keel/extensions/<name>`, as written. */
function readmeExample(name: string): string {
  const readme = readFileSync(join(CLI_ROOT, "..", "..", "README.md"), "utf8");
  const marker = `// ~/.keel/extensions/${name}`;
  const start = readme.indexOf(marker);
  if (start === -1) throw new Error(`README has no example starting with ${marker}`);
  return readme.slice(start, readme.indexOf("```", start));
}

describe("extensions in print mode", () => {
  it("the README's one-file tool example, copied verbatim into ~/.keel/extensions, registers and runs", async () => {
    const { server, ws } = fresh([
      { toolCalls: [{ name: "WordCount", arguments: { text: "one two  three" } }] },
      { text: "Three words." },
    ]);
    mkdirSync(join(ws.home, "extensions"));
    writeFileSync(join(ws.home, "extensions", "word-count.ts"), readmeExample("word-count.ts"));
    const r = await runKeel(["-p", "count", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    expect(withoutSearchHint(r.stderr)).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Three words.\n");
    expect(toolNames(server.requests[0]!.body)).toContain("WordCount");
    expect(toolResults(server.requests[1]!.body)[0]).toContain("3 words");
  });

  it("one of four extensions throwing in activate: the other three, todo among them, work", async () => {
    const { server, ws } = fresh([
      {
        toolCalls: [
          { name: "Alpha", arguments: {} },
          { name: "UpdateTodos", arguments: { todos: [{ id: "1", content: "x", status: "in_progress" }] } },
        ],
      },
      { text: "ok" },
    ]);
    const dir = join(ws.home, "extensions");
    mkdirSync(dir);
    const tool = (name: string) =>
      `export default { id: "${name.toLowerCase()}", tools: () => [{ name: "${name}", description: "${name}", parameters: { type: "object", properties: {} }, execute: async () => ({ content: [{ type: "text", text: "${name} ran" }] }) }] };\n`;
    writeFileSync(join(dir, "alpha.mjs"), tool("Alpha"));
    writeFileSync(join(dir, "beta.mjs"), tool("Beta"));
    writeFileSync(
      join(dir, "broken.mjs"),
      `export default { id: "broken", lifecycle: { activate() { throw new Error("no database"); } }, tools: () => [{ name: "Broken", description: "b", parameters: { type: "object" }, execute: async () => ({ content: [] }) }] };\n`,
    );
    const r = await runKeel(
      ["-p", "go", "--model", MODEL, "--cwd", ws.repo, "--permission-mode", "bypassPermissions"],
      {
        server,
        ws,
      },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("broken");
    expect(r.stderr).toContain("no database");
    expect(withoutSearchHint(r.stderr).trim().split("\n")).toHaveLength(1);
    const names = toolNames(server.requests[0]!.body);
    expect(names).toEqual(expect.arrayContaining(["UpdateTodos", "Alpha", "Beta"]));
    expect(names).not.toContain("Broken");
    const results = toolResults(server.requests[1]!.body);
    expect(results[0]).toContain("Alpha ran");
    expect(results[1]).toContain("in progress");
  });

  it("-e of a missing file fails the start with exit 2 and names the file; nothing is sent", async () => {
    const { server, ws } = fresh([{ text: "never" }]);
    const missing = join(ws.repo, "nope.ts");
    const r = await runKeel(["-p", "go", "--model", MODEL, "--cwd", ws.repo, "-e", missing], { server, ws });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(missing);
    expect(server.requests).toHaveLength(0);
  });
});

describe("TypeScript extensions", () => {
  const shout = (word: string) =>
    `import type { KeelAPI } from "@keel/extension-sdk";
interface Reply { word: string }
const reply: Reply = { word: ${JSON.stringify(word)} };
export default (keel: KeelAPI): void => {
  keel.registerTool({
    name: "Shout",
    description: "Shouts.",
    parameters: keel.Type.Object({}),
    access: "none",
    execute: async () => keel.textResult(reply.word),
  });
};
`;
  const typescriptCache = (ws: { home: string }) => join(ws.home, "cache", "typescript");

  it("are stripped once: later starts read the output kept for that content, an edit is stripped anew", async () => {
    const call = { toolCalls: [{ name: "Shout", arguments: {} }] };
    const { server, ws } = fresh([call, { text: "1" }, call, { text: "2" }, call, { text: "3" }]);
    const file = join(ws.home, "extensions", "shout.ts");
    mkdirSync(join(ws.home, "extensions"));
    writeFileSync(file, shout("HEY"));
    const args = ["-p", "shout", "--model", MODEL, "--cwd", ws.repo];
    const first = await runKeel(args, { server, ws });
    expect(withoutSearchHint(first.stderr)).toBe("");
    expect(toolResults(server.requests[1]!.body)[0]).toContain("HEY");
    const [kept] = readdirSync(typescriptCache(ws));
    expect(kept).toMatch(/^[0-9a-f]{64}\.js$/);

    // What is kept is what loads: changed there, the change shows, so nothing was stripped again.
    const path = join(typescriptCache(ws), kept!);
    writeFileSync(path, readFileSync(path, "utf8").replace('"HEY"', '"FROM THE CACHE"'));
    await runKeel(args, { server, ws });
    expect(toolResults(server.requests[3]!.body)[0]).toContain("FROM THE CACHE");

    writeFileSync(file, shout("HO"));
    await runKeel(args, { server, ws });
    expect(toolResults(server.requests[5]!.body)[0]).toContain("HO");
    expect(readdirSync(typescriptCache(ws))).toHaveLength(2);
  });

  it("load as TypeScript writes them: `./x.js` naming x.ts, an enum, and no warning about Node's stripper", async () => {
    const { server, ws } = fresh([{ toolCalls: [{ name: "Mode", arguments: {} }] }, { text: "done" }]);
    const dir = join(ws.home, "extensions", "modes");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "names.ts"), 'export enum Mode { Plain = "plain", Loud = "loud" }\n');
    writeFileSync(
      join(dir, "index.ts"),
      `import { Mode } from "./names.js";
export default (keel: { registerTool(tool: object): void; Type: { Object(p: object): object }; textResult(t: string): object }) => {
  keel.registerTool({ name: "Mode", description: "The mode.", parameters: keel.Type.Object({}), access: "none", execute: async () => keel.textResult(Mode.Loud) });
};
`,
    );
    const r = await runKeel(["-p", "mode", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    expect(r.code).toBe(0);
    expect(withoutSearchHint(r.stderr)).toBe("");
    expect(toolResults(server.requests[1]!.body)[0]).toContain("loud");
  });
});

describe("keel install", () => {
  it("installs a local tarball without running its scripts, loads it next start, lists and uninstalls it", async () => {
    const { server, ws } = fresh([
      { toolCalls: [{ name: "Shout", arguments: { text: "hi" } }] },
      { text: "shouted" },
      { text: "after uninstall" },
    ]);
    const src = mkdtempSync(join(tmpdir(), "keel-pkg-"));
    try {
      writeFileSync(
        join(src, "package.json"),
        JSON.stringify({
          name: "keel-ext-shout",
          version: "1.2.3",
          type: "module",
          main: "index.js",
          scripts: { postinstall: "node -e \"require('fs').writeFileSync('SCRIPT_RAN','1')\"" },
        }),
      );
      writeFileSync(
        join(src, "index.js"),
        `export default (keel) => keel.registerTool({ name: "Shout", description: "Shout text.", parameters: keel.Type.Object({ text: keel.Type.String() }), access: "none", execute: async (args) => keel.textResult(args.text.toUpperCase()) });\n`,
      );
      execFileSync("npm", ["pack", "--silent", "--pack-destination", src], { cwd: src });
      const tarball = join(src, "keel-ext-shout-1.2.3.tgz");

      const installed = await runKeel(["install", tarball], { server, ws });
      expect(installed.stderr).toBe("");
      expect(installed.code).toBe(0);
      expect(installed.stdout).toContain("installed keel-ext-shout@1.2.3");
      const config = JSON.parse(readFileSync(join(ws.home, "config.json"), "utf8")) as Json;
      expect(config.packages).toEqual([{ name: "keel-ext-shout", version: "1.2.3", spec: tarball }]);
      const dir = join(ws.home, "packages");
      expect(() => readFileSync(join(dir, "node_modules", "keel-ext-shout", "SCRIPT_RAN"))).toThrow();

      const listed = await runKeel(["list"], { ws });
      expect(listed.stdout).toContain("keel-ext-shout@1.2.3  (user, from");

      const run = await runKeel(["-p", "shout", "--model", MODEL, "--cwd", ws.repo], { server, ws });
      expect(run.code).toBe(0);
      expect(toolResults(server.requests[1]!.body)[0]).toContain("HI");

      const removed = await runKeel(["uninstall", "keel-ext-shout"], { ws });
      expect(removed.code).toBe(0);
      expect(JSON.parse(readFileSync(join(ws.home, "config.json"), "utf8")).packages).toEqual([]);
      const again = await runKeel(["-p", "shout", "--model", MODEL, "--cwd", ws.repo], { server, ws });
      expect(again.code).toBe(0);
      expect(toolNames(server.requests[2]!.body)).not.toContain("Shout");

      const unknown = await runKeel(["uninstall", "keel-ext-shout"], { ws });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("not installed");
    } finally {
      rmSync(src, { recursive: true, force: true });
    }
    // npm pack, npm install and four keel starts: seconds alone, more on a loaded machine.
  }, 120_000);

  it("a project install needs a trusted project", async () => {
    const { ws } = fresh([]);
    const r = await runKeel(["install", "--project", "left-pad", "--cwd", ws.repo], { ws });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is not trusted");
  });
});
