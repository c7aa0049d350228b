// Byte-level checks on raw HTTP: SSE framing per dialect, and the faux fetch producing the
// very same bytes as the socket server.
import { afterEach, describe, expect, it } from "vitest";
import {
  createFauxFetch,
  type MockServer,
  type ReplyTurn,
  type Scenario,
  startMockServer,
} from "../src/index.js";

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function post(base: string, path: string, body: unknown, doFetch: typeof fetch = fetch) {
  const response = await doFetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function frames(text: string): string[] {
  expect(text.endsWith("\n\n")).toBe(true);
  return text.slice(0, -2).split("\n\n");
}

describe("SSE framing on the wire", () => {
  it("Anthropic: named events, one compact data line each", async () => {
    server = await startMockServer({ turns: [{ text: "Hi" }] });
    const { status, headers, text } = await post(server.url, "/v1/messages", { model: "m", stream: true });
    expect(status).toBe(200);
    expect(headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(headers.get("request-id")).toBe("req_keel0000");
    const all = frames(text);
    for (const frame of all) expect(frame).toMatch(/^event: [a-z_]+\ndata: \{.*\}$/);
    expect(all.map((f) => f.split("\n")[0])).toEqual([
      "event: message_start",
      "event: ping",
      "event: content_block_start",
      "event: content_block_delta",
      "event: content_block_stop",
      "event: message_delta",
      "event: message_stop",
    ]);
    expect(text).toContain(
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n',
    );
    expect(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
  });

  it("Chat Completions: unnamed data lines ending in [DONE]", async () => {
    server = await startMockServer({ turns: [{ text: "Hi" }] });
    const { text, headers } = await post(server.url, "/v1/chat/completions", { model: "m", stream: true });
    expect(headers.get("x-request-id")).toBe("req_keel0000");
    expect(text).not.toContain("event:");
    expect(text).toContain(
      'data: {"id":"chatcmpl-keel0000","object":"chat.completion.chunk","created":1767225600,"model":"m",' +
        '"system_fingerprint":"fp_keel","choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]}\n\n',
    );
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    for (const frame of frames(text)) expect(frame).toMatch(/^data: .*$/);
  });

  it("Responses: named events whose data repeats the type and numbers the sequence", async () => {
    server = await startMockServer({ turns: [{ text: "Hi" }] });
    const { text } = await post(server.url, "/v1/responses", { model: "m", stream: true });
    expect(text).toContain(
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":4,' +
        '"item_id":"msg_keel0000","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}\n\n',
    );
    frames(text).forEach((frame, i) => {
      const [eventLine, dataLine] = frame.split("\n");
      const data = JSON.parse(dataLine?.slice("data: ".length) ?? "");
      expect(eventLine).toBe(`event: ${data.type}`);
      expect(data.sequence_number).toBe(i);
    });
  });

  it("a malformed line is a data line that cannot parse, after the well-formed events", async () => {
    server = await startMockServer({ turns: [{ text: "Hi", malformedAfterEvents: 2 }] });
    const { text } = await post(server.url, "/v1/chat/completions", { model: "m", stream: true });
    const all = frames(text);
    expect(all).toHaveLength(3);
    expect(() => JSON.parse(all[1]?.slice(6) ?? "")).not.toThrow();
    expect(() => JSON.parse(all[2]?.slice(6) ?? "")).toThrow(SyntaxError);
  });
});

describe("one engine, two transports", () => {
  const turn: ReplyTurn = {
    thinking: "Thinking about ünïcödé 🚀 and more",
    thinkingSignature: "sig",
    text: "Answer with emoji 🎉🎉 split across chunks",
    toolCalls: [
      { name: "a", arguments: { x: 1 } },
      { name: "b", arguments: "{not json" },
    ],
    chunkSize: 3,
    delayMs: 1,
  };
  const paths = ["/v1/messages", "/v1/chat/completions", "/v1/responses"];
  const scenario = (): Scenario => ({
    turns: paths.flatMap(() => [turn, { ...turn, kind: "reply" as const }]),
  });

  it("the faux fetch answers with the same status, headers and bytes as the server", async () => {
    server = await startMockServer(scenario());
    const faux = createFauxFetch(scenario());
    for (const path of paths) {
      for (const stream of [true, false]) {
        const body = { model: "m", stream, stream_options: { include_usage: true } };
        const overSocket = await post(server.url, path, body);
        const inProcess = await post("http://faux.keel.invalid", path, body, faux.fetch);
        expect(inProcess.status).toBe(overSocket.status);
        expect(inProcess.headers.get("content-type")).toBe(overSocket.headers.get("content-type"));
        expect(inProcess.text).toBe(overSocket.text);
      }
    }
    expect(faux.requests.map((r) => r.api)).toEqual(server.requests.map((r) => r.api));
  });

  it("splits text by code points, so no delta carries half an emoji", async () => {
    const faux = createFauxFetch({ turns: [{ text: "🎉🎉🎉", chunkSize: 1 }] });
    const { text } = await post(
      "http://faux.keel.invalid",
      "/v1/chat/completions",
      { stream: true },
      faux.fetch,
    );
    const contents = frames(text)
      .filter((f) => f !== "data: [DONE]")
      .map((f) => JSON.parse(f.slice(6)).choices[0].delta.content)
      .filter((c) => c);
    expect(contents).toEqual(["🎉", "🎉", "🎉"]);
  });
});
