// Stalled and endless streams, in every dialect and over both transports, read by the real SDKs:
// a stall keeps the connection open and silent until the client gives up, an endless reply
// repeats its text until the client hangs up.
import { afterEach, describe, expect, it } from "vitest";
import type { ReplyTurn, WireApi } from "../src/index.js";
import { checkScenario } from "../src/validate.js";
import { openTransport, TRANSPORTS, type Transport } from "./transports.js";

const DIALECTS: WireApi[] = ["anthropic-messages", "openai-completions", "openai-responses"];

/** The text deltas of one streamed reply, as the dialect's SDK yields them. */
async function* textOf(t: Transport, api: WireApi, signal: AbortSignal): AsyncGenerator<string> {
  if (api === "anthropic-messages") {
    const events = await t.anthropic.messages.create(
      { model: "m", max_tokens: 64, messages: [{ role: "user", content: "hi" }], stream: true },
      { signal },
    );
    for await (const e of events) {
      if (e.type === "content_block_delta" && e.delta.type === "text_delta") yield e.delta.text;
    }
  } else if (api === "openai-completions") {
    const chunks = await t.openai.chat.completions.create(
      { model: "m", messages: [{ role: "user", content: "hi" }], stream: true },
      { signal },
    );
    for await (const c of chunks) {
      const piece = c.choices[0]?.delta?.content;
      if (piece) yield piece;
    }
  } else {
    const events = await t.openai.responses.create({ model: "m", input: "hi", stream: true }, { signal });
    for await (const e of events) if (e.type === "response.output_text.delta") yield e.delta;
  }
}

/**
 * Reads text until `enough` says stop, the stream ends, or nothing arrived for `quietMs` (then
 * it gives up, as a client with an idle timeout would); reports how it ended.
 */
async function read(
  t: Transport,
  api: WireApi,
  options: { enough?: (text: string) => boolean; quietMs: number },
): Promise<{ text: string; ended: "finished" | "gave_up" }> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const quiet = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(new Error("gave up")), options.quietMs);
  };
  quiet();
  let text = "";
  try {
    for await (const piece of textOf(t, api, controller.signal)) {
      text += piece;
      quiet();
      if (options.enough?.(text)) {
        controller.abort(new Error("enough"));
        return { text, ended: "gave_up" };
      }
    }
    // The SDKs end their iterators quietly when the request is aborted.
    return { text, ended: controller.signal.aborted ? "gave_up" : "finished" };
  } catch (error) {
    if (controller.signal.aborted) return { text, ended: "gave_up" };
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

describe.each(TRANSPORTS)("stream faults over %s", (kind) => {
  let t: Transport;
  afterEach(() => t.close());

  describe.each(DIALECTS)("%s", (api) => {
    it("a stall after the headers sends nothing until the client gives up", async () => {
      t = await openTransport(kind, { turns: [{ text: "never sent", stallAfterEvents: 0 }] });
      const started = Date.now();
      const outcome = await read(t, api, { quietMs: 300 });
      expect(outcome).toEqual({ text: "", ended: "gave_up" });
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    });

    it("a stall mid-reply keeps what was sent and then goes silent", async () => {
      const frames = { "anthropic-messages": 5, "openai-completions": 3, "openai-responses": 6 }[api];
      t = await openTransport(kind, {
        turns: [{ text: "abcdefgh", chunkSize: 2, stallAfterEvents: frames }],
      });
      // Silence after "abcd", however slowly a loaded machine delivers the first two pieces.
      const outcome = await read(t, api, { quietMs: 1000 });
      expect(outcome).toEqual({ text: "abcd", ended: "gave_up" });
    });

    it("an endless reply repeats its text until the client hangs up, and the next turn is served", async () => {
      const turn: ReplyTurn = { text: "loop ", chunkSize: 5, endless: true };
      t = await openTransport(kind, { turns: [turn, { text: "after" }] });
      const outcome = await read(t, api, { enough: (s) => s.length >= 5000, quietMs: 5000 });
      expect(outcome.ended).toBe("gave_up");
      expect(outcome.text).toBe("loop ".repeat(outcome.text.length / 5));
      expect(await read(t, api, { quietMs: 5000 })).toEqual({ text: "after", ended: "finished" });
    });
  });
});

describe("fault scenarios from JSON", () => {
  it("an endless turn needs text", () => {
    expect(checkScenario({ turns: [{ endless: true }] })).toEqual({
      ok: false,
      error: {
        type: "invalid_scenario",
        message: 'turns[0] is endless and needs a non-empty "text" to repeat',
      },
    });
    expect(checkScenario({ turns: [{ endless: true, text: "x" }, { stallAfterEvents: 0 }] }).ok).toBe(true);
  });
});
