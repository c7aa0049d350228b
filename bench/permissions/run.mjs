// What judging one tool call costs (decide() runs before every Bash, Read, Grep… call): median
// and p99 microseconds per call over a mix of everyday commands in a real git workspace, and the
// one-time tree-sitter load. After `pnpm build`: node bench/permissions/run.mjs [--calls N] [--dist DIR]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
};
const CALLS = Number(arg("--calls", 3000));
// --dist lets the same script time another build of the kernel (e.g. an older commit's).
const dist = resolve(arg("--dist", new URL("../../packages/coding-agent/dist", import.meta.url).pathname));
const { decide } = await import(pathToFileURL(join(dist, "index.js")).href);

const root = mkdtempSync(join(tmpdir(), "keel-bench-perm-"));
const workspace = join(root, "repo");
const home = join(root, "home");
mkdirSync(join(workspace, "src", "lib"), { recursive: true });
mkdirSync(home, { recursive: true });
execFileSync("git", ["init", "-q", workspace]);
for (let i = 0; i < 40; i++) writeFileSync(join(workspace, "src", `f${i}.ts`), "export {};\n");
writeFileSync(join(workspace, "package.json"), "{}\n");

const CALLS_MIX = [
  { tool: "Bash", args: { command: "git status" } },
  { tool: "Bash", args: { command: "git diff HEAD -- src && git log --oneline -20" } },
  { tool: "Bash", args: { command: "ls -la src && cat package.json | head -20" } },
  { tool: "Bash", args: { command: "grep -rn 'TODO' src | wc -l" } },
  { tool: "Bash", args: { command: "npm test -- --run" } },
  { tool: "Bash", args: { command: "cd src && find . -name '*.ts' -newer ../package.json | sort" } },
  { tool: "Bash", args: { command: "cat src/*.ts | sed -n '1,5p'" } },
  { tool: "Bash", args: { command: "echo done > out.txt" } },
  { tool: "Read", args: { path: "src/f1.ts" } },
  { tool: "Grep", args: { pattern: "export", path: "src" } },
  { tool: "Edit", args: { path: "src/f2.ts" } },
];
const rules = [
  { rule: "Bash(npm test:*)", behavior: "allow", source: "user" },
  { rule: "Read(~/.ssh/**)", behavior: "deny", source: "user" },
  { rule: "Bash(git push:*)", behavior: "ask", source: "user" },
];
const request = (call) => ({
  ...call,
  mode: "default",
  rules,
  workspace,
  userHome: home,
  keelHome: join(home, ".keel"),
});

const loadStart = performance.now();
await decide(request(CALLS_MIX[0]));
const firstMs = performance.now() - loadStart;

const times = [];
for (let i = 0; i < CALLS; i++) {
  const call = CALLS_MIX[i % CALLS_MIX.length];
  const t = performance.now();
  await decide(request(call));
  times.push((performance.now() - t) * 1000);
}
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
const bashOnly = [];
for (let i = 0; i < CALLS; i++) {
  const t = performance.now();
  await decide(request(CALLS_MIX[i % 8]));
  bashOnly.push((performance.now() - t) * 1000);
}
bashOnly.sort((a, b) => a - b);
console.log(`permissions: decide() over ${CALLS} calls of ${CALLS_MIX.length} everyday tool calls (${dist})`);
console.log(`  first call (loads tree-sitter-bash):  ${firstMs.toFixed(1)} ms`);
console.log(`  per call, median / p99:               ${at(0.5).toFixed(0)} / ${at(0.99).toFixed(0)} µs`);
console.log(
  `  Bash calls only, median / p99:         ${bashOnly[Math.floor(bashOnly.length / 2)].toFixed(0)} / ${bashOnly[Math.floor(bashOnly.length * 0.99)].toFixed(0)} µs`,
);
rmSync(root, { recursive: true, force: true });
