// Streaming one large tool argument (a Write of a big file) through Keel's stream(): the
// builder's partial-JSON parsing must stay linear in the argument size. Figures per wire API,
// plus the builder alone. Run after `pnpm build`: node bench/ai-stream/tool-args.mjs [--mb 1] [--chunk 16]
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const ai = await import(pathToFileURL(join(root, "packages/ai/dist/index.js")).href);
const { startMockServer } = await import(pathToFileURL(join(root, "packages/testing/dist/index.js")).href);

const { values: options } = parseArgs({
  options: { mb: { type: "string", default: "1" }, chunk: { type: "string", default: "16" } },
});
const BYTES = Math.round(Number(options.mb) * 1024 * 1024);
const CHUNK = Number(options.chunk);
// Quotes, backslashes and newlines, so the JSON text is escape-heavy like real source code.
const line = 'const s = "quoted \\\\ text"; // lorem ipsum dolor sit amet\n';
const content = line.repeat(Math.ceil(BYTES / line.length)).slice(0, BYTES);
const args = { path: "/repo/big.ts", content };
const json = JSON.stringify(args);

const fmt = (n) => n.toLocaleString("en-US", { maximumFractionDigits: 1 });

function baseModel(api, baseUrl) {
  const anthropic = api === "anthropic-messages";
  return {
    id: "bench",
    name: "Bench",
    api,
    provider: anthropic ? "anthropic" : "openai",
    baseUrl,
    reasoning: false,
    input: ["text"],
    contextWindow: 1_000_000,
    maxOutput: 1_000,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
}

// 1. The builder alone: toolCallArgs per delta, then the exact final parse.
{
  const builder = new ai.MessageBuilder(
    baseModel("anthropic-messages"),
    ai.createAssistantMessageEventStream(),
  );
  const start = performance.now();
  builder.toolCallStart("k", { id: "t1", name: "Write" });
  let deltas = 0;
  for (let i = 0; i < json.length; i += CHUNK, deltas++) builder.toolCallArgs("k", json.slice(i, i + CHUNK));
  builder.endBlock("k");
  const ms = performance.now() - start;
  const exact = builder.message.content[0]?.arguments?.content === content;
  console.log(
    `builder only         ${fmt(json.length / 1e6)} MB in ${fmt(deltas)} deltas of ${CHUNK}: ${fmt(ms).padStart(7)} ms  exact=${exact}`,
  );
}

// 2. End to end through each SDK against the mock server (its SSE rendering included).
for (const api of ["anthropic-messages", "openai-completions", "openai-responses"]) {
  const server = await startMockServer({
    turns: [],
    fallback: { toolCalls: [{ name: "Write", arguments: args }], chunkSize: CHUNK },
  });
  const model = baseModel(api, api === "anthropic-messages" ? server.anthropicBaseUrl : server.openaiBaseUrl);
  const start = performance.now();
  let events = 0;
  const s = ai.stream(
    model,
    { messages: [{ role: "user", content: "go", timestamp: 1 }] },
    { apiKey: "bench" },
  );
  for await (const _ of s) events++;
  const message = await s.result();
  const ms = performance.now() - start;
  const exact = message.content[0]?.arguments?.content === content;
  console.log(
    `${api.padEnd(20)} ${fmt(json.length / 1e6)} MB, ${fmt(events)} events: ${fmt(ms).padStart(7)} ms  exact=${exact}  ${message.stopReason}`,
  );
  await server.close();
}
