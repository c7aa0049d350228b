// Tools are judged, journaled and shown by what they declare, never by name: a new built-in tool
// written in one file (fixtures/append-tool.ts) is handled by the gate, file history, compaction,
// approvals and events with no other edit; an undeclared tool is asked about in every mode but
// bypassPermissions; Read, Edit, Bash and domain rules reach a third-party tool by its access.
// Every permission claim is checked by effect: the file a tool would write is there or not.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineExtension, type ExtensionTool, Type, textResult } from "@keel/extension-sdk";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CodingAgentEvent,
  type CodingAgentOptions,
  createCodingAgent,
  type PermissionModeName,
  type ToolApprovalRequest,
} from "../../src/index.js";
import { createAppendTool } from "../fixtures/append-tool.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

const read = (name: string) => readFileSync(join(box.workspace, name), "utf8");

async function open(
  f: ReturnType<typeof faux>,
  options: Partial<CodingAgentOptions> & { rules?: { allow?: string[]; deny?: string[] } } = {},
) {
  const { rules, ...rest } = options;
  if (rules) {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(box.home, { recursive: true });
    writeFileSync(join(box.home, "config.json"), JSON.stringify({ permissions: rules }));
  }
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    discoverExtensions: false,
    testing: { builtinTools: (cwd) => [createAppendTool(cwd)] },
    ...rest,
  });
  if (created.isErr()) throw new Error(created.error.message);
  return created.value;
}

const appendCall = (file: string, text: string) => ({
  toolCalls: [{ name: "Append", arguments: { file, text } }],
});

describe("a built-in tool added in one file", () => {
  it.each([
    ["default", false],
    ["dontAsk", false],
    ["plan", false],
    ["acceptEdits", true],
    ["bypassPermissions", true],
  ] as const)(
    "is judged as a write by its declaration: %s mode, headless → appended %s",
    async (mode, runs) => {
      box = sandbox();
      writeFileSync(join(box.workspace, "notes.txt"), "start\n");
      const agent = await open(faux({ turns: [appendCall("notes.txt", "SENTINEL"), { text: "ok" }] }), {
        permissionMode: mode,
      });
      await agent.prompt("append");
      expect(read("notes.txt").includes("SENTINEL")).toBe(runs);
      await agent.close();
    },
  );

  it("Edit rules reach its declared path; a write outside the workspace asks even in acceptEdits", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "notes.txt"), "");
    const allowed = await open(
      faux({
        turns: [appendCall("notes.txt", "RULED"), appendCall("../outside.txt", "OUT"), { text: "ok" }],
      }),
      { rules: { allow: ["Edit(notes.txt)"] } },
    );
    await allowed.prompt("append");
    expect(read("notes.txt")).toBe("RULED");
    expect(existsSync(join(box.workspace, "..", "outside.txt"))).toBe(false);
    await allowed.close();

    const denied = await open(faux({ turns: [appendCall("notes.txt", "DENIED"), { text: "ok" }] }), {
      permissionMode: "bypassPermissions",
      rules: { deny: ["Edit(notes.*)"] },
    });
    await denied.prompt("append");
    expect(read("notes.txt")).toBe("RULED");
    await denied.close();
  });

  it("tool_start carries its summary and access; the approval carries its preview and summary", async () => {
    box = sandbox();
    const asked: ToolApprovalRequest[] = [];
    const events: CodingAgentEvent[] = [];
    const agent = await open(faux({ turns: [appendCall("notes.txt", "hello"), { text: "ok" }] }), {
      ui: {
        approve: async (request) => {
          asked.push(request);
          return { decision: "allow_once" };
        },
      },
      onEvent: (e) => events.push(e),
    });
    await agent.prompt("append");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      toolName: "Append",
      summary: "5 chars to notes.txt",
      preview: { format: "text", text: "+ hello", path: "notes.txt" },
      alwaysRules: ["Edit(notes.txt)"],
    });
    expect(events.find((e) => e.type === "tool_start")).toMatchObject({
      toolName: "Append",
      summary: "5 chars to notes.txt",
      access: "write",
    });
    expect(agent.describeToolCall("Append", { file: "x", text: "abc" })).toEqual({
      summary: "3 chars to x",
      access: "write",
    });
    await agent.close();
  });

  it("file history keeps its declared path: a code rewind puts the file back", async () => {
    box = sandbox();
    writeFileSync(join(box.workspace, "a.txt"), "one\n");
    const agent = await open(faux({ turns: [appendCall("a.txt", "two\n"), { text: "Done." }] }), {
      permissionMode: "bypassPermissions",
    });
    await agent.prompt("append");
    expect(read("a.txt")).toBe("one\ntwo\n");
    expect(agent.fileChanges({ rewind: 1 })._unsafeUnwrap().files).toEqual([
      { path: "a.txt", action: "restore" },
    ]);
    (await agent.rewind(1, { restore: "code" }))._unsafeUnwrap();
    expect(read("a.txt")).toBe("one\n");
    await agent.close();
  });

  it("compaction lists its declared path as modified", async () => {
    box = sandbox();
    const agent = await open(
      faux({
        turns: [
          appendCall("notes.txt", "x"),
          { text: "Appended." },
          { text: "Nothing else." },
          { text: "## Goal\nappend\n## Progress\ndone" },
        ],
      }),
      { permissionMode: "bypassPermissions" },
    );
    await agent.prompt("append");
    await agent.prompt("anything else?");
    (await agent.compact())._unsafeUnwrap();
    const summary = JSON.stringify(agent.messages()[0]);
    expect(summary).toContain("## Files modified\\n- notes.txt");
    await agent.close();
  });
});

/** An extension tool that proves it ran by writing `ran.txt`. */
function extensionWith(
  tool: Omit<ExtensionTool, "execute" | "description" | "parameters"> & { parameters?: never },
) {
  return defineExtension({
    id: "third-party",
    tools: (t) => [
      t({
        description: "A third-party tool.",
        parameters: Type.Object({
          target: Type.Optional(Type.String()),
          cmd: Type.Optional(Type.String()),
        }),
        ...tool,
        async execute(_args, _ctx, runtime) {
          writeFileSync(join(runtime.workspace.cwd, "ran.txt"), "ran");
          return textResult("done");
        },
      }),
    ],
  });
}

async function runs(
  ext: ReturnType<typeof extensionWith>,
  args: Record<string, unknown>,
  options: Partial<CodingAgentOptions> & { rules?: { allow?: string[]; deny?: string[] } } = {},
): Promise<boolean> {
  box = sandbox();
  writeFileSync(join(box.workspace, "secret.txt"), "s");
  const agent = await open(
    faux({ turns: [{ toolCalls: [{ name: "Thing", arguments: args }] }, { text: "ok" }] }),
    { extensions: [ext], ...options },
  );
  await agent.prompt("go");
  await agent.close();
  const ran = existsSync(join(box.workspace, "ran.txt"));
  box.cleanup();
  return ran;
}

describe("a tool that declares nothing", () => {
  const undeclared = extensionWith({ name: "Thing" });

  it.each([
    ["default", false],
    ["acceptEdits", false],
    ["dontAsk", false],
    ["plan", false],
    ["bypassPermissions", true],
  ] as const)("headless in %s mode: runs %s", async (mode, expected) => {
    expect(await runs(undeclared, {}, { permissionMode: mode as PermissionModeName })).toBe(expected);
  });

  it("is asked about (and not run when denied) in default and acceptEdits; journaled when it runs", async () => {
    for (const mode of ["default", "acceptEdits"] as const) {
      const asked: ToolApprovalRequest[] = [];
      const ran = await runs(
        undeclared,
        {},
        {
          permissionMode: mode,
          ui: {
            approve: async (request) => {
              asked.push(request);
              return { decision: "deny" };
            },
          },
        },
      );
      expect(ran, mode).toBe(false);
      expect(
        asked.map((a) => a.toolName),
        mode,
      ).toEqual(["Thing"]);
    }
    box = sandbox();
    const agent = await open(
      faux({ turns: [{ toolCalls: [{ name: "Thing", arguments: {} }] }, { text: "ok" }] }),
      { extensions: [undeclared], permissionMode: "bypassPermissions" },
    );
    await agent.prompt("go");
    const journal = readFileSync(agent.sessionFile!, "utf8");
    expect(journal).toContain('"type":"op_begin"');
    await agent.close();
  });

  it("a deprecated sideEffects: false does not make it any less asked", async () => {
    const legacy = extensionWith({ name: "Thing", sideEffects: false });
    expect(await runs(legacy, {}, { permissionMode: "default" })).toBe(false);
  });
});

describe("rules reach a third-party tool by its declared access", () => {
  const reader = extensionWith({ name: "Thing", access: "read", args: { paths: ["target"] } });
  const shell = extensionWith({ name: "Thing", access: "exec", args: { commands: ["cmd"] } });
  const fetcher = extensionWith({ name: "Thing", access: "network", args: { urls: ["target"] } });

  it("Read(…) rules judge a read tool's paths; reads outside the workspace ask", async () => {
    expect(await runs(reader, { target: "secret.txt" })).toBe(true);
    expect(await runs(reader, { target: "secret.txt" }, { rules: { deny: ["Read(secret.txt)"] } })).toBe(
      false,
    );
    expect(await runs(reader, { target: "/etc/hostname" })).toBe(false);
    expect(await runs(reader, { target: "/etc/hostname" }, { rules: { allow: ["Read(/etc/**)"] } })).toBe(
      true,
    );
    // A rule naming the tool itself joins the family's for its own paths.
    expect(await runs(reader, { target: "secret.txt" }, { rules: { deny: ["Thing(secret.txt)"] } })).toBe(
      false,
    );
  });

  it("Bash(…) rules and the shell parser judge an exec tool's commands", async () => {
    expect(
      await runs(
        shell,
        { cmd: "echo hi" },
        { rules: { allow: ["Bash(echo:*)"] }, permissionMode: "default" },
      ),
    ).toBe(true);
    expect(
      await runs(
        shell,
        { cmd: "rm -rf build" },
        {
          rules: { deny: ["Bash(rm:*)"] },
          permissionMode: "bypassPermissions",
        },
      ),
    ).toBe(false);
    // Dangerous whatever the mode: the parser's hard ask holds in bypass, headless it is denied.
    expect(await runs(shell, { cmd: "rm -rf /" }, { permissionMode: "bypassPermissions" })).toBe(false);
    expect(await runs(shell, {}, { permissionMode: "default" })).toBe(false);
  });

  it("<Tool>(domain:…) rules judge a network tool's URLs (nothing is fetched: the tool only writes)", async () => {
    expect(await runs(fetcher, { target: "https://docs.example.com/a" })).toBe(false);
    expect(
      await runs(
        fetcher,
        { target: "https://docs.example.com/a" },
        {
          rules: { allow: ["Thing(domain:*.example.com)"] },
        },
      ),
    ).toBe(true);
    expect(
      await runs(
        fetcher,
        { target: "https://evil.example.com/a" },
        {
          permissionMode: "bypassPermissions",
          rules: { allow: ["Thing(domain:*.example.com)"], deny: ["Thing(domain:evil.example.com)"] },
        },
      ),
    ).toBe(false);
  });
});
