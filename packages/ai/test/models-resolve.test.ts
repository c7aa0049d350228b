// Resolving a model for a run: ids the catalog does not know run on their provider's defaults
// with a warning (limits from the models endpoint where it listed them), typos suggest the known id.
import { builtinModelRegistry, computeCost, createModelRegistry, emptyUsage, getModel } from "@keel/ai";
import { describe, expect, it } from "vitest";

const registry = builtinModelRegistry();

describe("registry.resolve", () => {
  it("returns catalog models as they are, without a warning", () => {
    const resolved = registry.resolve("anthropic/claude-opus-5-5")._unsafeUnwrap();
    expect(resolved.warning).toBeUndefined();
    expect(resolved.model).toBe(registry.get("anthropic", "claude-opus-5-5")._unsafeUnwrap());
  });

  it("accepts an unknown id of a known provider on its transport and safe defaults, with a warning", () => {
    const { model, warning } = registry.resolve("anthropic/claude-sonnet-7")._unsafeUnwrap();
    expect(model).toMatchObject({
      id: "claude-sonnet-7",
      provider: "anthropic",
      api: "anthropic-messages",
      apiKeyEnv: "ANTHROPIC_API_KEY",
      reasoning: false,
      contextWindow: 128_000,
      maxOutput: 16_384,
      cost: { input: 0, output: 0, unknown: ["input", "output", "cacheRead", "cacheWrite"] },
    });
    expect(model.thinking).toBeUndefined();
    expect(warning).toBe(
      "anthropic/claude-sonnet-7 is not in Keel's model catalog; running it with anthropic's defaults " +
        "(128,000-token window, 16,384 output, no thinking settings). Its prices are unknown, so cost shows $0.",
    );
    // OpenAI-compatible providers keep their endpoint and compat.
    const glm = registry.resolve("zai/glm-6")._unsafeUnwrap().model;
    expect(glm).toMatchObject({
      baseUrl: "https://api.z.ai/api/paas/v4",
      compat: { maxTokensField: "max_tokens" },
    });
  });

  it("takes the limits the models endpoint listed", () => {
    const { model, warning } = registry
      .resolve("anthropic/claude-sonnet-7", {
        endpoint: {
          anthropic: [
            { id: "claude-sonnet-7", name: "Claude Sonnet 7", contextWindow: 2_000_000, maxOutput: 256_000 },
          ],
        },
      })
      ._unsafeUnwrap();
    expect(model).toMatchObject({ name: "Claude Sonnet 7", contextWindow: 2_000_000, maxOutput: 256_000 });
    expect(warning).toContain("listed by anthropic's models endpoint but not in Keel's model catalog");
  });

  it("refuses an id one typo from a known one, suggesting it, unless the endpoint lists it", () => {
    const typo = registry.resolve("anthropic/claude-opuss-5-5")._unsafeUnwrapErr();
    expect(typo).toMatchObject({ type: "unknown_model", suggestion: "anthropic/claude-opus-5-5" });
    expect(typo.message).toMatch(
      /^unknown model "claude-opuss-5-5" for provider anthropic; did you mean anthropic\/claude-opus-5-5\?/,
    );
    expect(registry.resolve("openai/gpt-6.2-astr")._unsafeUnwrapErr()).toMatchObject({
      suggestion: "openai/gpt-6.2-astra",
    });
    const listed = registry.resolve("anthropic/claude-opuss-5-5", {
      endpoint: { anthropic: [{ id: "claude-opuss-5-5" }] },
    });
    expect(listed._unsafeUnwrap().model.id).toBe("claude-opuss-5-5");
  });

  it("still refuses unknown providers and ambiguous bare ids", () => {
    expect(registry.resolve("nope/x")._unsafeUnwrapErr().message).toContain('unknown provider "nope"');
    const custom = createModelRegistry({
      providers: {
        local: { api: "openai-completions", baseUrl: "http://127.0.0.1:1/v1", models: [{ id: "shared" }] },
        other: { api: "openai-completions", models: [{ id: "shared" }] },
      },
    })._unsafeUnwrap();
    expect(custom.resolve("shared")._unsafeUnwrapErr().type).toBe("ambiguous_model");
    // A custom provider's unknown ids run on its first model's endpoint.
    expect(custom.resolve("local/qwen3:8b")._unsafeUnwrap().model).toMatchObject({
      baseUrl: "http://127.0.0.1:1/v1",
      api: "openai-completions",
    });
  });
});

describe("long-context price tiers", () => {
  const usage = (input: number, cacheRead = 0) => ({ ...emptyUsage(), input, cacheRead, output: 1_000_000 });

  it("bills the whole request at the tier its prompt passes", () => {
    const price = getModel("openai", "gpt-6.2-sol")._unsafeUnwrap().cost;
    // 200K prompt: base rates ($2 in, $10 out).
    expect(computeCost(price, usage(200_000)).total).toBeCloseTo(0.4 + 10, 10);
    // 300K prompt (cache reads count towards the line): input and cache x2, output x1.5.
    const long = computeCost(price, usage(100_000, 200_000));
    expect(long.input).toBeCloseTo(0.4, 10);
    expect(long.cacheRead).toBeCloseTo(0.04, 10);
    expect(long.output).toBeCloseTo(15, 10);
  });

  it("uses the base rates for models without tiers", () => {
    const price = getModel("anthropic", "claude-opus-5-5")._unsafeUnwrap().cost;
    expect(computeCost(price, usage(900_000)).total).toBeCloseTo(3.6 + 20, 10);
  });
});
