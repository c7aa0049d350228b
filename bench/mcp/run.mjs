// MCP's cost to a session, against the mock model server. Run after `pnpm build`:
//   node bench/mcp/run.mjs [--runs 10]
// 1. keel -p, process start → first model request, with no MCP server and with the three stdio
//    reference servers (everything, filesystem, memory) configured, never seen before (nothing
//    known) and known from an earlier session (their tools listed in that first request): servers
//    connect in the background, so the first request must not wait for them (target: ≤ 10 ms more).
// 2. The same three servers and a model whose first action is SearchTools then ExecuteTool on
//    mcp__everything__echo: process start → the request carrying the tool's result, cold and known.
// 3. A server that never answers initialize: keel -p's result line → its exit (target < 1 s).
// 4. The bytes 100 connected MCP tools add to a request: a notice that names them (target ≤ 40
//    bytes a tool on average), against what the same tools would cost as resident tool schemas.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
const binOf = (pkg) => {
  const dir = dirname(fromMcp.resolve(`${pkg}/package.json`));
  const manifest = fromMcp(`${pkg}/package.json`);
  return join(dir, typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin)[0]);
};
const silent = join(root, "packages/extensions/mcp/test/fixtures/silent-server.mjs");
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

// ---- 1. first request, none vs the 3 reference servers (cold, known) ----
const server = await startMockServer({ turns: [] });
const repo = join(base, "repo");
mkdirSync(repo);
spawnSync("git", ["init", "-q", repo]);
const reference = (name) => ({
  everything: { command: process.execPath, args: [everything, "stdio"] },
  filesystem: { command: process.execPath, args: [binOf("@modelcontextprotocol/server-filesystem"), repo] },
  memory: {
    command: process.execPath,
    args: [binOf("@modelcontextprotocol/server-memory")],
    env: { MEMORY_FILE_PATH: join(base, `${name}-memory.jsonl`) },
  },
});
const homes = {
  none: home("home-none", {}),
  cold: home("home-cold", reference("cold")),
  known: home("home-known", reference("known")),
};
// What a server listed is kept by its definition; the cold home forgets it before each run.
const forget = (keelHome) =>
  rmSync(join(keelHome, "data", "mcp", "inventory"), { recursive: true, force: true });

let arrival = 0;
let arrivalWall = 0;
let toolResult = 0;
server.setScenario({
  turns: [],
  fallback: () => {
    arrival ||= performance.now();
    arrivalWall ||= Date.now();
    return { text: "ok" };
  },
});

/**
 * How long before MCP began loading (the SDK import blocks the event loop) the first request had
 * arrived, from the debug log's timestamp: positive means the servers could not have delayed it.
 */
function headStart(keelHome) {
  const line = readFileSync(join(keelHome, "logs", "debug.log"), "utf8")
    .split("\n")
    .find((l) => l.includes("[mcp] loading the MCP client"));
  return line ? Date.parse(line.slice(0, 24)) - arrivalWall : Number.NaN;
}

function firstRequest(keelHome, args = ["-p", "hi"]) {
  return new Promise((resolve, reject) => {
    arrival = 0;
    arrivalWall = 0;
    toolResult = 0;
    rmSync(join(keelHome, "logs"), { recursive: true, force: true });
    const env = {
      ...process.env,
      KEEL_HOME: keelHome,
      ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
      ANTHROPIC_API_KEY: "bench",
      NO_PROXY: "127.0.0.1,localhost",
    };
    delete env.OPENAI_API_KEY;
    const started = performance.now();
    const child = spawn(process.execPath, [bin, "--cwd", repo, "--model", MODEL, ...args], {
      env,
      stdio: "ignore",
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0 || !arrival) reject(new Error(`keel exited ${code}`));
      else resolve({ first: arrival - started, tool: toolResult ? toolResult - started : undefined });
    });
  });
}

// Warm the code cache and the file system for every home first (this also makes "known" known).
for (const side of ["none", "cold", "known"]) await firstRequest(homes[side]);
const times = { none: [], cold: [], known: [] };
const ahead = { cold: [], known: [] };
for (let i = 0; i < RUNS; i++) {
  // Rotate which goes first, so drift in machine load falls on every side.
  const order = ["none", "cold", "known"];
  for (let k = 0; k < order.length; k++) {
    const side = order[(i + k) % order.length];
    if (side === "cold") forget(homes.cold);
    times[side].push((await firstRequest(homes[side])).first);
    if (side !== "none") ahead[side].push(headStart(homes[side]));
  }
}
const none = median(times.none);
console.log(`first model request (keel -p, process start → request), median of ${RUNS}:`);
console.log(`  no MCP server                     ${ms(none)}  (best ${ms(Math.min(...times.none))})`);
for (const side of ["cold", "known"]) {
  const m = median(times[side]);
  console.log(
    `  3 reference servers, ${side === "cold" ? "never seen" : "known     "}  ${ms(m)}  (best ${ms(Math.min(...times[side]))}; ${ms(m - none)} more, target ≤ 10 ms)`,
  );
}
// Wall times swing with the machine's load; the order of events does not.
for (const side of ["cold", "known"]) {
  const before = ahead[side].filter((d) => d >= 0).length;
  console.log(
    `  ${side === "cold" ? "never seen" : "known     "}: the request had arrived before MCP began loading in ${before} of ${RUNS} runs (by ${ms(Math.min(...ahead[side]))} at least, median ${ms(median(ahead[side]))})`,
  );
}

// ---- 2. SearchTools then ExecuteTool on turn one ----
server.setScenario({
  turns: [],
  fallback: (request) => {
    arrival ||= performance.now();
    const told = JSON.stringify(request.body.messages);
    if (told.includes("Echo: bench")) {
      toolResult ||= performance.now();
      return { text: "done" };
    }
    if (told.includes("mcp__everything:mcp__everything__echo"))
      return {
        toolCalls: [
          {
            name: "ExecuteTool",
            arguments: { toolRef: "mcp__everything__echo", arguments: { message: "bench" } },
          },
        ],
      };
    return { toolCalls: [{ name: "SearchTools", arguments: { query: "mcp__everything__echo" } }] };
  },
});
const turnOne = { cold: [], known: [] };
for (let i = 0; i < RUNS; i++)
  for (const side of i % 2 ? ["known", "cold"] : ["cold", "known"]) {
    if (side === "cold") forget(homes.cold);
    const { tool } = await firstRequest(homes[side], [
      "-p",
      "echo bench",
      "--permission-mode",
      "bypassPermissions",
    ]);
    if (tool === undefined) throw new Error(`${side}: the tool's result never reached the model`);
    turnOne[side].push(tool);
  }
console.log(
  `\nSearchTools then ExecuteTool on turn one (process start → the request with the tool's result), median of ${RUNS}:`,
);
console.log(`  never seen (the search waits for the servers)  ${ms(median(turnOne.cold))}`);
console.log(`  known (listed at once; the call waits)         ${ms(median(turnOne.known))}`);

// ---- 3. exit after the answer, with a server that never answers initialize ----
const silentHome = home("home-silent", {
  silent: { command: process.execPath, args: [silent, join(base, "silent-pids.json")] },
});
server.setScenario({ turns: [], fallback: { text: "ok", headerDelayMs: 1_500 } });
const exits = [];
for (let i = 0; i < Math.min(RUNS, 5); i++) {
  rmSync(join(base, "silent-pids.json"), { force: true });
  exits.push(
    await new Promise((resolve, reject) => {
      const env = {
        ...process.env,
        KEEL_HOME: silentHome,
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        ANTHROPIC_API_KEY: "bench",
        NO_PROXY: "127.0.0.1,localhost",
      };
      const child = spawn(
        process.execPath,
        [bin, "--cwd", repo, "--model", MODEL, "-p", "hi", "--output-format", "stream-json"],
        { env, stdio: ["ignore", "pipe", "ignore"] },
      );
      let answered = 0;
      child.stdout.setEncoding("utf8").on("data", (d) => {
        if (d.includes('"type":"result"')) answered ||= performance.now();
      });
      child.on("close", (code) => {
        if (code !== 0 || !answered || !existsSync(join(base, "silent-pids.json")))
          reject(new Error(`keel exited ${code}`));
        else resolve(performance.now() - answered);
      });
    }),
  );
}
console.log(
  `\nkeel -p with a server that never answers initialize: result line → exit, median of ${exits.length}:`,
);
console.log(`  ${ms(median(exits))}  (worst ${ms(Math.max(...exits))}; target < 1000 ms)`);
await server.close();

// ---- 4. bytes of 100 connected tools ----
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
