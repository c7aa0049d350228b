// keel's start-up and run-time figures against the mock model server, for this build next to an
// older built checkout (--root) and `node -e 0`, measured in one run on whichever node is first on
// PATH, with the runtime targets (issue 21) marked met or MISSED, and the 10-turn scenario's work
// done by a bare Node program (scenario-floor.mjs): the floor under its peak RSS. Runs alternate
// between the builds so a busy machine slows both alike.
//   node bench/cli/run.mjs [--root <built checkout>] [--runs 10] [--bare]
// --root: another checkout, already built (`pnpm build` there); --bare: the official extensions
// off in config, to see what they cost.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const here = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const otherRoot = arg("--root") ? resolve(arg("--root")) : undefined;
const RUNS = Number(arg("--runs") ?? 10);
const BARE = process.argv.includes("--bare");
const OFFICIAL = ["todo", "skills", "web-search", "mcp", "connector", "subagent"];
const MODEL = "anthropic/claude-sonnet-4-6";
const GNU_TIME = "/usr/bin/time";

/** What the issue asks of this build; "node" targets are relative to `node -e 0` in this run. */
const TARGETS = {
  version: { over: "node", ms: 15 },
  first: { over: "node", ms: 60 },
  gap: { ms: 8 },
  rss: { mb: 70 },
  tsTime: { ms: 20 },
  tsRss: { mb: 5 },
  mcp: { ms: 10 },
};

function label(root) {
  const rev = spawnSync("git", ["-C", root, "rev-parse", "--short", "HEAD"], { encoding: "utf8" });
  return rev.status === 0 ? rev.stdout.trim() : basename(root);
}
const builds = [{ name: "this build", root: here }];
if (otherRoot) builds.push({ name: label(otherRoot), root: otherRoot });
for (const b of builds) {
  b.bin = join(b.root, "apps/cli/dist/bin.cjs");
  if (!existsSync(b.bin)) throw new Error(`${b.bin} does not exist: run pnpm build in ${b.root} first`);
}

const { startMockServer } = await import(pathToFileURL(join(here, "packages/testing/dist/index.js")).href);
const base = mkdtempSync(join(tmpdir(), "keel-bench-cli-"));
const server = await startMockServer({ turns: [] });

// Three stdio MCP servers (server-everything) in config: they must not delay the first request.
const everything = join(
  dirname(
    createRequire(join(here, "packages/extensions/mcp/package.json")).resolve(
      "@modelcontextprotocol/server-everything/package.json",
    ),
  ),
  "dist/index.js",
);
const MCP_CONFIG = JSON.stringify({
  extensions: {
    mcp: {
      config: {
        servers: Object.fromEntries(
          ["one", "two", "three"].map((n) => [n, { command: process.execPath, args: [everything, "stdio"] }]),
        ),
      },
    },
  },
});

/** A Keel home (official extensions on unless --bare) and a git repo, per build and purpose. */
function workspace(name, files = {}) {
  const home = join(base, name, "home");
  const repo = join(base, name, "repo");
  mkdirSync(home, { recursive: true });
  mkdirSync(repo, { recursive: true });
  spawnSync("git", ["init", "-q", repo]);
  if (BARE)
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ extensions: Object.fromEntries(OFFICIAL.map((id) => [id, { enabled: false }])) }),
    );
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  return { home, repo };
}

// The README's one-file extension (a tool built with keel.Type), as a user would drop it in.
const TS_EXTENSION = `import type { KeelAPI } from "@keel/extension-sdk";

export default (keel: KeelAPI) => {
  keel.registerTool({
    name: "WordCount",
    description: "Count the words in a piece of text.",
    parameters: keel.Type.Object({ text: keel.Type.String({ description: "The text to count" }) }),
    execute: async (args) => keel.textResult(\`\${args.text.split(/\\s+/).filter(Boolean).length} words\`),
  });
};
`;

const baseEnv = { ...process.env, NO_PROXY: "127.0.0.1,localhost", ANTHROPIC_API_KEY: "bench" };
delete baseEnv.OPENAI_API_KEY;
const envFor = (ws) => ({ ...baseEnv, KEEL_HOME: ws.home, ANTHROPIC_BASE_URL: server.anthropicBaseUrl });

/** Request arrival times (bench clock), recorded as each request comes in. */
let arrivals = [];
function script(turns) {
  arrivals = [];
  server.setScenario({
    turns: turns.map((turn) => () => {
      arrivals.push(performance.now());
      return turn;
    }),
  });
}

/** Spawns a command; resolves with wall time, each stdout line's arrival, and GNU time's figures. */
function run(argv, env, timed = false) {
  const [command, ...args] =
    timed && existsSync(GNU_TIME) ? [GNU_TIME, "-f", "keel-bench %U %S %M", ...argv] : argv;
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    const lines = [];
    let pending = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      const at = performance.now();
      pending += chunk;
      const parts = pending.split("\n");
      pending = parts.pop();
      for (const line of parts) if (line) lines.push({ at, line });
    });
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    child.on("error", fail);
    child.on("close", (code) => {
      const t = /keel-bench ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
      done({
        code,
        started,
        wall: performance.now() - started,
        lines,
        stderr,
        cpuMs: t ? (Number(t[1]) + Number(t[2])) * 1000 : Number.NaN,
        rssMb: t ? Number(t[3]) / 1024 : Number.NaN,
      });
    });
  });
}
function check(result, what) {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}: ${result.stderr}`);
}

const keelArgs = (ws, prompt, extra = []) => ["-p", prompt, "--model", MODEL, "--cwd", ws.repo, ...extra];
/** One text turn: process start → first request, the whole run, its CPU and peak RSS. */
async function textTurn(build, ws) {
  script([{ text: "hello" }]);
  const r = await run([process.execPath, build.bin, ...keelArgs(ws, "hi")], envFor(ws), true);
  check(r, `${build.name}: keel -p`);
  return { first: arrivals[0] - r.started, wall: r.wall, cpu: r.cpuMs, rss: r.rssMb };
}

// The issue's scenario: read, ls, edit, cat, write, read, edit, git status, wc, final text.
const tool = (name, args) => ({ toolCalls: [{ name, arguments: args }] });
const CODING = [
  tool("Read", { path: "a.txt" }),
  tool("LS", { path: "." }),
  tool("Edit", { path: "a.txt", old_string: "41", new_string: "42" }),
  tool("Bash", { command: "cat a.txt" }),
  tool("Write", { path: "b.txt", content: "x\n" }),
  tool("Read", { path: "b.txt" }),
  tool("Edit", { path: "b.txt", old_string: "x", new_string: "y" }),
  tool("Bash", { command: "git status --short" }),
  tool("Bash", { command: "wc -l a.txt b.txt" }),
  { text: "done" },
];
/** The scenario's files as its first turn finds them, and its turns at the mock server. */
function startScenario(ws) {
  writeFileSync(join(ws.repo, "a.txt"), "answer 41\n");
  rmSync(join(ws.repo, "b.txt"), { force: true });
  script(CODING);
}
/** The same scenario's work done by a bare Node program (scenario-floor.mjs): Keel's floor. */
async function floorRun(ws) {
  startScenario(ws);
  const floor = join(here, "bench/cli/scenario-floor.mjs");
  const resolveFrom = join(here, "packages/coding-agent/package.json");
  const argv = [floor, ws.repo, resolveFrom, server.anthropicBaseUrl, JSON.stringify(CODING)];
  const r = await run([process.execPath, ...argv], baseEnv, true);
  check(r, "scenario floor");
  if (arrivals.length !== CODING.length)
    throw new Error(`floor: expected 10 requests, saw ${arrivals.length}`);
  return r.rssMb;
}
async function codingRun(build, ws) {
  startScenario(ws);
  const args = keelArgs(ws, "fix the answer", [
    "--output-format",
    "stream-json",
    "--permission-mode",
    "bypassPermissions",
  ]);
  const r = await run([process.execPath, build.bin, ...args], envFor(ws), true);
  check(r, `${build.name}: 10-turn scenario`);
  if (arrivals.length !== CODING.length) throw new Error(`expected 10 requests, saw ${arrivals.length}`);
  // The harness gap: a tool_end line on stdout → the next model request at the server.
  const toolEnds = r.lines.filter((l) => l.line.includes('"type":"tool_end"')).map((l) => l.at);
  return {
    wall: r.wall,
    cpu: r.cpuMs,
    rss: r.rssMb,
    gaps: toolEnds.map((at, k) => arrivals[k + 1] - at),
  };
}

const median = (xs) => {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const m = Object.fromEntries(builds.map((b) => [b.name, {}]));
const push = (build, key, value) => {
  m[build.name][key] ??= [];
  m[build.name][key].push(value);
};
const nodeBaseline = [];
const nodeRss = [];
// Node with the TLS stack an https request needs (node:https): this bench's mock server is plain
// http, so keel's figures here do not include it; against a real provider a start pays it too.
const fetchBaseline = [];
const fetchRss = [];
// The 10-turn scenario's requests, commands and shell parses with no Keel (scenario-floor.mjs).
const floorRss = [];

try {
  for (const b of builds) {
    b.ws = workspace(`${b.name}-warm`);
    b.wsTs = workspace(`${b.name}-ts`, { "extensions/word-count.ts": TS_EXTENSION });
    // --bare turns the mcp extension off, so there is nothing to measure there.
    b.wsMcp = BARE ? undefined : workspace(`${b.name}-mcp`, { "config.json": MCP_CONFIG });
    // Warm-up: the first start after a build writes the caches every later start reads.
    for (const ws of [b.ws, b.wsTs, b.wsMcp]) if (ws) await textTurn(b, ws);
  }

  for (let i = 0; i < RUNS; i++) {
    const n = await run([process.execPath, "-e", "0"], baseEnv, true);
    nodeBaseline.push(n.wall);
    nodeRss.push(n.rssMb);
    const h = await run([process.execPath, "-e", 'require("node:https")'], baseEnv, true);
    fetchBaseline.push(h.wall);
    fetchRss.push(h.rssMb);
    for (const b of builds) {
      const v = await run([process.execPath, b.bin, "--version"], envFor(b.ws));
      check(v, `${b.name}: keel --version`);
      push(b, "version", v.wall);
      const warm = await textTurn(b, b.ws);
      push(b, "first", warm.first);
      push(b, "turn", warm.wall);
      push(b, "turnCpu", warm.cpu);
      push(b, "turnRss", warm.rss);
      const ts = await textTurn(b, b.wsTs);
      push(b, "tsFirst", ts.first);
      push(b, "tsRss", ts.rss);
      if (b.wsMcp) push(b, "mcpFirst", (await textTurn(b, b.wsMcp)).first);
    }
  }
  // A first start: a fresh home, so nothing cached yet (as after an install or an upgrade).
  for (let i = 0; i < Math.max(3, Math.floor(RUNS / 2)); i++)
    for (const b of builds) {
      const cold = await textTurn(b, workspace(`${b.name}-cold-${i}`));
      push(b, "cold", cold.first);
      push(b, "coldTurn", cold.wall);
    }
  for (let i = 0; i < Math.max(3, Math.floor(RUNS / 2)); i++) {
    floorRss.push(await floorRun(builds[0].ws));
    for (const b of builds) {
      const c = await codingRun(b, b.ws);
      push(b, "coding", c.wall);
      push(b, "codingCpu", c.cpu);
      push(b, "codingRss", c.rss);
      for (const g of c.gaps) push(b, "gap", g);
    }
  }
} finally {
  await server.close();
  rmSync(base, { recursive: true, force: true });
}

// ---- report ----
const node = median(nodeBaseline);
const fmt = (x, unit) => (Number.isNaN(x) ? "–" : `${x.toFixed(1)} ${unit}`);
const rows = [];
const row = (name, key, unit, pick = median, target) => rows.push({ name, key, unit, pick, target });
row("keel --version", "version", "ms", median, (x) => [
  x <= node + TARGETS.version.ms,
  `≤ node + ${TARGETS.version.ms} ms`,
]);
row("start → first request (warm, extensions on)", "first", "ms", median, (x) => [
  x <= node + TARGETS.first.ms,
  `≤ node + ${TARGETS.first.ms} ms`,
]);
row("  the same on a first start (fresh home)", "cold", "ms");
row("one text turn on a first start (fresh home, wall)", "coldTurn", "ms");
row("one text turn (wall)", "turn", "ms");
row("one text turn (CPU user+sys)", "turnCpu", "ms");
row("one text turn (peak RSS)", "turnRss", "MB");
row("a one-file .ts extension: time added", "tsFirst", "ms", undefined, (x) => [
  x <= TARGETS.tsTime.ms,
  `≤ ${TARGETS.tsTime.ms} ms`,
]);
row("a one-file .ts extension: RSS added", "tsRss", "MB", undefined, (x) => [
  x <= TARGETS.tsRss.mb,
  `≤ ${TARGETS.tsRss.mb} MB`,
]);
row("3 stdio MCP servers configured: time added", "mcpFirst", "ms", undefined, (x) => [
  x <= TARGETS.mcp.ms,
  `≤ ${TARGETS.mcp.ms} ms`,
]);
row("10-turn scenario (wall)", "coding", "ms");
row("10-turn scenario (CPU user+sys)", "codingCpu", "ms");
row("per-turn gap tool result → next request (median)", "gap", "ms", median, (x) => [
  x <= TARGETS.gap.ms,
  `≤ ${TARGETS.gap.ms} ms`,
]);
row("per-turn gap (max)", "gap", "ms", (xs) => Math.max(...xs));
row("10-turn scenario peak RSS (median of runs)", "codingRss", "MB", median, (x) => [
  x <= TARGETS.rss.mb,
  `≤ ${TARGETS.rss.mb} MB${median(floorRss) > TARGETS.rss.mb ? ` (below the floor, ${fmt(median(floorRss), "MB")})` : ""}`,
]);
row("10-turn scenario peak RSS (max of runs)", "codingRss", "MB", (xs) => Math.max(...xs));

/** The .ts rows are differences against the same build's plain warm start. */
function value(build, r) {
  const xs = m[build.name][r.key] ?? [];
  if (r.key === "tsFirst") return median(xs) - median(m[build.name].first);
  if (r.key === "tsRss") return median(xs) - median(m[build.name].turnRss);
  if (r.key === "mcpFirst") return median(xs) - median(m[build.name].first);
  return r.pick(xs);
}

const width = 52;
const col = 14;
console.log(
  `node ${process.version} (${process.execPath})${BARE ? ", official extensions off (--bare)" : ""}; ` +
    `${RUNS} runs, medians unless said`,
);
console.log(`${"".padEnd(width)}${builds.map((b) => b.name.padStart(col)).join("")}   target for this build`);
console.log(
  `${"node -e 0 (this machine's floor)".padEnd(width)}${fmt(node, "ms").padStart(col)}${builds.length > 1 ? "".padStart(col) : ""}   (peak RSS ${fmt(median(nodeRss), "MB")})`,
);
console.log(
  `${"node + node:https (an https request's TLS stack)".padEnd(width)}${fmt(median(fetchBaseline), "ms").padStart(col)}${builds.length > 1 ? "".padStart(col) : ""}   (peak RSS ${fmt(median(fetchRss), "MB")})`,
);
console.log(
  `${"10-turn scenario's work with no Keel (peak RSS)".padEnd(width)}${fmt(median(floorRss), "MB").padStart(col)}${builds.length > 1 ? "".padStart(col) : ""}   (bench/cli/scenario-floor.mjs)`,
);
for (const r of rows) {
  const values = builds.map((b) => value(b, r));
  let verdict = "";
  if (r.target && !Number.isNaN(values[0])) {
    const [ok, text] = r.target(values[0]);
    verdict = `   ${text}: ${ok ? "met" : "MISSED"}`;
  }
  console.log(`${r.name.padEnd(width)}${values.map((v) => fmt(v, r.unit).padStart(col)).join("")}${verdict}`);
}
if (!existsSync(GNU_TIME))
  console.log(`(${GNU_TIME} is missing: no CPU or RSS figures; apt-get install time)`);
