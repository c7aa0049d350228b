// Composed extensions given as modules (how the CLI hands over the official ones): only the
// enabled ones are loaded, a module that fails to load is rolled back alone like a failed
// activation, and a required one that fails stops the start.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ExtensionDefinition, Type } from "@keel/extension-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent, type ExtensionModule } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "../kernel/helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

const toolNames = (body: Record<string, unknown>) => (body.tools as { name: string }[]).map((t) => t.name);

function withTool(id: string, name: string): ExtensionDefinition {
  return {
    id,
    tools: (tool) => [
      tool({
        name,
        description: `${name} tool`,
        parameters: Type.Object({}),
        execute: async () => ({ content: [{ type: "text", text: `${name} ran` }] }),
      }),
    ],
  };
}

/** A module whose loads are counted, as a file read would be. */
function counted(id: string, load: () => Promise<ExtensionDefinition>) {
  const module = {
    id,
    loads: 0,
    load: async () => {
      module.loads++;
      return load();
    },
  };
  return module;
}

async function start(extensions: ExtensionModule[], config?: object) {
  if (config) writeFileSync(join(box.home, "config.json"), JSON.stringify(config));
  const f = faux({ turns: [{ text: "ok" }] });
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    extensions,
    discoverExtensions: false,
  });
  return { created, f };
}

describe("composed extension modules", () => {
  it("load when enabled, in their order; one config turns off is never loaded", async () => {
    box = sandbox();
    const alpha = counted("alpha", async () => withTool("alpha", "Alpha"));
    const beta = counted("beta", async () => withTool("beta", "Beta"));
    const off = counted("off", async () => withTool("off", "Off"));
    const { created, f } = await start([beta, off, alpha], { extensions: { off: { enabled: false } } });
    const agent = created._unsafeUnwrap();
    await agent.prompt("go");
    await agent.close();
    expect(off.loads).toBe(0);
    expect([alpha.loads, beta.loads]).toEqual([1, 1]);
    const names = toolNames(f.requests[0]!.body);
    expect(names).not.toContain("Off");
    expect(names.indexOf("Beta")).toBeLessThan(names.indexOf("Alpha"));
  });

  it("a module that fails to load, or gives another id, is one error each; the others work", async () => {
    box = sandbox();
    const broken = counted("broken", async () => {
      throw new Error("module evaluation failed: no database");
    });
    const renamed = counted("renamed", async () => withTool("other-id", "Other"));
    const fine = counted("fine", async () => withTool("fine", "Fine"));
    const { created, f } = await start([broken, renamed, fine]);
    const agent = created._unsafeUnwrap();
    await agent.prompt("go");
    const errors = agent
      .diagnostics()
      .filter((d) => d.level === "error")
      .map((d) => [d.extensionId, d.message]);
    await agent.close();
    expect(errors).toEqual([
      ["broken", expect.stringContaining("no database")],
      ["renamed", expect.stringContaining('"other-id"')],
    ]);
    expect(toolNames(f.requests[0]!.body)).toContain("Fine");
    expect(toolNames(f.requests[0]!.body)).not.toContain("Other");
  });

  it("a required module that fails to load stops the start before any request", async () => {
    box = sandbox();
    const needed = counted("needed", async () => {
      throw new Error("no token");
    });
    const { created, f } = await start([needed], { extensions: { needed: { required: true } } });
    expect(created.isErr()).toBe(true);
    if (created.isErr()) {
      expect(created.error.type).toBe("extension");
      expect(created.error.message).toContain("no token");
    }
    expect(f.requests).toHaveLength(0);
  });

  it("a required module config turns off is not an error (as a definition would not be)", async () => {
    box = sandbox();
    const quiet = counted("quiet", async () => withTool("quiet", "Quiet"));
    const { created } = await start([quiet], { extensions: { quiet: { enabled: false, required: true } } });
    expect(created.isOk()).toBe(true);
    await created._unsafeUnwrap().close();
    expect(quiet.loads).toBe(0);
  });
});
