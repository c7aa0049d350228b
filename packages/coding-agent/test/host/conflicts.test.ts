// Name conflicts are settled before anything activates: built-in names are reserved, the first
// extension to claim a name keeps it, and every rejected extension is one diagnostic naming the clash.
import { defineExtension, type ExtensionDefinition } from "@keel/extension-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "../kernel/helpers.js";
import { simpleTool, startHost } from "./helpers.js";

let box: Sandbox | undefined;
afterEach(() => box?.cleanup());

function withTools(id: string, ...names: string[]): ExtensionDefinition {
  return defineExtension({
    id,
    tools: () => names.map((n) => simpleTool(n)),
  }) as ExtensionDefinition;
}

describe("tool and command conflicts", () => {
  it("an extension may leave a tool out once activated; its name stays reserved", async () => {
    const optional = defineExtension({
      id: "optional",
      lifecycle: { activate: () => ({ searchAvailable: false }) },
      tools: (_tool, runtime) =>
        runtime === undefined || runtime.instance.searchAvailable
          ? [simpleTool("Fetch"), simpleTool("Search")]
          : [simpleTool("Fetch")],
    }) as ExtensionDefinition;
    const { host, diagnostics } = await startHost([optional, withTools("later", "Search")]);
    expect(host.tools().map((t) => t.name)).toEqual(["Fetch"]);
    expect(host.extensionIds).toEqual(["optional"]);
    expect(diagnostics[0]!.message).toBe(
      'tool "Search" is already provided by extension optional (test-2); not loaded',
    );
  });
  it("a tool named like a built-in (Read) rejects that extension, with a diagnostic naming the clash", async () => {
    const { host, diagnostics } = await startHost([
      withTools("shadow", "Lint", "Read"),
      withTools("ok", "Fmt"),
    ]);
    expect(host.extensionIds).toEqual(["ok"]);
    expect(host.tools().map((t) => t.name)).toEqual(["Fmt"]);
    expect(diagnostics).toEqual([
      {
        extensionId: "shadow",
        level: "error",
        message: 'tool "Read" is already provided by built-in (test-1); not loaded',
      },
    ]);
  });

  it("the catalog pair's names are reserved too", async () => {
    const { host, diagnostics } = await startHost([withTools("sneaky", "SearchTools")]);
    expect(host.extensionIds).toEqual([]);
    expect(diagnostics[0]!.message).toContain('tool "SearchTools" is already provided by built-in');
  });

  it("two extensions with one tool name: the first in load order wins, the second is rejected", async () => {
    for (const [first, second] of [
      ["alpha", "beta"],
      ["beta", "alpha"],
    ] as const) {
      const { host, diagnostics } = await startHost([
        withTools(first, "Deploy"),
        withTools(second, "Deploy", "Other"),
      ]);
      expect(host.extensionIds).toEqual([first]);
      expect(host.tools().map((t) => t.name)).toEqual(["Deploy"]);
      expect(diagnostics).toHaveLength(1);
      expect(diagnostics[0]).toMatchObject({ extensionId: second, level: "error" });
      expect(diagnostics[0]!.message).toBe(
        `tool "Deploy" is already provided by extension ${first} (test-2); not loaded`,
      );
    }
  });

  it("a rejected extension does not reserve its names for later ones", async () => {
    const { host } = await startHost([
      withTools("a", "Deploy"),
      withTools("b", "Deploy", "Audit"),
      withTools("c", "Audit"),
    ]);
    expect(host.extensionIds).toEqual(["a", "c"]);
  });

  it("duplicate and invalid extension ids are rejected with one diagnostic each", async () => {
    const { host, diagnostics } = await startHost([
      withTools("todo", "UpdateTodos"),
      withTools("todo", "OtherTodos"),
      withTools("Bad_Id", "X"),
    ]);
    expect(host.extensionIds).toEqual(["todo"]);
    expect(host.tools().map((t) => t.name)).toEqual(["UpdateTodos"]);
    expect(diagnostics.map((d) => d.message)).toEqual([
      'duplicate extension id "todo" (test-2); not loaded',
      'invalid extension id "Bad_Id": use lowercase letters, digits and dashes (test-3); not loaded',
    ]);
  });

  it("a command named like a built-in or an earlier extension's command is rejected", async () => {
    const command = (name: string) => ({ name, description: name, run: () => ({ message: name }) });
    const { host, diagnostics } = await startHost([
      defineExtension({ id: "takes-help", commands: [command("help")] }),
      defineExtension({ id: "first", commands: [command("deploy")] }),
      defineExtension({ id: "second", commands: [command("deploy")] }),
    ] as ExtensionDefinition[]);
    expect(host.extensionIds).toEqual(["first"]);
    expect(diagnostics.map((d) => d.message)).toEqual([
      'command "/help" is already provided by built-in (test-1); not loaded',
      'command "/deploy" is already provided by extension first (test-3); not loaded',
    ]);
  });

  it("a tool with plain JSON Schema parameters loads; parameters that are no object schema are refused at load", async () => {
    const plain = defineExtension({
      id: "plain",
      tools: () => [
        {
          ...simpleTool("Plain"),
          parameters: { type: "object", properties: { a: { type: "string" } } } as never,
        },
      ],
    }) as ExtensionDefinition;
    const scalar = defineExtension({
      id: "scalar",
      tools: () => [{ ...simpleTool("Scalar"), parameters: { type: "string" } as never }],
    }) as ExtensionDefinition;
    const missing = defineExtension({
      id: "missing",
      tools: () => [{ ...simpleTool("Missing"), parameters: undefined as never }],
    }) as ExtensionDefinition;
    const { host, diagnostics } = await startHost([plain, scalar, missing, withTools("typed", "Typed")]);
    expect(host.extensionIds).toEqual(["plain", "typed"]);
    expect(diagnostics.map((d) => d.message)).toEqual([
      'tool "Scalar": parameters must describe an object (type "object") (test-2); not loaded',
      'tool "Missing": parameters must be a schema object (TypeBox, or plain JSON Schema) (test-3); not loaded',
    ]);
  });

  it("a tools() that throws is a rejection, not a crash", async () => {
    const { host, diagnostics } = await startHost([
      defineExtension({
        id: "explodes",
        tools: () => {
          throw new Error("no schema");
        },
      }) as ExtensionDefinition,
    ]);
    expect(host.extensionIds).toEqual([]);
    expect(diagnostics[0]!.message).toBe("tools could not be listed: no schema (test-1); not loaded");
  });

  it("through the kernel: the clash is a diagnostic and the model never sees the extension's tools", async () => {
    box = sandbox();
    const f = faux({ turns: [{ text: "ok" }] });
    const created = await createCodingAgent({
      cwd: box.workspace,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
      extensions: [withTools("shadow", "Lint", "Read"), withTools("fine", "Fmt")],
      discoverExtensions: false,
    });
    const agent = created._unsafeUnwrap();
    await agent.prompt("hi");
    const diagnostics = agent.diagnostics().filter((d) => d.extensionId === "shadow");
    await agent.close();
    const tools = (f.requests[0]!.body.tools as { name: string }[]).map((t) => t.name);
    expect(tools).toContain("Fmt");
    expect(tools).not.toContain("Lint");
    expect(tools.filter((t) => t === "Read")).toHaveLength(1);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.message).toContain('tool "Read" is already provided by built-in');
  });
});
