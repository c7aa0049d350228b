// The bin compiles the core through V8's code cache under KEEL_HOME: the first start writes it,
// later starts reuse it, a damaged cache is only a slower start, and a start from the cache
// still reaches ES modules (extensions, the shell parser) through Node's loader.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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
    expect(cacheFiles(ws)).toEqual([expect.stringMatching(/^keel\.cjs-v\d+\.\d+\.\d+-\w+-\d+-\d+\.v8$/)]);

    const second = await runKeel(args, { server, ws, env: REPORT });
    expect(second).toMatchObject({ code: 0, stdout: "ok\n" });
    expect(stateOf(second.stderr)).toBe("hit");
  });

  it("a damaged cache is rejected, the run still succeeds, and the cache is rewritten", async () => {
    const { server, ws } = fresh([]);
    const args = ["-p", "hi", "--model", MODEL, "--cwd", ws.repo];
    await runKeel(args, { server, ws });
    const [name] = cacheFiles(ws);
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
