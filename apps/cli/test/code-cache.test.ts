// The bin compiles the core and the official extensions' bundles through V8's code cache under
// KEEL_HOME: the first start writes it, later starts reuse it (also after the kernel switched V8
// flags for the shell parser mid-run), a damaged cache is only a slower start, an extension config
// turns off is never read, and a start from the cache still reaches ES modules (extensions, the
// shell parser) through Node's loader.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Script } from "node:vm";
import { BEFORE_V8_FLAGS as kernelSignal } from "@keel/coding-agent";
import { describe, expect, it } from "vitest";
import {
  BEFORE_V8_FLAGS,
  CJS_WRAPPER_HEAD,
  enableModuleCache,
  MIN_FREE_BYTES,
  requireWithCodeCache,
  writeCache,
} from "../src/code-cache.js";
import { MODEL, mockSuite, runKeel, type Workspace } from "./helpers.js";

const { fresh } = mockSuite({ text: "ok" });
const REPORT = { KEEL_REPORT_CODE_CACHE: "1" };

const cacheDir = (ws: Workspace) => join(ws.home, "cache", "code");
const cacheFiles = (ws: Workspace) => (existsSync(cacheDir(ws)) ? readdirSync(cacheDir(ws)) : []);
const stateOf = (stderr: string) => /keel: code cache (\w+)/.exec(stderr)?.[1];

describe("code cache", () => {
  it("the first start writes the cache, the next one runs from it with the same result", async () => {
    const { server, ws } = fresh([]);
    const args = ["-p", "hi", "--model", MODEL, "--cwd", ws.repo];
    const first = await runKeel(args, { server, ws, env: REPORT });
    expect(first).toMatchObject({ code: 0, stdout: "ok\n" });
    expect(stateOf(first.stderr)).toBe("miss");
    // The core's and one per official extension, each named for its build and this node.
    expect(cacheFiles(ws).sort()).toEqual(
      ["connector", "mcp", "skills", "subagent", "todo", "web-search"]
        .map((id) => `ext-${id}`)
        .concat("keel")
        .sort()
        .map((name) =>
          expect.stringMatching(new RegExp(`^${name}\\.cjs-v\\d+\\.\\d+\\.\\d+-\\w+-\\d+-\\d+\\.v8$`)),
        ),
    );

    const second = await runKeel(args, { server, ws, env: REPORT });
    expect(second).toMatchObject({ code: 0, stdout: "ok\n" });
    expect(stateOf(second.stderr)).toBe("hit");
  });

  it("a first run that judges a shell command (the kernel switches V8 flags) leaves a cache the next start accepts", async () => {
    const { server, ws } = fresh([
      { toolCalls: [{ name: "Bash", arguments: { command: "echo judged" } }] },
      { text: "done" },
    ]);
    const args = [
      "-p",
      "run it",
      "--model",
      MODEL,
      "--cwd",
      ws.repo,
      "--permission-mode",
      "bypassPermissions",
    ];
    const first = await runKeel(args, { server, ws, env: REPORT });
    expect(first).toMatchObject({ code: 0, stdout: "done\n" });
    expect(stateOf(first.stderr)).toBe("miss");
    expect(server.requests.at(-1)!.raw).toContain("judged");
    const second = await runKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
      env: REPORT,
    });
    expect(second).toMatchObject({ code: 0, stdout: "ok\n" });
    expect(stateOf(second.stderr)).toBe("hit");
  });

  it("an official extension config turns off is never read: no cache of its bundle", async () => {
    const { server, ws } = fresh([]);
    writeFileSync(
      join(ws.home, "config.json"),
      JSON.stringify({ extensions: { skills: { enabled: false } } }),
    );
    const r = await runKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo], { server, ws });
    expect(r).toMatchObject({ code: 0, stdout: "ok\n" });
    expect(cacheFiles(ws).filter((f) => f.startsWith("ext-skills."))).toEqual([]);
    expect(cacheFiles(ws).filter((f) => f.startsWith("ext-todo."))).toHaveLength(1);
  });

  it("a damaged cache is rejected, the run still succeeds, and the cache is rewritten", async () => {
    const { server, ws } = fresh([]);
    const args = ["-p", "hi", "--model", MODEL, "--cwd", ws.repo];
    await runKeel(args, { server, ws });
    const name = cacheFiles(ws).find((f) => f.startsWith("keel.cjs-"));
    const file = join(cacheDir(ws), name!);
    const good = readFileSync(file);
    writeFileSync(file, Buffer.alloc(good.length, 0x5a));

    const damaged = await runKeel(args, { server, ws, env: REPORT });
    expect(damaged).toMatchObject({ code: 0, stdout: "ok\n" });
    expect(stateOf(damaged.stderr)).toBe("rejected");
    expect(readFileSync(file).equals(Buffer.alloc(good.length, 0x5a))).toBe(false);

    const after = await runKeel(args, { server, ws, env: REPORT });
    expect(stateOf(after.stderr)).toBe("hit");
  });

  it("Node's compile cache keeps what Node's loader compiles (an .mjs extension) beside it, for this Node only", async () => {
    const { server, ws } = fresh([]);
    const modules = join(ws.home, "cache", "modules");
    mkdirSync(join(modules, "v0.0.1-x64-5f17e4e4-0"), { recursive: true });
    writeFileSync(join(ws.home, "plain.mjs"), "export default function () {}\n");
    const args = ["-p", "hi", "--model", MODEL, "--cwd", ws.repo, "-e", join(ws.home, "plain.mjs")];
    expect(await runKeel(args, { server, ws })).toMatchObject({ code: 0, stdout: "ok\n" });
    const folders = readdirSync(modules);
    expect(folders).toEqual([expect.stringMatching(new RegExp(`^${process.version}-${process.arch}-`))]);
    expect(readdirSync(join(modules, folders[0]!)).length).toBeGreaterThan(0);
  });

  it("KEEL_CODE_CACHE=0 compiles without a cache and writes none", async () => {
    const { server, ws } = fresh([]);
    const r = await runKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo], {
      server,
      ws,
      env: { ...REPORT, KEEL_CODE_CACHE: "0" },
    });
    expect(r).toMatchObject({ code: 0, stdout: "ok\n" });
    expect(stateOf(r.stderr)).toBe("off");
    expect(cacheFiles(ws)).toEqual([]);
    expect(existsSync(join(ws.home, "cache", "modules"))).toBe(false);
  });

  it("a start from the cache still loads .mjs and .ts extensions and the shell parser", async () => {
    const { server, ws } = fresh([]);
    // Warm the cache first, with a run that loads none of them.
    await runKeel(["-p", "hi", "--model", MODEL, "--cwd", ws.repo], { server, ws });

    const mark = (kind: string) => join(ws.home, `${kind}.loaded`);
    const extension = (kind: string) =>
      `import { writeFileSync } from "node:fs";\nexport default function () { writeFileSync(${JSON.stringify(mark(kind))}, "yes"); }\n`;
    writeFileSync(join(ws.home, "plain.mjs"), extension("mjs"));
    writeFileSync(join(ws.home, "typed.ts"), extension("ts").replace("function ()", "function (): void"));
    server.setScenario({
      turns: [{ toolCalls: [{ name: "Bash", arguments: { command: "echo from-bash" } }] }, { text: "done" }],
    });
    const r = await runKeel(
      [
        "-p",
        "run it",
        "--model",
        MODEL,
        "--cwd",
        ws.repo,
        "-e",
        join(ws.home, "plain.mjs"),
        "-e",
        join(ws.home, "typed.ts"),
      ],
      { server, ws, env: REPORT },
    );
    expect(stateOf(r.stderr)).toBe("hit");
    expect(r).toMatchObject({ code: 0, stdout: "done\n" });
    expect(existsSync(mark("mjs"))).toBe(true);
    expect(existsSync(mark("ts"))).toBe(true);
    // The Bash call was judged (tree-sitter, imported on demand) and ran.
    expect(server.requests.at(-1)!.raw).toContain("from-bash");
  });
});

describe("the code cache and the kernel", () => {
  it("listen for the signal the kernel sends before it switches V8 flags", () => {
    expect(BEFORE_V8_FLAGS).toBe(kernelSignal);
  });
});

describe("the bundles the bin compiles", () => {
  const dist = join(import.meta.dirname, "..", "dist");
  const bundles = readdirSync(dist).filter(
    (f) => f === "keel.cjs" || f === "acp.cjs" || /^ext-.+\.cjs$/.test(f),
  );

  it("arrive wrapped, so the core is compiled as read and not copied again", () => {
    expect(bundles).toContain("keel.cjs");
    for (const file of bundles) {
      const text = readFileSync(join(dist, file), "latin1");
      expect(text.startsWith(`${CJS_WRAPPER_HEAD}\n`), file).toBe(true);
      // The whole file is one function expression: evaluated, it only makes the function.
      expect(typeof new Script(text, { filename: file }).runInThisContext(), file).toBe("function");
      // The wrapper's line is in the source map too: line 2 of the file is line 1 of the bundle.
      const map = JSON.parse(readFileSync(join(dist, `${file}.map`), "utf8")) as { mappings: string };
      expect(map.mappings.split(";")[0], file).toBe("");
    }
  });

  it("loads a wrapped file as require() would, and refuses one the build did not wrap", () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-wrap-"));
    try {
      writeFileSync(join(dir, "plain.cjs"), "module.exports = 42;\n");
      writeFileSync(
        join(dir, "wrapped.cjs"),
        `${CJS_WRAPPER_HEAD}\nexports.name = require("node:path").basename(__filename);\n})`,
      );
      expect(requireWithCodeCache(join(dir, "wrapped.cjs"), undefined).exports).toEqual({
        name: "wrapped.cjs",
      });
      expect(() => requireWithCodeCache(join(dir, "plain.cjs"), undefined)).toThrow(
        `${join(dir, "plain.cjs")} is not a bundle keel's build wrapped; reinstall keel or run pnpm build`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the code cache never fills a disk", () => {
  const withDir = (test: (dir: string) => void) => {
    const dir = mkdtempSync(join(tmpdir(), "keel-code-cache-"));
    try {
      test(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const data = Buffer.alloc(4096, 1);

  it("Node's compile cache is not turned on when the disk is nearly full", () =>
    withDir((dir) => {
      expect(enableModuleCache(dir, { freeBytes: () => MIN_FREE_BYTES - 1 })).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
    }));

  it("writes nothing when the disk would be left with less than its margin", () =>
    withDir((dir) => {
      const path = join(dir, "keel.cjs-a.v8");
      writeCache(path, "keel.cjs-", data, { freeBytes: () => MIN_FREE_BYTES + data.length - 1 });
      expect(readdirSync(dir)).toEqual([]);
      writeCache(path, "keel.cjs-", data, { freeBytes: () => MIN_FREE_BYTES + data.length });
      expect(readdirSync(dir)).toEqual(["keel.cjs-a.v8"]);
    }));

  it("leaves no temporary file behind when the write fails", () =>
    withDir((dir) => {
      // A directory where the cache should go: the rename fails after the temp file was written.
      const path = join(dir, "keel.cjs-a.v8");
      mkdirSync(join(path, "occupied"), { recursive: true });
      writeCache(path, "keel.cjs-", data, { freeBytes: () => Number.MAX_SAFE_INTEGER });
      expect(readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    }));

  it("removes other builds' caches and temporary files a dead writer left, keeps a live one's", () =>
    withDir((dir) => {
      for (const name of ["keel.cjs-old.v8", "keel.cjs-x.v8.1.tmp", "keel.cjs-x.v8.2.tmp", "other.v8"])
        writeFileSync(join(dir, name), "x");
      const hourAgo = (Date.now() - 60 * 60 * 1000) / 1000;
      utimesSync(join(dir, "keel.cjs-x.v8.1.tmp"), hourAgo, hourAgo);
      writeCache(join(dir, "keel.cjs-new.v8"), "keel.cjs-", data, {
        freeBytes: () => Number.MAX_SAFE_INTEGER,
      });
      expect(readdirSync(dir).sort()).toEqual(["keel.cjs-new.v8", "keel.cjs-x.v8.2.tmp", "other.v8"]);
    }));
});
