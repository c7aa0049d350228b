// Overhead of the agent loop itself: per turn with an instant model, per tool call, and how a
// batch of slow parallel / sequential tools spends wall time. Run after `pnpm build`:
// node bench/agent/run.mjs [--turns 2000] [--batch 50] [--tool-ms 20] [--faux-turns 100]
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const ai = await import(pathToFileURL(join(root, "packages/ai/dist/index.js")).href);
const { Agent } = await import(pathToFileURL(join(root, "packages/agent/dist/index.js")).href);
const { createFauxFetch, fauxModel } = await import(
  pathToFileURL(join(root, "packages/testing/dist/index.js")).href
);
// The TypeBox instance @keel/agent itself resolves.
const typeboxEntry = createRequire(join(root, "packages/agent/package.json")).resolve("@sinclair/typebox");
const { Type } = await import(pathToFileURL(typeboxEntry).href);

const { values: options } = parseArgs({
  options: {
    turns: { type: "string", default: "2000" },
    batch: { type: "string", default: "50" },
    "tool-ms": { type: "string", default: "20" },
    "faux-turns": { type: "string", default: "100" },
  },
});
const TURNS = Number(options.turns);
const BATCH = Number(options.batch);
const TOOL_MS = Number(options["tool-ms"]);
const model = fauxModel("anthropic-messages");
const schema = Type.Object({});

/** A model that answers instantly: `calls` tool calls per turn until `turns`, then text. */
function instantModel(turns, calls) {
  let turn = 0;
  return () => {
    const out = ai.createAssistantMessageEventStream();
    turn++;
    const message = {
      role: "assistant",
      content:
        turn < turns
          ? Array.from({ length: calls }, (_, i) => ({
              type: "toolCall",
              id: `t${turn}_${i}`,
              name: "noop",
              arguments: {},
            }))
          : [{ type: "text", text: "done" }],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: ai.emptyUsage(),
      stopReason: turn < turns ? "toolUse" : "stop",
      timestamp: Date.now(),
    };
    out.push({ type: "start", partial: message });
    out.push({ type: "done", reason: message.stopReason, message });
    return out;
  };
}

const noop = {
  name: "noop",
  description: "no-op",
  parameters: schema,
  execute: async () => ({ content: [{ type: "text", text: "ok" }] }),
};

async function timed(label, fn) {
  const start = performance.now();
  const detail = await fn();
  const ms = performance.now() - start;
  console.log(`${label.padEnd(58)} ${ms.toFixed(1).padStart(9)} ms  ${detail ?? ""}`);
  return ms;
}

let events = 0;
const agent1 = new Agent({ model, tools: [noop], streamFn: instantModel(TURNS, 1) });
agent1.subscribe(() => {
  events++;
});
const ms1 = await timed(`${TURNS} turns, 1 no-op tool each, instant model`, async () => {
  const r = (await agent1.prompt("go"))._unsafeUnwrap();
  if (r.stopReason !== "stop") throw new Error(`run ended with ${r.stopReason}: ${r.error?.message}`);
  return `(${r.turns} turns, ${events} events)`;
});
console.log(
  `  → ${((ms1 * 1000) / TURNS).toFixed(1)} µs per turn (history grows to ${agent1.messages.length} messages)`,
);

const agent2 = new Agent({ model, tools: [noop], streamFn: instantModel(TURNS / 10, 10) });
const ms2 = await timed(`${TURNS / 10} turns × 10 no-op tools, instant model`, async () => {
  await agent2.prompt("go");
});
console.log(`  → ${((ms2 * 1000) / TURNS).toFixed(1)} µs per tool call`);

const slow = (mode) => ({
  ...noop,
  name: "noop",
  executionMode: mode,
  execute: async () => {
    await sleep(TOOL_MS);
    return { content: [{ type: "text", text: "ok" }] };
  },
});
for (const mode of ["parallel", "sequential"]) {
  const agent = new Agent({ model, tools: [slow(mode)], streamFn: instantModel(2, BATCH) });
  await timed(`one batch of ${BATCH} ${mode} tools taking ${TOOL_MS} ms each`, async () => {
    await agent.prompt("go");
  });
}

const FAUX_TURNS = Number(options["faux-turns"]);
const faux = createFauxFetch({
  turns: Array.from({ length: FAUX_TURNS - 1 }, () => ({
    toolCalls: [{ name: "noop", arguments: {} }],
  })).concat([{ text: "done" }]),
});
const agent3 = new Agent({ model, tools: [noop], streamOptions: { apiKey: "k", fetch: faux.fetch } });
const ms3 = await timed(`${FAUX_TURNS} turns through the faux Anthropic provider (real SDK)`, async () => {
  await agent3.prompt("go");
});
console.log(`  → ${(ms3 / FAUX_TURNS).toFixed(2)} ms per turn, including request building and SSE parsing`);
