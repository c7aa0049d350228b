// Extension configuration through the real kernel: <home>/config.json and <project>/.keel/config.json
// (`extensions.<id>.config`), per declared scope; the project layer is undefined until trusted, and
// invalid configuration keeps the extension out with a diagnostic naming file and field.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineExtension, type ExtensionDefinition, Type } from "@keel/extension-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent, trustProject } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "../kernel/helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

function probes() {
  const seen: Record<string, unknown> = {};
  const layersSeen: unknown[] = [];
  const record = (id: string) => ({
    activate: (ctx: { config: unknown }) => {
      seen[id] = ctx.config;
    },
  });
  const Items = Type.Object({ items: Type.Array(Type.String()) });
  const definitions = [
    defineExtension({
      id: "user-ext",
      configuration: {
        scope: "user",
        schema: Type.Object({ level: Type.String() }),
        default: { level: "info" },
      },
      lifecycle: record("user-ext"),
    }),
    defineExtension({
      id: "proj-ext",
      configuration: {
        scope: "project",
        schema: Type.Object({ target: Type.String() }),
        default: { target: "none" },
      },
      lifecycle: record("proj-ext"),
    }),
    defineExtension({
      id: "layer-ext",
      configuration: {
        scope: "layered",
        schema: Items,
        default: { items: [] },
        resolve: (layers) => {
          layersSeen.push(structuredClone(layers));
          return { items: [...(layers.user?.items ?? []), ...(layers.project?.items ?? [])] };
        },
      },
      lifecycle: record("layer-ext"),
    }),
    defineExtension({
      id: "merge-ext",
      configuration: {
        scope: "layered",
        // Schema defaults fill what a layer leaves out; they must not override a lower layer.
        schema: Type.Object({
          a: Type.Optional(Type.Number()),
          b: Type.Number({ default: 0 }),
          c: Type.Number({ default: 0 }),
        }),
        default: { b: 0, c: 0 },
      },
      lifecycle: record("merge-ext"),
    }),
  ] as ExtensionDefinition[];
  return { seen, layersSeen, definitions };
}

function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, JSON.stringify(value, null, 2));
}

const userConfig = {
  extensions: {
    "user-ext": { config: { level: "debug" } },
    "proj-ext": { config: { target: "from-user" } },
    "layer-ext": { config: { items: ["u"] } },
    "merge-ext": { config: { a: 1, b: 1, c: 1 } },
  },
};
const projectConfig = {
  extensions: {
    "user-ext": { config: { level: "trace" } },
    "proj-ext": { config: { target: "staging" } },
    "layer-ext": { config: { items: ["p"] } },
    "merge-ext": { config: { b: 2 } },
  },
};

async function run(definitions: ExtensionDefinition[], extensionConfig?: Record<string, unknown>) {
  const f = faux({ turns: [] });
  const created = await createCodingAgent({
    ...(extensionConfig ? { extensionConfig } : {}),
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    extensions: definitions,
    discoverExtensions: false,
  });
  if (created.isErr()) throw new Error(created.error.message);
  const agent = created.value;
  const diagnostics = agent.diagnostics().filter((d) => d.extensionId !== "kernel");
  await agent.close();
  return diagnostics;
}

describe("configuration scopes", () => {
  it("untrusted: the project layer is undefined for every scope", async () => {
    box = sandbox();
    writeJson(join(box.home, "config.json"), userConfig);
    writeJson(join(box.workspace, ".keel", "config.json"), projectConfig);
    const { seen, layersSeen, definitions } = probes();
    expect(await run(definitions)).toEqual([]);
    expect(seen).toEqual({
      "user-ext": { level: "debug" },
      "proj-ext": { target: "none" },
      "layer-ext": { items: ["u"] },
      "merge-ext": { a: 1, b: 1, c: 1 },
    });
    expect(layersSeen).toEqual([{ user: { items: ["u"] }, project: undefined }]);
  });

  it("trusted: project scope reads the project, user scope ignores it, layered sees both", async () => {
    box = sandbox();
    writeJson(join(box.home, "config.json"), userConfig);
    writeJson(join(box.workspace, ".keel", "config.json"), projectConfig);
    trustProject(box.workspace, { home: box.home })._unsafeUnwrap();
    const { seen, layersSeen, definitions } = probes();
    expect(await run(definitions)).toEqual([]);
    expect(seen).toEqual({
      "user-ext": { level: "debug" },
      "proj-ext": { target: "staging" },
      "layer-ext": { items: ["u", "p"] },
      "merge-ext": { a: 1, b: 2, c: 1 },
    });
    expect(layersSeen).toEqual([{ user: { items: ["u"] }, project: { items: ["p"] } }]);
  });

  it("the host's session layer goes over user and project, untrusted too, and is checked like a file", async () => {
    box = sandbox();
    writeJson(join(box.home, "config.json"), userConfig);
    writeJson(join(box.workspace, ".keel", "config.json"), projectConfig);
    const { seen, layersSeen, definitions } = probes();
    const session = { "user-ext": { level: "warn" }, "layer-ext": { items: ["s"] }, "merge-ext": { c: 3 } };
    expect(await run(definitions, session)).toEqual([]);
    expect(seen).toEqual({
      "user-ext": { level: "warn" },
      "proj-ext": { target: "none" },
      "layer-ext": { items: ["u"] },
      "merge-ext": { a: 1, b: 1, c: 3 },
    });
    expect(layersSeen).toEqual([{ user: { items: ["u"] }, project: undefined, session: { items: ["s"] } }]);

    const bad = probes();
    const diagnostics = await run(bad.definitions, { "user-ext": { level: 7 } });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.message).toContain(
      "the host's session configuration: /extensions/user-ext/config/level",
    );
  });

  it("no configuration anywhere: each extension gets its default", async () => {
    box = sandbox();
    const { seen, definitions } = probes();
    expect(await run(definitions)).toEqual([]);
    expect(seen).toEqual({
      "user-ext": { level: "info" },
      "proj-ext": { target: "none" },
      "layer-ext": { items: [] },
      "merge-ext": { b: 0, c: 0 },
    });
  });

  it("invalid configuration: that extension is not loaded, the diagnostic names file and field, the others load", async () => {
    box = sandbox();
    writeJson(join(box.home, "config.json"), {
      extensions: { ...userConfig.extensions, "user-ext": { config: { level: 5 } } },
    });
    const { seen, definitions } = probes();
    const diagnostics = await run(definitions);
    expect(Object.keys(seen).sort()).toEqual(["layer-ext", "merge-ext", "proj-ext"]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ extensionId: "user-ext", level: "error" });
    expect(diagnostics[0]!.message).toContain(join(box.home, "config.json"));
    expect(diagnostics[0]!.message).toContain("/extensions/user-ext/config/level");
    expect(diagnostics[0]!.message).toContain("not loaded");
  });

  it("a layered resolve that returns an invalid value is rejected the same way", async () => {
    box = sandbox();
    const bad = defineExtension({
      id: "bad-resolve",
      configuration: {
        scope: "layered",
        schema: Type.Object({ n: Type.Number() }),
        default: { n: 1 },
        resolve: () => ({ n: "one" }) as unknown as { n: number },
      },
    }) as ExtensionDefinition;
    const diagnostics = await run([bad]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.message).toContain("resolved configuration: /extensions/bad-resolve/config/n");
  });

  it("a trusted project cannot knock out a user-scoped extension with invalid configuration", async () => {
    box = sandbox();
    writeJson(join(box.workspace, ".keel", "config.json"), {
      extensions: { "user-ext": { config: { level: 42 } } },
    });
    trustProject(box.workspace, { home: box.home })._unsafeUnwrap();
    const { seen, definitions } = probes();
    expect(await run(definitions)).toEqual([]);
    expect(seen["user-ext"]).toEqual({ level: "info" });
  });

  it("extensions.<id>.enabled false in the user config leaves it out silently", async () => {
    box = sandbox();
    writeJson(join(box.home, "config.json"), { extensions: { "user-ext": { enabled: false } } });
    const { seen, definitions } = probes();
    expect(await run(definitions)).toEqual([]);
    expect(seen["user-ext"]).toBeUndefined();
    expect(seen["proj-ext"]).toEqual({ target: "none" });
  });
});
