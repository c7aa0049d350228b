// Kernel harness overhead per turn at zero model latency, and the fixed bytes every request
// carries (system prompt + tool schemas). After `pnpm build`: node bench/kernel/run.mjs [--turns N] [--rounds N]
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyUsage, stream } from "../../packages/ai/dist/index.js";
import { createCodingAgent } from "../../packages/coding-agent/dist/index.js";
import { defineExtension, Type, textResult } from "../../packages/extension-sdk/dist/index.js";
import { createFauxFetch, fauxModel } from "../../packages/testing/dist/index.js";

const flag = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const TURNS = flag("--turns", 300);
const ROUNDS = flag("--rounds", 3);

const noop = defineExtension({
  id: "bench-noop",
  tools: (tool) => [
    tool({
      name: "Noop",
      description: "Does nothing.",
      parameters: Type.Object({}),
      execute: async () => textResult("ok"),
    }),
  ],
});

const scenario = () => ({
  turns: [],
  fallback: (request) =>
    request.index < TURNS - 1 ? { toolCalls: [{ name: "Noop", arguments: {} }] } : { text: "done" },
});

async function kernelRun() {
  const root = mkdtempSync(join(tmpdir(), "keel-bench-kernel-"));
  const workspace = join(root, "repo");
  execFileSync("mkdir", ["-p", workspace, join(root, "home")]);
  execFileSync("git", ["init", "-q", workspace]);
  const faux = createFauxFetch(scenario());
  const created = await createCodingAgent({
    cwd: workspace,
    home: join(root, "home"),
    model: fauxModel("anthropic-messages"),
    streamOptions: { fetch: faux.fetch, apiKey: "bench" },
    permissionMode: "bypassPermissions",
    extensions: [noop],
    discoverExtensions: false,
  });
  if (created.isErr()) throw new Error(created.error.message);
  const agent = created.value;
  const start = performance.now();
  const run = await agent.prompt("go");
  const wall = performance.now() - start;
  if (run.isErr() || run.value.turns !== TURNS) throw new Error("bench run failed");
  const first = faux.requests[0].body;
  const fixedBytes =
    Buffer.byteLength(JSON.stringify(first.system)) + Buffer.byteLength(JSON.stringify(first.tools));
  const systemBytes = Buffer.byteLength(first.system.map((b) => b.text).join(""));
  const toolBytes = Buffer.byteLength(JSON.stringify(first.tools));
  await agent.close();
  rmSync(root, { recursive: true, force: true });
  return {
    perTurn: wall / TURNS,
    fixedBytes,
    systemBytes,
    toolBytes,
    tools: first.tools.length,
    requests: faux.requests,
  };
}

/** The same requests sent straight through @keel/ai: what the provider path alone costs. */
async function providerOnly(requests) {
  const faux = createFauxFetch(scenario());
  const model = fauxModel("anthropic-messages");
  const start = performance.now();
  for (const request of requests) {
    // Replay each recorded context shape: system + tools + a history of the same length.
    const messages = request.body.messages.map((m, i) => ({
      role: m.role === "assistant" ? "assistant" : "user",
      ...(m.role === "assistant"
        ? {
            content: [{ type: "text", text: `turn ${i}` }],
            api: "anthropic-messages",
            provider: "anthropic",
            model: "faux",
            usage: emptyUsage(),
            stopReason: "stop",
          }
        : { content: "x" }),
      timestamp: 0,
    }));
    await stream(
      model,
      { systemPrompt: "s", messages, tools: [] },
      { fetch: faux.fetch, apiKey: "bench" },
    ).result();
  }
  return (performance.now() - start) / requests.length;
}

const results = [];
for (let i = 0; i < ROUNDS; i++) {
  const k = await kernelRun();
  const p = await providerOnly(k.requests);
  results.push({ ...k, provider: p, overhead: k.perTurn - p });
}
const best = results.reduce((a, b) => (b.overhead < a.overhead ? b : a));
const fmt = (n) => n.toFixed(2);
console.log(`kernel: ${TURNS} turns per run, best of ${ROUNDS}`);
console.log(`  wall per turn (kernel, faux provider, no-op tool): ${fmt(best.perTurn)} ms`);
console.log(`  provider path alone per request:                   ${fmt(best.provider)} ms`);
console.log(`  harness overhead per turn:                         ${fmt(best.overhead)} ms (goal <= 5 ms)`);
console.log(
  `  fixed request bytes: system prompt ${best.systemBytes} B + tool schemas ${best.toolBytes} B (${best.tools} tools) = ${best.fixedBytes} B as sent`,
);
