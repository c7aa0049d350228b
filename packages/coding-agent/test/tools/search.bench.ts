// Speed figures for Glob and Grep on a generated repository of a few thousand files.
// Run: cd packages/coding-agent && npx tsx test/tools/search.bench.ts [files=4000]
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGlobTool, createGrepTool, createLsTool } from "../../src/tools/index.js";

const files = Number(process.argv[2] ?? 4000);
const root = await mkdtemp(join(tmpdir(), "keel-bench-"));
const ctx = { signal: new AbortController().signal, toolCallId: "bench", onUpdate: () => {} };
const body = (i: number) =>
  Array.from({ length: 120 }, (_, l) => `export const value${l} = compute(${i}, ${l}); // line ${l}`).join(
    "\n",
  );

try {
  execFileSync("git", ["init", "-q"], { cwd: root });
  await writeFile(join(root, ".gitignore"), "dist/\n");
  for (let i = 0; i < files; i++) {
    const dir = join(root, `pkg${i % 40}`, `mod${i % 7}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `file${i}.ts`), i % 500 === 0 ? `${body(i)}\n// NEEDLE ${i}\n` : body(i));
  }
  await mkdir(join(root, "dist"), { recursive: true });
  await writeFile(join(root, "dist/ignored.ts"), "// NEEDLE ignored\n");

  const time = async (label: string, run: () => Promise<unknown>) => {
    await run(); // warm the page cache
    const started = performance.now();
    const runs = 3;
    for (let i = 0; i < runs; i++) await run();
    console.log(`${label}: ${((performance.now() - started) / runs).toFixed(0)} ms`);
  };
  const grep = createGrepTool({ cwd: root });
  const glob = createGlobTool({ cwd: root });
  const ls = createLsTool({ cwd: root });
  console.log(`${files} files, ~${((files * 120 * 45) / 1024 / 1024).toFixed(0)} MB`);
  await time("Glob **/*.ts", () => glob.execute({ pattern: "**/*.ts" }, ctx));
  await time("Grep NEEDLE files_with_matches", () => grep.execute({ pattern: "NEEDLE" }, ctx));
  await time("Grep NEEDLE content -C 2", () =>
    grep.execute({ pattern: "NEEDLE", output_mode: "content", "-C": 2 }, ctx),
  );
  await time("Grep value1\\d count", () => grep.execute({ pattern: "value1\\d", output_mode: "count" }, ctx));
  await time("LS", () => ls.execute({}, ctx));
} finally {
  await rm(root, { recursive: true, force: true });
}
