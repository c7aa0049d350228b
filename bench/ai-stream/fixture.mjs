// The ai-stream fixture shared by run.mjs (wall/CPU time) and count.mjs (instruction counts):
// one scripted Anthropic text reply, replayed from memory, read bare through the SDK or through Keel.
import { fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { startMockServer } = await import(pathToFileURL(join(root, "packages/testing/dist/index.js")).href);
// The SDK instance @keel/ai itself loads (pnpm keeps it under packages/ai/node_modules).
const sdkDir = dirname(createRequire(join(root, "packages/ai/package.json")).resolve("@anthropic-ai/sdk"));
const { default: Anthropic } = await import(pathToFileURL(join(sdkDir, "index.mjs")).href);

/** The command-line options every ai-stream script takes; setupFromArgs reads them. */
export const FIXTURE_OPTIONS = {
  chunk: { type: "string", default: "16" },
  server: { type: "string", default: "child" },
  dist: { type: "string" },
  transport: { type: "string", default: "same" },
};

/** setup() from parsed FIXTURE_OPTIONS plus the script's own `mb`. */
export function setupFromArgs(args) {
  return setup({
    mb: Number(args.mb),
    chunk: Number(args.chunk),
    server: args.server,
    dist: args.dist,
    transport: args.transport,
  });
}

/**
 * Starts the replay server for `mb` MB of text in `chunk`-char deltas: in a child process
 * (`server: "child"`, the client's time is then only client work) or in this one; `dist` is the
 * @keel/ai build to load; `transport` says which fetch Keel uses (see keelOptions).
 */
export async function setup({
  mb,
  chunk,
  server = "child",
  dist = join(root, "packages/ai/dist"),
  transport = "same",
}) {
  // `dist` may point at another build of @keel/ai (a copy of an older dist) to compare builds.
  const { stream } = await import(pathToFileURL(join(dist, "index.js")).href);
  const textBytes = Math.round(mb * 1024 * 1024);
  // Varied ASCII so every delta is distinct text of the same length.
  const words = "the quick brown fox jumps over a lazy dog while keel streams tokens at speed ".split(" ");
  let text = "";
  for (let i = 0; text.length < textBytes; i++)
    text += `${words[i % words.length]}${i % 7 === 0 ? ".\n" : " "}`;
  text = text.slice(0, textBytes);

  // 1. The mock server renders the exact Anthropic SSE bytes once.
  const mock = await startMockServer({
    turns: [],
    fallback: { text, chunkSize: chunk, usage: { input: 1000, output: Math.ceil(textBytes / 4) } },
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
  const { baseURL, close } = server === "child" ? await childServer(captured) : await localServer(captured);

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

  // The bare side is what a minimal consumer of the SDK does: one plain `for await` over the
  // raw events, counting them and the text characters. No accumulation, no copies.
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
    return { count, chars, final: undefined };
  }

  // "same": Keel gets the fetch the bare SDK uses (the global one), so only the streaming layers
  // differ; "default": Keel uses its own transport (node:http unless the caller brings a fetch).
  // The reply is far longer than any model's output cap, which bounds a reply's size: the cap and
  // the bound are raised to fit it (the scripted usage counts about 4 characters a token).
  const bounds = { maxTokens: Math.ceil(textBytes / 4), maxReplyChars: 2 * textBytes };
  const keelOptions =
    transport === "same"
      ? { apiKey: "test", fetch: globalThis.fetch, ...bounds }
      : { apiKey: "test", ...bounds };

  // The Keel side does the same through stream(), which also builds the growing message
  // (text, usage, cost) that every event carries, and ends with the finished message.
  async function keel() {
    let count = 0;
    let chars = 0;
    let last;
    for await (const event of stream(model, context, keelOptions)) {
      count++;
      if (event.type === "text_delta") chars += event.delta.length;
      last = event;
    }
    return { count, chars, final: last };
  }

  /** Checks a side's result outside its timing: all the text arrived (and Keel's message is exact). */
  function check(result) {
    if (result.chars !== text.length)
      throw new Error(`expected ${text.length} text characters, got ${result.chars}`);
    const last = result.final;
    if (last !== undefined && last.type !== "done")
      throw new Error(`Keel stream ended with ${JSON.stringify(last.type)}: ${JSON.stringify(last.error)}`);
    if (last !== undefined && last.message.content[0]?.text !== text)
      throw new Error("Keel's final text differs from the reply");
    return result;
  }

  return { text, captured, bare, keel, check, close };
}

async function localServer(captured) {
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
  return { baseURL: `http://127.0.0.1:${replay.address().port}`, close: () => replay.close() };
}

async function childServer(captured) {
  const dir = mkdtempSync(join(tmpdir(), "keel-ai-stream-"));
  const file = join(dir, "reply.sse");
  writeFileSync(file, captured);
  const child = fork(join(dirname(fileURLToPath(import.meta.url)), "replay-server.mjs"), [file], {
    stdio: "inherit",
  });
  const { port } = await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`replay server exited with ${code}`)));
  });
  return {
    baseURL: `http://127.0.0.1:${port}`,
    close: () => {
      child.disconnect();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
