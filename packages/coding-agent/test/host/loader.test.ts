// User extension loading end to end: factory files register transactionally, each failure is one
// diagnostic and the others work; an untrusted project's extensions are never imported; user
// extensions in <home>/extensions load, TypeScript ones too.
import { existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent, trustProject } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "../kernel/helpers.js";
import { toolResultTexts } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

// Extension files live in temp dirs, where bare imports do not resolve; they import TypeBox by URL.
const typebox = pathToFileURL(
  realpathSync(
    fileURLToPath(new URL("../../node_modules/@sinclair/typebox/build/esm/index.mjs", import.meta.url)),
  ),
).href;

function write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const greetFactory = `
import { Type } from ${JSON.stringify(typebox)};
export default (keel) => {
  keel.registerTool({
    name: "Greet",
    description: "Greets someone.",
    parameters: Type.Object({ name: Type.String() }),
    execute: async (args) => ({ content: [{ type: "text", text: "hello, " + args.name }] }),
  });
};
`;

const throwingFactory = `
import { Type } from ${JSON.stringify(typebox)};
export default (keel) => {
  keel.registerTool({
    name: "Leaked",
    description: "Must never be registered.",
    parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: "leaked" }] }),
  });
  keel.registerCommand({ name: "leaked", description: "Must never be registered.", run: () => ({}) });
  keel.on("runEnd", () => { globalThis.__keelLeakedRunEnd = true; });
  throw new Error("API token missing");
};
`;

async function start(options: {
  extensionPaths?: string[];
  discover?: boolean;
  scenario?: Parameters<typeof faux>[0];
}) {
  const f = faux(options.scenario ?? { turns: [{ text: "ok" }] });
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    permissionMode: "bypassPermissions",
    extensionPaths: options.extensionPaths ?? [],
    discoverExtensions: options.discover ?? true,
  });
  if (created.isErr()) throw new Error(created.error.message);
  return { agent: created.value, requests: f.requests };
}

const toolNames = (body: Record<string, unknown>) => (body.tools as { name: string }[]).map((t) => t.name);

describe("transactional factories", () => {
  it("a factory that registers a tool then throws leaves nothing; the other file's tool is callable", async () => {
    box = sandbox();
    const dir = join(box.home, "extensions");
    const bad = write(join(dir, "bad.mjs"), throwingFactory);
    write(join(dir, "good.mjs"), greetFactory);
    const { agent, requests } = await start({
      scenario: {
        turns: [{ toolCalls: [{ name: "Greet", arguments: { name: "Ada" } }] }, { text: "Greeted." }],
      },
    });
    const run = await agent.prompt("greet Ada");
    const diagnostics = agent.diagnostics().filter((d) => d.extensionId !== "kernel");
    const commands = agent.commands.list().map((c) => c.name);
    await agent.close();

    expect(run._unsafeUnwrap().text).toBe("Greeted.");
    expect(toolNames(requests[0]!.body)).toContain("Greet");
    expect(toolNames(requests[0]!.body)).not.toContain("Leaked");
    expect(commands).not.toContain("leaked");
    expect((globalThis as { __keelLeakedRunEnd?: boolean }).__keelLeakedRunEnd).toBeUndefined();
    expect(toolResultTexts(requests[1]!.body)).toEqual([{ text: "hello, Ada", isError: false }]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ extensionId: "bad", level: "error" });
    expect(diagnostics[0]!.message).toBe(`${bad}: factory threw: API token missing`);
  });

  it("in ~/.keel/extensions a module that fails to import, one that exports nothing usable, a broken package.json and a dangling link: one line each, the rest loads", async () => {
    box = sandbox();
    const dir = join(box.home, "extensions");
    const broken = write(join(dir, "broken.mjs"), "export default (keel) => { keel.on(\n");
    write(join(dir, "empty.mjs"), "export const answer = 42;\n");
    write(join(dir, "badpkg", "package.json"), "{ not json");
    write(join(dir, "badpkg", "index.mjs"), greetFactory);
    symlinkSync(join(dir, "nowhere"), join(dir, "dangling.mjs"));
    write(join(dir, "good.mjs"), greetFactory);
    const { agent, requests } = await start({});
    await agent.prompt("hi");
    const diagnostics = agent.diagnostics().filter((d) => d.extensionId !== "kernel");
    await agent.close();
    expect(diagnostics.map((d) => d.extensionId).sort()).toEqual(["badpkg", "broken", "empty", "loader"]);
    const text = diagnostics.map((d) => d.message).join("\n");
    expect(text).toContain(`${broken}: import failed`);
    expect(text).toContain("neither defineExtension(...) nor a factory function");
    expect(text).toContain("package.json cannot be read");
    expect(text).toContain(`${join(dir, "dangling.mjs")}: cannot be read (ENOENT); skipped`);
    for (const d of diagnostics) expect(d.message.split("\n")).toHaveLength(1);
    expect(toolNames(requests[0]!.body)).toContain("Greet");
  });

  it("an extension marked required in config fails the start when it cannot activate or is missing", async () => {
    box = sandbox();
    write(
      join(box.home, "extensions", "needed.mjs"),
      `export default { id: "needed", lifecycle: { activate() { throw new Error("no token"); } } };\n`,
    );
    for (const required of ["needed", "absent"]) {
      write(
        join(box.home, "config.json"),
        JSON.stringify({ extensions: { [required]: { required: true } } }),
      );
      const f = faux({ turns: [{ text: "never" }] });
      const created = await createCodingAgent({
        cwd: box.workspace,
        home: box.home,
        model: f.model,
        streamOptions: f.streamOptions,
      });
      expect(created.isErr(), required).toBe(true);
      if (created.isErr()) {
        expect(created.error.type).toBe("extension");
        expect(created.error.message).toContain(
          required === "needed" ? "no token" : 'extension "absent" is marked required',
        );
      }
    }
    // Not required: the same failure is one diagnostic and the session starts.
    write(join(box.home, "config.json"), JSON.stringify({}));
    const f = faux({ turns: [] });
    const created = await createCodingAgent({
      cwd: box.workspace,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
    });
    expect(created.isOk()).toBe(true);
    await created._unsafeUnwrap().close();
  });

  it("an extension named with -e that cannot be loaded fails the start, with the reason", async () => {
    box = sandbox();
    const dir = join(box.home, "..", "ext");
    const missing = join(dir, "missing.mjs");
    const bad = write(join(dir, "bad.mjs"), throwingFactory);
    for (const path of [missing, bad]) {
      const f = faux({ turns: [{ text: "never" }] });
      const created = await createCodingAgent({
        cwd: box.workspace,
        home: box.home,
        model: f.model,
        streamOptions: f.streamOptions,
        extensionPaths: [path],
      });
      expect(created.isErr()).toBe(true);
      if (created.isErr()) {
        expect(created.error.type).toBe("extension");
        expect(created.error.message).toContain(path);
      }
      expect(f.requests).toHaveLength(0);
    }
  });
});

describe("trust before import", () => {
  it("an untrusted project's .keel/extensions/evil.mjs is never imported; once trusted it is", async () => {
    box = sandbox();
    const marker = join(box.home, "..", "evil-was-imported");
    write(
      join(box.workspace, ".keel", "extensions", "evil.mjs"),
      `import { writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(marker)}, "imported");
export default { id: "evil", systemPrompt: "evil context" };
`,
    );
    const untrusted = await start({});
    await untrusted.agent.prompt("hi");
    const notes = untrusted.agent.diagnostics();
    await untrusted.agent.close();
    expect(existsSync(marker)).toBe(false);
    expect(JSON.stringify(untrusted.requests[0]!.body.system)).not.toContain("evil context");
    const aboutTrust = notes.filter((d) => /not trusted/.test(d.message));
    expect(aboutTrust).toHaveLength(1);
    expect(aboutTrust[0]!.message).toContain("extensions");
    expect(notes.filter((d) => d.extensionId === "evil")).toEqual([]);

    expect(trustProject(box.workspace, { home: box.home }).isOk()).toBe(true);
    const trusted = await start({});
    await trusted.agent.prompt("hi");
    const after = trusted.agent.diagnostics();
    await trusted.agent.close();
    expect(existsSync(marker)).toBe(true);
    expect(JSON.stringify(trusted.requests[0]!.body.system)).toContain("evil context");
    expect(after.filter((d) => /not trusted/.test(d.message))).toEqual([]);
  });

  it("an untrusted project with a .keel folder is reported in exactly one line", async () => {
    box = sandbox();
    write(join(box.workspace, ".keel", "config.json"), "{}");
    const { agent } = await start({});
    const notes = agent.diagnostics().filter((d) => /not trusted/.test(d.message));
    await agent.close();
    expect(notes).toHaveLength(1);
  });

  it("with discoverExtensions false not even a trusted project's extensions load", async () => {
    box = sandbox();
    const marker = join(box.home, "..", "imported-anyway");
    write(
      join(box.workspace, ".keel", "extensions", "quiet.mjs"),
      `import { writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(marker)}, "imported");
export default { id: "quiet" };
`,
    );
    trustProject(box.workspace, { home: box.home });
    const { agent } = await start({ discover: false });
    await agent.close();
    expect(existsSync(marker)).toBe(false);
  });
});

describe("user extensions", () => {
  it("a .ts file and a package folder in <home>/extensions load", async () => {
    box = sandbox();
    write(
      join(box.home, "extensions", "shout.ts"),
      `interface Command { name: string; description: string; run(args: string): { message: string } }
interface Api { registerCommand(command: Command): void }
const shout = (text: string): string => text.toUpperCase() + "!";
export default (keel: Api): void => {
  keel.registerCommand({ name: "shout", description: "Shouts", run: (args: string) => ({ message: shout(args) }) });
};
`,
    );
    write(
      join(box.home, "extensions", "pkg-ext", "package.json"),
      JSON.stringify({ name: "@me/folder-ext", main: "lib/main.mjs" }),
    );
    write(
      join(box.home, "extensions", "pkg-ext", "lib", "main.mjs"),
      `export default { id: "folder-ext", commands: [{ name: "whoami", description: "Says who", run: () => ({ message: "a folder" }) }] };\n`,
    );
    const { agent } = await start({});
    const commands = agent.commands.list().filter((c) => c.source.kind !== "builtin");
    const shout = await agent.commands.run("/shout hey");
    const whoami = await agent.commands.run("/whoami");
    const problems = agent.diagnostics().filter((d) => d.level === "error");
    await agent.close();
    expect(problems).toEqual([]);
    expect(commands.map((c) => [c.name, c.source])).toEqual([
      ["whoami", { kind: "extension", owner: "folder-ext" }],
      ["shout", { kind: "extension", owner: "shout" }],
    ]);
    expect(shout._unsafeUnwrap()).toEqual({ message: "HEY!" });
    expect(whoami._unsafeUnwrap()).toEqual({ message: "a folder" });
  });
});
