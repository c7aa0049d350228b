// Streaming overhead of Keel's stream() over a bare @anthropic-ai/sdk loop, on one ~5 MB
// scripted text reply. Run after `pnpm build`: node bench/ai-stream/run.mjs [--mb 5] [--chunk 16] [--runs 5]
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { stream } = await import(pathToFileURL(join(root, "packages/ai/dist/index.js")).href);
const { startMockServer } = await import(pathToFileURL(join(root, "packages/testing/dist/index.js")).href);
// The SDK instance @keel/ai itself loads (pnpm keeps it under packages/ai/node_modules).
const sdkDir = dirname(createRequire(join(root, "packages/ai/package.json")).resolve("@anthropic-ai/sdk"));
const { default: Anthropic } = await import(pathToFileURL(join(sdkDir, "index.mjs")).href);

const { values: args } = parseArgs({
  options: {
    mb: { type: "string", default: "5" },
    chunk: { type: "string", default: "16" },
    runs: { type: "string", default: "5" },
  },
});
const TEXT_BYTES = Math.round(Number(args.mb) * 1024 * 1024);
const CHUNK = Number(args.chunk);
const RUNS = Number(args.runs);

// Varied ASCII so every delta is distinct text of the same length.
const words = "the quick brown fox jumps over a lazy dog while keel streams tokens at speed ".split(" ");
let text = "";
for (let i = 0; text.length < TEXT_BYTES; i++)
  text += `${words[i % words.length]}${i % 7 === 0 ? ".\n" : " "}`;
text = text.slice(0, TEXT_BYTES);

// 1. The mock server renders the exact Anthropic SSE bytes once.
const mock = await startMockServer({
  turns: [],
  fallback: { text, chunkSize: CHUNK, usage: { input: 1000, output: Math.ceil(TEXT_BYTES / 4) } },
});
const captured = Buffer.from(
  await (
    await fetch(`${mock.anthropicBaseUrl}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-bench", max_tokens: 1, stream: true, messages: [] }),
    })
  ).arrayBuffer(),
);
await mock.close();

// 2. Replayed in one write, so the server never paces the client: the bench measures client work.
const replay = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "content-length": captured.length,
    });
    res.end(captured);
  });
});
await new Promise((resolve) => replay.listen(0, "127.0.0.1", resolve));
const baseURL = `http://127.0.0.1:${replay.address().port}`;

const model = {
  id: "claude-bench",
  name: "Claude Bench",
  api: "anthropic-messages",
  provider: "anthropic",
  baseUrl: baseURL,
  reasoning: false,
  input: ["text"],
  contextWindow: 200_000,
  maxOutput: 64_000,
  cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
};
const context = { systemPrompt: "Bench.", messages: [{ role: "user", content: "Stream.", timestamp: 0 }] };

async function bare() {
  const client = new Anthropic({ apiKey: "test", baseURL, maxRetries: 0 });
  const events = await client.messages.create({
    model: model.id,
    max_tokens: 64_000,
    system: [{ type: "text", text: "Bench." }],
    messages: [{ role: "user", content: "Stream." }],
    stream: true,
  });
  let count = 0;
  let chars = 0;
  for await (const event of events) {
    count++;
    if (event.type === "content_block_delta" && event.delta.type === "text_delta")
      chars += event.delta.text.length;
  }
  return { count, chars };
}

async function keel() {
  let count = 0;
  let chars = 0;
  let last;
  for await (const event of stream(model, context, { apiKey: "test" })) {
    count++;
    if (event.type === "text_delta") chars += event.delta.length;
    last = event;
  }
  if (last?.type !== "done")
    throw new Error(`Keel stream ended with ${JSON.stringify(last?.type)}: ${JSON.stringify(last?.error)}`);
  return { count, chars };
}

// Wall time for the throughput figures; CPU time too, which a busy machine distorts less.
async function measure(fn) {
  const start = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  const { count, chars } = await fn();
  const cpu = process.cpuUsage(cpuStart);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (chars !== text.length) throw new Error(`expected ${text.length} text characters, got ${chars}`);
  return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, count };
}

const results = { bare: [], keel: [] };
await bare();
await keel();
for (let i = 0; i < RUNS; i++) {
  // Alternate so drift (GC, CPU frequency, neighbours) hits both sides alike.
  results.bare.push(await measure(bare));
  results.keel.push(await measure(keel));
}
replay.close();

const best = (list) => list.reduce((a, b) => (b.seconds < a.seconds ? b : a));
const bestCpu = (list) => Math.min(...list.map((r) => r.cpuSeconds));
const mb = TEXT_BYTES / (1024 * 1024);
const report = (name, r) =>
  console.log(
    `${name.padEnd(22)} ${(r.count / r.seconds).toFixed(0).padStart(9)} events/s  ${(mb / r.seconds).toFixed(2).padStart(7)} MB/s  ` +
      `(${r.count} events in ${(r.seconds * 1000).toFixed(0)} ms)`,
  );
const b = best(results.bare);
const k = best(results.keel);
console.log(
  `ai-stream: ${mb.toFixed(1)} MB of text in ${CHUNK}-char deltas, ${(captured.length / 1048576).toFixed(1)} MB of SSE, best of ${RUNS}`,
);
report("bare @anthropic-ai/sdk", b);
report("keel stream()", k);
const overhead = ((k.seconds - b.seconds) / b.seconds) * 100;
const cpuOverhead = ((bestCpu(results.keel) - bestCpu(results.bare)) / bestCpu(results.bare)) * 100;
console.log(`keel overhead: ${overhead.toFixed(1)}% wall, ${cpuOverhead.toFixed(1)}% CPU (goal <= 10%)`);
