// The models route (GET /v1/models) as the official SDKs read it: Anthropic's ModelInfo pages
// and OpenAI's list, over both transports; listing consumes no scenario turn.
import { afterEach, describe, expect, it } from "vitest";
import { openTransport, TRANSPORTS, type Transport } from "./transports.js";

const MODELS = [
  {
    id: "claude-opus-5-5",
    displayName: "Claude Opus 5.5",
    maxInputTokens: 1_000_000,
    maxOutputTokens: 128_000,
  },
  { id: "claude-next-1" },
];

describe.each(TRANSPORTS)("models route over %s", (kind) => {
  let t: Transport;
  afterEach(() => t.close());

  it("lists the scripted models in Anthropic's shape for the Anthropic SDK", async () => {
    t = await openTransport(kind, { turns: [{ text: "after" }], models: MODELS });
    const listed = [];
    for await (const m of t.anthropic.models.list()) listed.push(m);
    expect(listed).toEqual([
      {
        type: "model",
        id: "claude-opus-5-5",
        display_name: "Claude Opus 5.5",
        created_at: "2026-01-01T00:00:00.000Z",
        max_input_tokens: 1_000_000,
        max_tokens: 128_000,
      },
      expect.objectContaining({ id: "claude-next-1", display_name: "claude-next-1", max_tokens: null }),
    ]);
    expect(t.listings.map((l) => l.shape)).toEqual(["anthropic"]);
    expect(t.listings[0]?.headers.authorization).toBe("Bearer test-key");
    // The scenario's first turn is still there for the next model request.
    const reply = await t.anthropic.messages.create({
      model: "m",
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(reply.content).toEqual([expect.objectContaining({ type: "text", text: "after" })]);
  });

  it("lists them in OpenAI's shape for the OpenAI SDK", async () => {
    t = await openTransport(kind, { turns: [], models: MODELS });
    const listed = [];
    for await (const m of t.openai.models.list()) listed.push(m);
    expect(listed).toEqual([
      { id: "claude-opus-5-5", object: "model", created: 1767225600, owned_by: "keel-mock" },
      { id: "claude-next-1", object: "model", created: 1767225600, owned_by: "keel-mock" },
    ]);
    expect(t.listings.map((l) => l.shape)).toEqual(["openai"]);
    expect(t.requests).toHaveLength(0);
  });

  it("lists nothing when the scenario names no models", async () => {
    t = await openTransport(kind, { turns: [] });
    const listed = [];
    for await (const m of t.openai.models.list()) listed.push(m);
    expect(listed).toEqual([]);
  });
});
