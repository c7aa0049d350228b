// MCP's cost to a session, against the mock model server. Run after `pnpm build`:
//   node bench/mcp/run.mjs [--runs 10]
// 1. keel -p, process start → first model request, with no MCP server and with 3 stdio servers
//    (server-everything) configured: servers connect in the background, so the first request
//    must not wait for them (target: ≤ 10 ms more).
// 2. The bytes 100 connected MCP tools add to a request: a notice that names them (target ≤ 40
//    bytes a tool on average), against what the same tools would cost as resident tool schemas.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dist = (path) => import(pathToFileURL(join(root, path)).href);
const { values } = parseArgs({ options: { runs: { type: "string", default: "10" } } });
const RUNS = Number(values.runs);
const MODEL = "anthropic/claude-sonnet-4-6";
const bin = join(root, "apps/cli/dist/bin.cjs");
const { startMockServer } = await dist("packages/testing/dist/index.js");
const fromMcp = createRequire(join(root, "packages/extensions/mcp/package.json"));
const everythingDir = dirname(fromMcp.resolve("@modelcontextprotocol/server-everything/package.json"));
const everything = join(everythingDir, "dist/index.js");
const toolsServer = join(root, "bench/mcp/tools-server.mjs");

const base = mkdtempSync(join(tmpdir(), "keel-bench-mcp-"));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => `${x.toFixed(1)} ms`;

function home(name, servers) {
  const dir = join(base, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify({ extensions: { mcp: { config: { servers } } } }));
  return dir;
}

// ---- 1. first request, none vs 3 stdio servers ----
const server = await startMockServer({ turns: [] });
const repo = join(base, "repo");
mkdirSync(repo);
spawnSync("git", ["init", "-q", repo]);
const homes = {
  none: home("home-none", {}),
  three: home(
    "home-three",
    Object.fromEntries(
      ["one", "two", "three"].map((n) => [n, { command: process.execPath, args: [everything, "stdio"] }]),
    ),
  ),
};

let arrival = 0;
server.setScenario({
  turns: [],
  fallback: () => {
    arrival ||= performance.now();
    return { text: "ok" };
  },
});

function firstRequest(keelHome) {
  return new Promise((resolve, reject) => {
    arrival = 0;
    const env = {
      ...process.env,
      KEEL_HOME: keelHome,
      ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
      ANTHROPIC_API_KEY: "bench",
      NO_PROXY: "127.0.0.1,localhost",
    };
    delete env.OPENAI_API_KEY;
    const started = performance.now();
    const child = spawn(process.execPath, [bin, "--cwd", repo, "--model", MODEL, "-p", "hi"], {
      env,
      stdio: "ignore",
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0 || !arrival) reject(new Error(`keel exited ${code}`));
      else resolve(arrival - started);
    });
  });
}

// Warm the code cache and the file system for both homes first.
await firstRequest(homes.none);
await firstRequest(homes.three);
const times = { none: [], three: [] };
for (let i = 0; i < RUNS; i++) {
  // Alternate which goes first, so drift in machine load falls on both sides.
  for (const side of i % 2 ? ["three", "none"] : ["none", "three"])
    times[side].push(await firstRequest(homes[side]));
}
const none = median(times.none);
const three = median(times.three);
console.log(`first model request (keel -p, process start → request), median of ${RUNS}:`);
console.log(`  no MCP server        ${ms(none)}  (best ${ms(Math.min(...times.none))})`);
console.log(`  3 stdio MCP servers  ${ms(three)}  (best ${ms(Math.min(...times.three))})`);
console.log(`  difference           ${ms(three - none)}  (target ≤ 10 ms)`);
await server.close();

// ---- 2. bytes of 100 connected tools ----
const { createCodingAgent } = await dist("packages/coding-agent/dist/index.js");
const { createFauxFetch, fauxModel } = await dist("packages/testing/dist/index.js");
const { mcpExtension } = await dist("packages/extensions/mcp/dist/index.js");
const { McpConnection } = await dist("packages/extensions/mcp/dist/client.js");

async function requests(keelHome, prompts, waitFor) {
  const faux = createFauxFetch({ turns: [], fallback: { text: "ok" } });
  let status = "";
  const created = await createCodingAgent({
    cwd: repo,
    home: keelHome,
    model: fauxModel("anthropic-messages"),
    streamOptions: { fetch: faux.fetch, apiKey: "bench" },
    extensions: [mcpExtension],
    discoverExtensions: false,
    onEvent: (event) => {
      if (event.type === "status" && event.key === "mcp") status = event.text ?? "";
    },
  });
  if (created.isErr()) throw new Error(created.error.message);
  const agent = created.value;
  const deadline = Date.now() + 20_000;
  while (waitFor && status !== waitFor && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  for (const prompt of prompts) await agent.prompt(prompt);
  await agent.close();
  return faux.requests;
}

const plain = await requests(homes.none, ["hi"]);
const withTools = await requests(
  home("home-tools", { gh: { command: process.execPath, args: [toolsServer, "100"] } }),
  ["hi"],
  "mcp 1/1",
);
const body = (r) => r.body;
const notice = withTools[0].raw.length - plain[0].raw.length;
const noticeText = JSON.stringify(body(withTools[0]).messages)
  .match(/<capabilities>[^"]*/)?.[0]
  .replaceAll("\\n", "\n");
const noticeBytes = Buffer.byteLength(noticeText ?? "");
const residentPair =
  JSON.stringify(body(withTools[0]).tools).length - JSON.stringify(body(plain[0]).tools).length;

// What the same tools would cost as resident tools, in the same wire shape.
const probe = new McpConnection(
  {
    name: "gh",
    scope: "user",
    origin: "bench",
    enabled: true,
    timeoutMs: 10_000,
    startupTimeoutMs: 10_000,
    tools: {},
    readOnlyHints: "trust",
    sampling: { enabled: false, maxTokens: 1, maxRequests: 0 },
    transport: "stdio",
    command: process.execPath,
    args: [toolsServer, "100"],
    env: {},
    cwd: repo,
  },
  {
    clientInfo: { name: "bench", version: "0" },
    logFile: join(base, "probe.log"),
    handlers: { roots: () => [], elicit: async () => ({ action: "decline" }) },
  },
);
await probe.ready();
const resident = probe
  .tools()
  .map(
    (t) =>
      JSON.stringify({ name: `mcp__gh__${t.name}`, description: t.description, input_schema: t.inputSchema })
        .length + 1,
  )
  .reduce((a, b) => a + b, 0);
await probe.close();

console.log("\n100 connected MCP tools, first request:");
console.log(
  `  notice text                ${noticeBytes} bytes = ${(noticeBytes / 100).toFixed(1)} bytes a tool (target ≤ 40)`,
);
console.log(
  `  request grew by            ${notice} bytes in all (notice ${noticeBytes} + SearchTools/ExecuteTool ${residentPair}, once for any number of tools, + JSON framing)`,
);
console.log(`  as resident schemas        ${resident} bytes = ${(resident / 100).toFixed(0)} bytes a tool`);

rmSync(base, { recursive: true, force: true, maxRetries: 5 });
