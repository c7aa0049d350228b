// A local server on 127.0.0.1 that answers each model request with the next recorded response,
// as the vendor's SSE (event names where the API sends them), cut into chunks at arbitrary byte
// positions; once the recording is spent it answers with a one-word text reply. It keeps every
// request body as received, so the test can check what Keel sent.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { typeOf, type WireApi } from "./recordings.js";

export interface ReplayServer {
  /** Anthropic's base URL (the SDK adds /v1/messages). */
  anthropicBaseUrl: string;
  /** OpenAI's base URL (the SDK adds /chat/completions or /responses). */
  openaiBaseUrl: string;
  /** Every request body, as sent. */
  requests: { path: string; raw: string; headers: IncomingMessage["headers"] }[];
  /** Serves these responses, in order, to the next requests. */
  play(api: WireApi, responses: string[][], seed: number): void;
  close(): Promise<void>;
}

function frames(api: WireApi, payloads: string[]): string {
  const out: string[] = [];
  for (const payload of payloads) {
    if (api === "openai-completions") out.push(`data: ${payload}\n\n`);
    else out.push(`event: ${typeOf(payload) ?? "message"}\ndata: ${payload}\n\n`);
  }
  if (api === "openai-completions") out.push("data: [DONE]\n\n");
  return out.join("");
}

/** A one-word answer in the API's shape, for requests past the end of a recording. */
function closing(api: WireApi, index: number): string[] {
  if (api === "anthropic-messages")
    return [
      JSON.stringify({
        type: "message_start",
        message: {
          id: `msg_replay_${index}`,
          type: "message",
          role: "assistant",
          model: "replay",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      }),
      JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } }),
      JSON.stringify({ type: "content_block_stop", index: 0 }),
      JSON.stringify({
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 1 },
      }),
      JSON.stringify({ type: "message_stop" }),
    ];
  if (api === "openai-completions")
    return [
      JSON.stringify({
        id: `chatcmpl-replay-${index}`,
        object: "chat.completion.chunk",
        created: 0,
        model: "replay",
        choices: [{ index: 0, delta: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      }),
    ];
  const response = (status: string, output: unknown[]) => ({
    id: `resp_replay_${index}`,
    object: "response",
    created_at: 0,
    status,
    model: "replay",
    output,
    usage:
      status === "completed"
        ? { input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: { cached_tokens: 0 } }
        : null,
  });
  const item = {
    id: `msg_replay_${index}`,
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: "ok", annotations: [] }],
  };
  return [
    JSON.stringify({ type: "response.created", sequence_number: 0, response: response("in_progress", []) }),
    JSON.stringify({
      type: "response.output_text.delta",
      sequence_number: 1,
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta: "ok",
    }),
    JSON.stringify({ type: "response.output_item.done", sequence_number: 2, output_index: 0, item }),
    JSON.stringify({
      type: "response.completed",
      sequence_number: 3,
      response: response("completed", [item]),
    }),
  ];
}

/** Deterministic cut points, 1 to 97 bytes apart: any boundary a network may produce. */
function cuts(length: number, seed: number): number[] {
  let state = seed || 1;
  const out: number[] = [];
  for (let at = 0; at < length; ) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    at += 1 + (state % 97);
    out.push(Math.min(at, length));
  }
  return out;
}

async function send(res: ServerResponse, body: string, seed: number): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  const bytes = Buffer.from(body, "utf8");
  let from = 0;
  for (const to of cuts(bytes.length, seed)) {
    res.write(bytes.subarray(from, to));
    from = to;
    // Let the client read between writes, so chunks arrive apart (also inside a UTF-8 character).
    if (to % 7 === 0) await new Promise((r) => setImmediate(r));
  }
  res.end();
}

export async function startReplayServer(): Promise<ReplayServer> {
  let api: WireApi = "anthropic-messages";
  let queue: string[][] = [];
  let seed = 1;
  let served = 0;
  const requests: ReplayServer["requests"] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      raw += chunk;
    });
    req.on("end", () => {
      requests.push({ path: req.url ?? "", raw, headers: req.headers });
      const next = queue.shift() ?? closing(api, served);
      served++;
      void send(res, frames(api, next), seed + served);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    anthropicBaseUrl: origin,
    openaiBaseUrl: `${origin}/v1`,
    requests,
    play(nextApi, responses, nextSeed) {
      api = nextApi;
      queue = responses.map((r) => [...r]);
      seed = nextSeed;
      served = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
