// The docs cannot drift: the README's complete example and factory example, and every file in
// examples/extensions, are type-checked against the SDK source; the complete example also runs.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ExtensionDefinition,
  type ExtensionRuntime,
  headlessUI,
  listTools,
  type ToolCallContext,
} from "../src/index.js";

const pkg = resolve(import.meta.dirname, "..");
const repo = resolve(pkg, "../..");
const examplesDir = join(repo, "examples/extensions");
let dir: string;

function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

const readme = readFileSync(join(pkg, "README.md"), "utf8");
const complete = tsBlocks(readme)[0]!;
const factory = tsBlocks(readme).find((b) => b.includes("KeelAPI"))!;
const examplesReadme = tsBlocks(readFileSync(join(examplesDir, "README.md"), "utf8"));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "keel-readme-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(join(dir, "complete.ts"), complete);
  writeFileSync(join(dir, "factory.ts"), factory);
  for (const [i, block] of examplesReadme.entries())
    writeFileSync(join(dir, `examples-readme-${i}.ts`), block);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("extension-sdk README", () => {
  it("has the blocks this test relies on", () => {
    expect(complete).toContain("defineExtension(");
    expect(factory).toContain("export default function (keel: KeelAPI)");
    expect(examplesReadme.length).toBeGreaterThan(0);
  });

  it("type-checks the README blocks and the example extensions against the SDK source", () => {
    const examples = readdirSync(examplesDir)
      .filter((f) => f.endsWith(".ts"))
      .map((f) => join(examplesDir, f));
    expect(examples.map((f) => f.slice(examplesDir.length + 1))).toEqual(
      expect.arrayContaining(["notify.ts", "task-timer.ts"]),
    );
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: join(repo, "tsconfig.base.json"),
        compilerOptions: {
          noEmit: true,
          typeRoots: [join(repo, "node_modules/@types")],
          paths: { "@keel/extension-sdk": [join(pkg, "src/index.ts")] },
        },
        files: [...readdirSync(dir).filter((f) => f.endsWith(".ts")), ...examples],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(repo, "node_modules/typescript/bin/tsc"), "-p", dir], {
      encoding: "utf8",
    });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
    // tsc in a child process: seconds alone, a minute on a loaded machine.
  }, 180_000);

  it("runs the complete example: layered config, tool, state, reminder, widget, command", async () => {
    const mod = (await import(join(dir, "complete.ts"))) as { default: ExtensionDefinition };
    const ext = mod.default;
    const spec = ext.configuration;
    if (spec?.scope !== "layered") throw new Error("the example's configuration should be layered");
    expect(
      spec.resolve?.({ user: { maxItems: 5, remind: true }, project: { maxItems: 50, remind: false } }),
    ).toEqual({ maxItems: 5, remind: true });

    let state = ext.sessionState!.default;
    const widgets: (string[] | undefined)[] = [];
    const runtime = {
      config: { maxItems: 1, remind: true },
      state: {
        get: () => state,
        set: (next: unknown) => {
          state = next;
        },
      },
      ui: { ...headlessUI(), setWidget: (_key: string, lines: string[] | undefined) => widgets.push(lines) },
    } as unknown as ExtensionRuntime;
    const [add] = listTools(ext);
    const signal = new AbortController().signal;
    const ctx: ToolCallContext = {
      signal,
      toolCallId: "1",
      onUpdate: () => {},
      runAgent: async () => ({ ok: false, error: { type: "not_allowed", message: "no agents here" } }),
      agents: () => [],
      approve: async () => ({ status: "unsupported" }),
      exec: async () => ({ ok: false, error: { type: "invalid", message: "no processes here" } }),
    };
    await add!.execute({ url: "https://a.example", title: "A" }, ctx, runtime);
    const full = await add!.execute({ url: "https://b.example", title: "B" }, ctx, runtime);
    expect(full.isError).toBe(true);

    expect(widgets).toEqual([["○ A"]]);
    await expect(
      Promise.resolve(ext.hooks?.beforeModelCall?.({ turn: 1 }, runtime, { signal })),
    ).resolves.toEqual({
      context: "Unread: A",
    });
    const command = ext.commands?.find((c) => c.name === "reading");
    expect(await command?.run("", runtime, { signal })).toEqual({ message: "○ A https://a.example" });
  });
});
