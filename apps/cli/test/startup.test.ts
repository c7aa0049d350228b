// Startup shape: --version/--help answer without the kernel, and print mode never loads the TUI
// (src/tui, ink, react), checked both in the bundle's module graph and in a real run.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HELP } from "../src/help.js";
import { OFFICIAL_EXTENSIONS } from "../src/official.js";
import { CLI_ROOT, MODEL, runKeel, type Workspace, workspace } from "./helpers.js";

let server: MockServer;
let ws: Workspace;
beforeAll(async () => {
  server = await startMockServer({ turns: [], fallback: { text: "ok" } });
  ws = workspace();
});
afterAll(async () => {
  await server.close();
  ws.dispose();
});

interface Metafile {
  outputs: Record<
    string,
    {
      imports: { path: string; kind: string; external?: boolean }[];
      inputs: Record<string, { bytesInOutput: number }>;
    }
  >;
}

/** Every input and external reached from `roots` through the bundle graph of dist/meta.json. */
function reachable(meta: Metafile, roots: string[]): string[] {
  const seen = new Set<string>();
  const queue = [...roots];
  const reached: string[] = [];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const output = meta.outputs[file];
    expect(output, `${file} is in the metafile`).toBeDefined();
    reached.push(...Object.keys(output!.inputs));
    for (const imp of output!.imports) {
      // The core's esm-import module is an external file the build emits next to it.
      if (imp.path === "./esm-import.cjs") queue.push("dist/esm-import.cjs");
      else if (imp.external) reached.push(imp.path);
      else queue.push(imp.path);
    }
  }
  return reached;
}

const extensionBundles = OFFICIAL_EXTENSIONS.map(({ id }) => `dist/ext-${id}.cjs`);

/**
 * A --require preload that appends, at each process's exit, the Node modules it loaded whose names
 * match `pattern` and then a "|": one "|"-ended entry per run, empty when none matched.
 */
function builtinProbe(dir: string, name: string, pattern: RegExp) {
  const preload = join(dir, `${name}-probe.cjs`);
  const report = join(dir, `${name}.log`);
  writeFileSync(
    preload,
    `process.on("exit", () => require("node:fs").appendFileSync(${JSON.stringify(report)},
  process.moduleLoadList.filter((m) => ${pattern}.test(m)).join(",") + "|"));`,
  );
  writeFileSync(report, "");
  return { nodeArgs: ["--require", preload], read: () => readFileSync(report, "utf8") };
}

const isTui = (path: string) =>
  /(^|\/)src\/tui\/|(^|\/)node_modules\/(\.pnpm\/)?(ink|react)[@/]|^(ink|react)(\/|$)/.test(path);

describe("startup", () => {
  it("--version and --help", async () => {
    const version = (JSON.parse(readFileSync(join(CLI_ROOT, "package.json"), "utf8")) as { version: string })
      .version;
    const v = await runKeel(["--version"], { ws });
    expect(v).toMatchObject({ code: 0, stdout: `keel ${version}\n` });
    const h = await runKeel(["--help"], { ws });
    expect(h).toMatchObject({ code: 0, stdout: HELP });
    const rss = await runKeel(["--version"], { ws, env: { KEEL_REPORT_RSS: "1" } });
    expect(rss.stderr).toMatch(/^keel: maxRSS \d+ KB$/m);
  });

  it("--version loads none of Node's crypto (a third of a bare node start's work)", async () => {
    const probe = builtinProbe(ws.home, "crypto", /crypto/);
    const v = await runKeel(["--version"], { ws, nodeArgs: probe.nodeArgs });
    expect(v.code, v.stderr).toBe(0);
    expect(probe.read()).toBe("|");
    // The probe does see crypto when something loads it.
    const touched = await runKeel(["--version"], {
      ws,
      nodeArgs: [...probe.nodeArgs, "-e", "require('node:crypto')"],
    });
    expect(touched.code).toBe(0);
    expect(probe.read()).toMatch(/^\|.*NativeModule crypto.*\|$/);
  });

  it("the graph of the bin, the core and the extensions' bundles, dynamic imports included, never reaches the TUI", () => {
    const meta = JSON.parse(readFileSync(join(CLI_ROOT, "dist/meta.json"), "utf8")) as Metafile;
    // The bin loads dist/keel.cjs, and the core each dist/ext-<id>.cjs, by path (through the code
    // cache), so all are roots.
    const reached = reachable(meta, ["dist/bin.cjs", "dist/keel.cjs", ...extensionBundles]);
    expect(reached.some((p) => p.startsWith("src/print/"))).toBe(true);
    expect(reached.filter(isTui)).toEqual([]);
  });

  it("the core carries no official extension: each is a bundle of its own, with the core's SDK", () => {
    const meta = JSON.parse(readFileSync(join(CLI_ROOT, "dist/meta.json"), "utf8")) as Metafile;
    const inputs = (file: string) => Object.keys(meta.outputs[file]!.inputs);
    expect(inputs("dist/keel.cjs").filter((p) => /packages\/extensions\//.test(p))).toEqual([]);
    for (const { id, from } of OFFICIAL_EXTENSIONS) {
      const own = inputs(`dist/ext-${id}.cjs`);
      const dir = from.replace("@keel/ext-", "");
      expect(own.some((p) => p.includes(`packages/extensions/${dir}/`))).toBe(true);
      // Lent by the core (src/shared-modules.ts), not carried again.
      expect(
        own.filter((p) =>
          /packages\/extension-sdk\/|node_modules\/(\.pnpm\/)?(@sinclair\+typebox|neverthrow)/.test(p),
        ),
      ).toEqual([]);
    }
  });

  it("the bin carries none of the kernel but its home-directory rule and the SDK's atomic write (--version stays cheap)", () => {
    const meta = JSON.parse(readFileSync(join(CLI_ROOT, "dist/meta.json"), "utf8")) as Metafile;
    // The bin is one file (it imports nothing but Node's modules); count what it really holds.
    const fromPackages = Object.entries(meta.outputs["dist/bin.cjs"]!.inputs)
      .filter(([path, input]) => /(^|\/)packages\//.test(path) && input.bytesInOutput > 0)
      .map(([path]) => path);
    // The code cache is written through the one atomic write (@keel/extension-sdk/node, with the
    // errno wording it shares with the bounded read), and --allowedTools is read with the SDK's
    // rule reader: nothing else of the SDK (its front matter, TypeBox).
    expect(fromPackages.sort()).toEqual([
      expect.stringMatching(/packages\/coding-agent\/dist\/config\/paths\.js$/),
      expect.stringMatching(/packages\/extension-sdk\/dist\/node\/atomic-write\.js$/),
      expect.stringMatching(/packages\/extension-sdk\/dist\/node\/errno\.js$/),
      expect.stringMatching(/packages\/extension-sdk\/dist\/tool-rules\.js$/),
    ]);
  });

  it("the TUI bundle carries no kernel: it gets the core's", () => {
    const meta = JSON.parse(readFileSync(join(CLI_ROOT, "dist/meta.json"), "utf8")) as Metafile;
    const reached = reachable(meta, ["dist/tui/index.js"]);
    expect(reached.some((p) => p.startsWith("src/tui/"))).toBe(true);
    expect(reached.filter((p) => /(^|\/)packages\/|@keel\//.test(p))).toEqual([]);
  });

  it("a real keel -p run loads no TUI module", async () => {
    // Both loaders are watched: require() (the core is CommonJS) and ESM resolution (the TUI is ESM).
    const log = join(ws.home, "modules.log");
    const hooks = join(ws.home, "hooks.mjs");
    writeFileSync(
      hooks,
      `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + "\\n");
  return result;
}`,
    );
    const preload = join(ws.home, "preload.cjs");
    writeFileSync(
      preload,
      `const { appendFileSync } = require("node:fs");
const Module = require("node:module");
Module.register(${JSON.stringify(pathToFileURL(hooks).href)});
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const path = resolveFilename.apply(this, args);
  appendFileSync(${JSON.stringify(log)}, path + "\\n");
  return path;
};
`,
    );
    const r = await runKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
      nodeArgs: ["--require", preload],
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("ok\n");
    const loaded = readFileSync(log, "utf8").split("\n").filter(Boolean);
    expect(loaded.some((u) => u.endsWith("/dist/esm-import.cjs"))).toBe(true);
    expect(loaded.filter((u) => isTui(u.replace(/^file:\/\//, "")) || /\/dist\/tui\//.test(u))).toEqual([]);
  });

  it("a keel -p turn in each dialect sends its request without loading Node's undici", async () => {
    // Headers, Response and FormData are undici's: the first touch of one loads all of it. The
    // bundle gives the SDKs @keel/ai's (src/fetch-globals.ts), so no run touches it.
    const own = workspace();
    try {
      writeFileSync(
        join(own.home, "config.json"),
        JSON.stringify({ providers: { deepseek: { baseUrl: server.openaiBaseUrl } } }),
      );
      const probe = builtinProbe(own.home, "undici", /undici/);
      const env = { OPENAI_BASE_URL: server.openaiBaseUrl, OPENAI_API_KEY: "test", DEEPSEEK_API_KEY: "test" };
      const before = server.requests.length;
      for (const model of [MODEL, "openai/gpt-5", "deepseek/deepseek-v4-pro"]) {
        const r = await runKeel(["-p", "hi", "--model", model, "--cwd", own.repo], {
          server,
          ws: own,
          env,
          nodeArgs: probe.nodeArgs,
        });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toBe("ok\n");
      }
      expect(server.requests.slice(before).map((q) => q.api)).toEqual([
        "anthropic-messages",
        "openai-responses",
        "openai-completions",
      ]);
      expect(probe.read()).toBe("|||");
      // The probe does see undici when something loads it.
      const touched = await runKeel(["--version"], {
        ws: own,
        nodeArgs: [...probe.nodeArgs, "-e", "Headers"],
      });
      expect(touched.code).toBe(0);
      expect(probe.read()).toMatch(/^\|\|\|.*undici.*\|$/);
    } finally {
      own.dispose();
    }
  });

  it("interactive mode without a terminal is a usage error pointing at -p", async () => {
    const r = await runKeel(["hello"], { ws });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("keel -p");
  });
});
