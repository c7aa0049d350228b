// Discovery: what a provider's models endpoint lists for a key (Anthropic's and OpenAI's shapes,
// through the SDKs, against the mock's models route), merged with the catalog.
import { getModel, listEndpointModels, listModels, type Model, mergeListing } from "@keel/ai";
import { type MockServer, startMockServer } from "@keel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: MockServer;
beforeAll(async () => {
  server = await startMockServer({ turns: [] });
});
afterAll(() => server.close());

const at = (model: Model, baseUrl: string): Model => ({ ...model, baseUrl });

describe("listEndpointModels", () => {
  it("reads Anthropic's model list with its limits", async () => {
    server.setScenario({
      turns: [],
      models: [
        {
          id: "claude-opus-5-5",
          displayName: "Claude Opus 5.5",
          maxInputTokens: 1_000_000,
          maxOutputTokens: 128_000,
        },
        { id: "claude-sonnet-6", displayName: "Claude Sonnet 6" },
      ],
    });
    const anthropic = at(getModel("anthropic", "claude-opus-5-5")._unsafeUnwrap(), server.anthropicBaseUrl);
    const listed = (await listEndpointModels(anthropic, { apiKey: "k" }))._unsafeUnwrap();
    expect(listed).toEqual([
      {
        id: "claude-opus-5-5",
        name: "Claude Opus 5.5",
        contextWindow: 1_000_000,
        maxOutput: 128_000,
        createdAt: "2026-01-01T00:00:00.000Z",
      },
      { id: "claude-sonnet-6", name: "Claude Sonnet 6", createdAt: "2026-01-01T00:00:00.000Z" },
    ]);
    expect(server.listings.at(-1)).toMatchObject({
      shape: "anthropic",
      headers: { authorization: "Bearer k" },
    });
  });

  it("reads an OpenAI-compatible list", async () => {
    server.setScenario({ turns: [], models: [{ id: "gpt-6.2-sol" }, { id: "gpt-7-preview" }] });
    const openai = at(getModel("openai", "gpt-6.2-sol")._unsafeUnwrap(), server.openaiBaseUrl);
    const listed = (await listEndpointModels(openai, { apiKey: "k" }))._unsafeUnwrap();
    expect(listed.map((m) => m.id)).toEqual(["gpt-6.2-sol", "gpt-7-preview"]);
    expect(server.listings.at(-1)?.shape).toBe("openai");
  });

  it("reports a missing key and an unreachable server as errors, not throws", async () => {
    const noKey = { ...getModel("zai", "glm-5.3")._unsafeUnwrap(), apiKeyEnv: "KEEL_TEST_NO_SUCH_KEY" };
    expect((await listEndpointModels(noKey))._unsafeUnwrapErr()).toMatchObject({ type: "config" });
    const down = at(getModel("openai", "gpt-6.2-sol")._unsafeUnwrap(), "http://127.0.0.1:9/v1");
    expect((await listEndpointModels(down, { apiKey: "k" }))._unsafeUnwrapErr().type).toBe("network");
  });
});

describe("mergeListing", () => {
  const catalog = listModels("anthropic");

  it("marks catalog models the key cannot use and adds endpoint-only ones, usable on defaults", () => {
    const rows = mergeListing(catalog, [
      { id: "claude-opus-5-5" },
      { id: "claude-sonnet-6", maxOutput: 64_000, contextWindow: 500_000 },
    ]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get("claude-opus-5-5")).toMatchObject({ inCatalog: true, available: true, legacy: false });
    expect(byId.get("claude-opus-5-5")?.note).toBeUndefined();
    expect(byId.get("claude-fable-5-2")).toMatchObject({
      available: false,
      note: "not listed by the provider's models endpoint for this key",
    });
    const extra = byId.get("claude-sonnet-6");
    expect(extra).toMatchObject({ inCatalog: false, available: true, ref: "anthropic/claude-sonnet-6" });
    expect(extra?.model).toMatchObject({
      api: "anthropic-messages",
      contextWindow: 500_000,
      maxOutput: 64_000,
    });
    expect(extra?.note).toBe(
      "not in Keel's catalog: runs with anthropic's defaults (500,000-token window), prices unknown",
    );
    // Catalog order first, endpoint-only rows after.
    expect(rows.at(-1)?.id).toBe("claude-sonnet-6");
  });

  it("leaves availability unknown when the endpoint was not asked, and notes legacy rows", () => {
    const rows = mergeListing(catalog, undefined);
    expect(rows.every((r) => r.available === undefined)).toBe(true);
    expect(rows.find((r) => r.id === "claude-sonnet-4-6")?.note).toBe("legacy: superseded, still callable");
  });
});
