// Which bundled modules `keel -p` evaluates before its first model request, by package, with their
// size in the core: what a start pays for in evaluation and in code-cache size. Run after
// `pnpm build`: node bench/cli/start-modules.mjs [--root <checkout>] [--bare] [--all]
// V8's function events (--log-function-events) name each module wrapper esbuild emits (CommonJS
// dependencies, and ES modules that are also imported lazily) by its path; ES modules flattened
// into the bundle's top level are not listed (they always run). The cut is the first call of the
// AI transport's nodeFetch, the first request going out; --all lists the whole run.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const flag = (name) => process.argv.indexOf(name);
const root =
  flag("--root") > 0
    ? process.argv[flag("--root") + 1]
    : join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const BARE = flag("--bare") > 0;
const ALL = flag("--all") > 0;
const OFFICIAL = ["todo", "skills", "web-search", "mcp", "connector", "subagent"];
const bin = join(root, "apps/cli/dist/bin.cjs");
const core = join(root, "apps/cli/dist/keel.cjs");
const { startMockServer } = await import(pathToFileURL(join(root, "packages/testing/dist/index.js")).href);

const base = mkdtempSync(join(tmpdir(), "keel-bench-modules-"));
const home = join(base, "home");
const repo = join(base, "repo");
const log = join(base, "v8.log");
mkdirSync(home);
mkdirSync(repo);
spawnSync("git", ["init", "-q", repo]);
if (BARE)
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({ extensions: Object.fromEntries(OFFICIAL.map((id) => [id, { enabled: false }])) }),
  );
const server = await startMockServer({ turns: [], fallback: { text: "ok" } });

let stderr = "";
const code = await new Promise((resolve, reject) => {
  const child = spawn(
    process.execPath,
    ["--log-function-events", `--logfile=${log}`, "--no-logfile-per-isolate", bin, "-p", "hi"],
    {
      cwd: repo,
      stdio: ["ignore", "ignore", "pipe"],
      env: {
        ...process.env,
        KEEL_HOME: home,
        // Compiled from source, so every function's first execution is logged as it happens.
        KEEL_CODE_CACHE: "0",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        ANTHROPIC_API_KEY: "bench",
        NO_PROXY: "127.0.0.1,localhost",
      },
    },
  );
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  child.on("error", reject);
  child.on("close", resolve);
});
await server.close?.();
if (code !== 0) throw new Error(`keel exited with ${code}: ${stderr}`);

// function,first-execution,<script>,<start>,<end>,<time>,<timestamp>,<name>
const lines = readFileSync(log, "utf8").split("\n");
const script = lines.map((l) => l.split(",")).find((f) => f[0] === "script-details" && f[2] === core)?.[1];
if (!script) throw new Error(`no script events for ${core}`);
const packageOf = (path) =>
  path
    .replace(/.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?((@[^/]+\/)?[^/]+).*/, "$2")
    .replace(/^(\.\.\/)+(packages\/(extensions\/)?[^/]+|apps\/[^/]+)\/.*/, "$2");
const byPackage = new Map();
let functions = 0;
for (const line of lines) {
  const f = line.split(",");
  if (f[0] !== "function" || f[1] !== "first-execution" || f[2] !== script) continue;
  const name = f.slice(7).join(",");
  if (!ALL && name === "nodeFetch") break;
  functions++;
  if (!/\/.*\.(m?js|cjs|json)$/.test(name)) continue;
  const pkg = packageOf(name);
  const entry = byPackage.get(pkg) ?? { modules: 0, bytes: 0 };
  entry.modules++;
  entry.bytes += Number(f[4]) - Number(f[3]);
  byPackage.set(pkg, entry);
}
rmSync(base, { recursive: true, force: true });

const kb = (b) => `${(b / 1024).toFixed(1)} KB`;
const rows = [...byPackage].sort((a, b) => b[1].bytes - a[1].bytes);
const total = rows.reduce((s, [, e]) => s + e.bytes, 0);
console.log(
  `${ALL ? "whole run" : "before the first request"}: ${functions} functions run; ` +
    `wrapped modules evaluated: ${rows.reduce((s, [, e]) => s + e.modules, 0)}, ${kb(total)}`,
);
for (const [pkg, e] of rows)
  console.log(`  ${kb(e.bytes).padStart(10)}  ${String(e.modules).padStart(3)}  ${pkg}`);
