// SearchTools latency over a large on-demand inventory: 1,000 synthetic MCP-style tools in 20
// catalogs, 10,000 queries of mixed kinds (exact names, toolRefs, words, phrases, misses).
// Run after `pnpm --filter @keel/coding-agent build`: node bench/catalog/run.mjs
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { CatalogRegistry } = await import(
  pathToFileURL(join(root, "packages/coding-agent/dist/index.js")).href
);

// Sizes from flags: node bench/catalog/run.mjs --tools=5000 --queries=20000
const flag = (name, fallback) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const TOOLS = flag("tools", 1000);
const QUERIES = flag("queries", 10_000);
const GOAL_P99_MS = 1;

// A fixed-seed generator, so every run searches the same inventory with the same queries.
let seed = 0x9e3779b9;
function random() {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x100000000;
}
const pick = (list) => list[Math.floor(random() * list.length)];

const servers = [
  ["github", "GitHub"],
  ["gitlab", "GitLab"],
  ["linear", "Linear"],
  ["jira", "Jira"],
  ["slack", "Slack"],
  ["notion", "Notion"],
  ["postgres", "PostgreSQL"],
  ["stripe", "Stripe"],
  ["sentry", "Sentry"],
  ["aws", "AWS"],
  ["gcal", "Google Calendar"],
  ["gdrive", "Google Drive"],
  ["figma", "Figma"],
  ["datadog", "Datadog"],
  ["pagerduty", "PagerDuty"],
  ["confluence", "Confluence"],
  ["hubspot", "HubSpot"],
  ["zendesk", "Zendesk"],
  ["twilio", "Twilio"],
  ["shopify", "Shopify"],
];
const verbs = [
  "create",
  "get",
  "list",
  "update",
  "delete",
  "search",
  "archive",
  "close",
  "assign",
  "comment_on",
  "merge",
  "export",
  "import",
  "sync",
  "watch",
];
const nouns = [
  "issue",
  "pull_request",
  "comment",
  "branch",
  "repository",
  "user",
  "team",
  "project",
  "channel",
  "message",
  "page",
  "database",
  "row",
  "invoice",
  "customer",
  "alert",
  "incident",
  "event",
  "file",
  "label",
  "webhook",
  "deployment",
  "release",
  "workflow_run",
  "subscription",
];
const extras = [
  "Requires write access.",
  "Results are paginated.",
  "Supports filtering by date.",
  "Returns JSON.",
  "Idempotent.",
  "Rate limited to 100 calls per minute.",
  "Only for admins.",
  "Includes archived items when asked.",
];

const catalogs = new Map(servers.map(([id]) => [id, []]));
const seen = new Set();
const possible = servers.length * verbs.length * nouns.length;
if (TOOLS > possible) throw new Error(`at most ${possible} distinct synthetic tools`);
while (seen.size < TOOLS) {
  const [server, label] = pick(servers);
  const verb = pick(verbs);
  const noun = pick(nouns);
  const name = `mcp__${server}__${verb}_${noun}`;
  if (seen.has(name)) continue;
  seen.add(name);
  const readable = `${verb.replace(/_/g, " ")} a ${noun.replace(/_/g, " ")}`;
  catalogs.get(server).push({
    name,
    description: `${readable[0].toUpperCase()}${readable.slice(1)} in ${label}. ${pick(extras)} ${pick(extras)}`,
    parameters: { type: "object", properties: { id: { type: "string" } } },
    execute: async () => ({ content: [{ type: "text", text: "ok" }] }),
  });
}

const registry = new CatalogRegistry(() => {});
for (const [server, entries] of catalogs)
  registry.add("mcp", { id: server, label: `mcp/${server}`, discover: () => entries }, {});
await registry.refresh();
const all = [...catalogs].flatMap(([server, entries]) => entries.map((e) => ({ server, name: e.name })));

function query() {
  const r = random();
  const tool = pick(all);
  if (r < 0.25) return tool.name; // exact name
  if (r < 0.35) return `mcp/${tool.server}:${tool.name}`; // exact toolRef
  if (r < 0.55) return pick([...nouns, ...verbs, ...servers.map(([s]) => s)]); // one word
  if (r < 0.85)
    return `${pick(verbs).replace(/_/g, " ")} ${pick(servers)[1]} ${pick(nouns).replace(/_/g, " ")}`; // phrase
  if (r < 0.95) return `${pick(verbs)}_${pick(nouns)}`; // partial name
  return pick(["kubernetes pod logs", "translate text to french", "weather in paris", "xyzzy"]); // miss
}
const queries = Array.from({ length: QUERIES }, query);

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function measure(label, fn, list = queries) {
  for (let i = 0; i < 500; i++) await fn(list[i % list.length]); // warm-up
  const times = new Float64Array(list.length);
  let hits = 0;
  for (let i = 0; i < list.length; i++) {
    const start = performance.now();
    hits += (await fn(list[i])).length;
    times[i] = performance.now() - start;
  }
  const sorted = [...times].sort((a, b) => a - b);
  const mean = sorted.reduce((s, t) => s + t, 0) / sorted.length;
  const p99 = percentile(sorted, 99);
  console.log(
    `${label.padEnd(34)} p50 ${percentile(sorted, 50).toFixed(3)} ms  p99 ${p99.toFixed(3)} ms  max ${sorted.at(-1).toFixed(3)} ms  mean ${mean.toFixed(3)} ms  (${(hits / list.length).toFixed(1)} hits/query)`,
  );
  return p99;
}

console.log(
  `SearchTools over ${all.length} tools in ${catalogs.size} catalogs, ${queries.length} queries (node ${process.version})`,
);
const p99 = await measure("search (limit 8)", (q) => registry.search(q));
await measure("search (limit 25)", (q) => registry.search(q, 25));
// Words are indexed on first use; queries made only of never-seen words pay that scan each time.
const fresh = Array.from({ length: 2000 }, (_, i) => `zq${i.toString(36)} ${pick(nouns)}x${i}`);
await measure("search, every query's words new", (q) => registry.search(q), fresh);
// The whole SearchTools call as the model makes it: refresh check, search and the result text.
const [searchTool] = registry.residentTools();
const context = { signal: new AbortController().signal, toolCallId: "bench", onUpdate: () => {} };
await measure(
  "SearchTools.execute (limit 8)",
  async (q) => (await searchTool.execute({ query: q }, context)).details.hits,
);
console.log(`goal p99 <= ${GOAL_P99_MS} ms: ${p99 <= GOAL_P99_MS ? "met" : "MISSED"}`);
