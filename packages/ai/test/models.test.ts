// The built-in catalog's data invariants and model lookup by provider/id or bare id.
import { BUILTIN_MODELS, findModel, getModel, listModels, listProviders, modelRef } from "@keel/ai";
import { describe, expect, it } from "vitest";

describe("built-in catalog", () => {
  it("has positive limits and non-negative prices on every entry", () => {
    for (const m of BUILTIN_MODELS) {
      expect(m.contextWindow, modelRef(m)).toBeGreaterThan(0);
      expect(m.maxOutput, modelRef(m)).toBeGreaterThan(0);
      expect(m.maxOutput, modelRef(m)).toBeLessThanOrEqual(m.contextWindow);
      for (const price of Object.values(m.cost)) expect(price, modelRef(m)).toBeGreaterThanOrEqual(0);
      expect(m.input.length, modelRef(m)).toBeGreaterThan(0);
      expect(m.name.length, modelRef(m)).toBeGreaterThan(0);
    }
  });

  it("has unique provider/id pairs", () => {
    const refs = BUILTIN_MODELS.map(modelRef);
    expect(new Set(refs).size).toBe(refs.length);
  });

  it("gives every OpenAI-compatible entry a compat block, a key variable and a base URL", () => {
    const compatible = BUILTIN_MODELS.filter((m) => m.api === "openai-completions");
    expect(compatible.length).toBeGreaterThan(0);
    for (const m of compatible) {
      expect(m.compat, modelRef(m)).toBeDefined();
      expect(m.apiKeyEnv, modelRef(m)).toMatch(/^[A-Z_]+_API_KEY$/);
      expect(m.baseUrl, modelRef(m)).toMatch(/^https:\/\//);
    }
  });

  it("names a key variable for every provider", () => {
    for (const m of BUILTIN_MODELS) expect(m.apiKeyEnv, modelRef(m)).toBeTruthy();
  });

  it("covers the providers Keel promises", () => {
    expect(listProviders()).toEqual(
      expect.arrayContaining([
        "anthropic",
        "openai",
        "deepseek",
        "dashscope",
        "moonshot",
        "zai",
        "openrouter",
      ]),
    );
    expect(getModel("deepseek", "deepseek-reasoner")._unsafeUnwrap().compat?.reasoningField).toBe(
      "reasoning_content",
    );
    expect(getModel("openai", "o3")._unsafeUnwrap().api).toBe("openai-responses");
  });
});

describe("lookup", () => {
  it("gets a model by provider and id", () => {
    const model = getModel("anthropic", "claude-haiku-4-5")._unsafeUnwrap();
    expect(model).toMatchObject({ provider: "anthropic", api: "anthropic-messages", contextWindow: 200_000 });
  });

  it("finds by provider/id and by bare id", () => {
    expect(findModel("openai/gpt-5")._unsafeUnwrap().provider).toBe("openai");
    expect(findModel("deepseek-chat")._unsafeUnwrap().provider).toBe("deepseek");
  });

  it("finds ids that contain a slash, with or without the provider", () => {
    expect(findModel("openrouter/anthropic/claude-sonnet-4.6")._unsafeUnwrap().provider).toBe("openrouter");
    // anthropic has no "claude-sonnet-4.6" (its id uses dashes), so this is OpenRouter's bare id.
    expect(findModel("anthropic/claude-sonnet-4.6")._unsafeUnwrap().provider).toBe("openrouter");
  });

  it("reports an unknown model with the provider's known ids", () => {
    const error = getModel("anthropic", "claude-9")._unsafeUnwrapErr();
    expect(error.type).toBe("unknown_model");
    expect(error.message).toContain('unknown model "claude-9" for provider anthropic; known: ');
    expect(error.message).toContain("claude-haiku-4-5");
    expect(error.message).not.toContain("gpt-5");
  });

  it("reports an unknown provider with the known providers", () => {
    const error = findModel("nope/x")._unsafeUnwrapErr();
    expect(error.message).toBe(`unknown provider "nope"; known: ${listProviders().join(", ")}`);
  });

  it("reports an unknown bare id with every known model", () => {
    const error = findModel("gpt-99")._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "unknown_model", query: "gpt-99" });
    if (error.type === "unknown_model") expect(error.known).toContain("openai/gpt-5");
  });

  it("lists models per provider in catalog order", () => {
    const deepseek = listModels("deepseek").map((m) => m.id);
    expect(deepseek).toEqual(["deepseek-chat", "deepseek-reasoner"]);
    expect(listModels()).toHaveLength(BUILTIN_MODELS.length);
    expect(listModels("nobody")).toEqual([]);
  });

  it("hands out entries nobody can edit in place", () => {
    const model = getModel("openai", "gpt-5")._unsafeUnwrap();
    expect(() => {
      (model.cost as { input: number }).input = 0;
    }).toThrow(TypeError);
    expect(getModel("openai", "gpt-5")._unsafeUnwrap().cost.input).toBe(1.25);
  });
});
