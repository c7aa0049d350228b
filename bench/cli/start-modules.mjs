// What `keel -p` runs of its own bundles before its first model request, by package: how many
// functions ran for the first time and how much code they span, in the core (dist/keel.cjs) and
// the official extensions' bundles (dist/ext-<id>.cjs): what a start pays to evaluate and what its
// code cache holds. Run after `pnpm build`: node bench/cli/start-modules.mjs [--root <checkout>]
// [--bare] [--all]
// V8's function events (--log-function-events) give each function's first execution with its place
// in the bundle, mapped back to its source through the bundle's source map. The cut is the first
// call of the AI transport's nodeFetch, the first request going out; --all lists the whole run.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const flag = (name) => process.argv.indexOf(name);
const root =
  flag("--root") > 0
    ? process.argv[flag("--root") + 1]
    : join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const BARE = flag("--bare") > 0;
const ALL = flag("--all") > 0;
const OFFICIAL = ["todo", "skills", "web-search", "mcp", "connector", "subagent"];
const dist = join(root, "apps/cli/dist");
const bin = join(dist, "bin.cjs");
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

/** A bundle of ours: its source map and where each line starts, to map a character offset. */
function bundle(file) {
  const text = readFileSync(file, "utf8");
  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  const map = existsSync(`${file}.map`)
    ? new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")))
    : undefined;
  return {
    name: basename(file),
    sourceAt(offset) {
      let lo = 0;
      let hi = lineStarts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (lineStarts[mid] <= offset) lo = mid;
        else hi = mid - 1;
      }
      return map?.findEntry(lo, offset - lineStarts[lo])?.originalSource ?? "?";
    },
  };
}
const packageOf = (path) =>
  path
    .replace(/.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?((@[^/]+\/)?[^/]+).*/, "$2")
    .replace(/^(\.\.\/)+(packages\/(extensions\/)?[^/]+|apps\/[^/]+)\/.*/, "$2")
    .replace(/^\.\.\/src\/.*/, "apps/cli");

// script-details,<id>,<path>,…  and  function,first-execution,<script>,<start>,<end>,<time>,<timestamp>,<name>
const lines = readFileSync(log, "utf8").split("\n");
const bundles = new Map();
for (const line of lines) {
  const f = line.split(",");
  if (f[0] === "script-details" && f[2]?.startsWith(dist) && /\/(keel|ext-[a-z-]+)\.cjs$/.test(f[2]))
    bundles.set(f[1], bundle(f[2]));
}
if (bundles.size === 0) throw new Error(`no script events for the bundles in ${dist}`);
const byPackage = new Map();
const byBundle = new Map();
let functions = 0;
for (const line of lines) {
  const f = line.split(",");
  if (f[0] !== "function" || f[1] !== "first-execution") continue;
  if (!ALL && f.slice(7).join(",") === "nodeFetch") break;
  const b = bundles.get(f[2]);
  if (!b) continue;
  functions++;
  const bytes = Number(f[4]) - Number(f[3]);
  const pkg = packageOf(b.sourceAt(Number(f[3])));
  const entry = byPackage.get(pkg) ?? { functions: 0, bytes: 0 };
  entry.functions++;
  entry.bytes += bytes;
  byPackage.set(pkg, entry);
  byBundle.set(b.name, (byBundle.get(b.name) ?? 0) + 1);
}
rmSync(base, { recursive: true, force: true });

const kb = (b) => `${(b / 1024).toFixed(1)} KB`;
console.log(
  `${ALL ? "whole run" : "before the first request"}: ${functions} functions of keel's bundles ran ` +
    `(${[...byBundle].map(([name, n]) => `${name} ${n}`).join(", ")})`,
);
console.log("  code spanned  functions  package");
for (const [pkg, e] of [...byPackage].sort((a, b) => b[1].bytes - a[1].bytes))
  console.log(`  ${kb(e.bytes).padStart(12)}  ${String(e.functions).padStart(9)}  ${pkg}`);
