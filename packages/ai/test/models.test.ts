// The built-in catalog's data, per provider family: every row parses as a model, names its source
// and the day it was checked, defaults point at current models; and lookup by provider/id or bare id.
import {
  BUILTIN_MODELS,
  BUILTIN_PROVIDERS,
  defaultModelFor,
  describeSchemaErrors,
  findModel,
  getModel,
  listModels,
  listProviders,
  modelRef,
  REASONING_EFFORTS,
  smallModelFor,
} from "@keel/ai";
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";

const Price = Type.Number({ minimum: 0 });
const Prices = { input: Price, output: Price, cacheRead: Price, cacheWrite: Price };
const Effort = Type.Union(REASONING_EFFORTS.map((e) => Type.Literal(e)));
const Day = Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" });

/** What a catalog row must look like; closed, so a misspelt field fails here. */
const CatalogRow = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    name: Type.String({ minLength: 1 }),
    api: Type.Union([
      Type.Literal("anthropic-messages"),
      Type.Literal("openai-completions"),
      Type.Literal("openai-responses"),
    ]),
    provider: Type.String({ minLength: 1 }),
    baseUrl: Type.Optional(Type.String({ pattern: "^https://" })),
    apiKeyEnv: Type.String({ pattern: "^[A-Z_]+_API_KEY$" }),
    reasoning: Type.Boolean(),
    thinking: Type.Optional(
      Type.Object(
        {
          mode: Type.Union([
            Type.Literal("adaptive"),
            Type.Literal("budget"),
            Type.Literal("effort"),
            Type.Literal("toggle"),
          ]),
          efforts: Type.Array(Effort),
          defaultEffort: Type.Optional(Effort),
          defaultOn: Type.Boolean(),
          off: Type.Optional(
            Type.Union([
              Type.Literal("omit"),
              Type.Literal("disabled"),
              Type.Literal("between_tools"),
              Type.Literal("effort-none"),
            ]),
          ),
          offMaxEffort: Type.Optional(Effort),
          prefixBound: Type.Optional(Type.Boolean()),
          notesInThinking: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    samplingParams: Type.Optional(Type.Boolean()),
    input: Type.Array(Type.Union([Type.Literal("text"), Type.Literal("image")]), { minItems: 1 }),
    contextWindow: Type.Integer({ minimum: 1 }),
    maxOutput: Type.Integer({ minimum: 1 }),
    cost: Type.Object(
      {
        ...Prices,
        tiers: Type.Optional(
          Type.Array(
            Type.Object(
              { aboveInputTokens: Type.Integer({ minimum: 1 }), ...Prices },
              { additionalProperties: false },
            ),
          ),
        ),
        // Fees per 1,000 server-side tool calls, billed on top of tokens.
        serverTools: Type.Optional(
          Type.Object(
            { webSearch: Type.Optional(Price), webFetch: Type.Optional(Price) },
            { additionalProperties: false },
          ),
        ),
        unknown: Type.Optional(
          Type.Array(
            Type.Union([
              Type.Literal("input"),
              Type.Literal("output"),
              Type.Literal("cacheRead"),
              Type.Literal("cacheWrite"),
            ]),
          ),
        ),
      },
      { additionalProperties: false },
    ),
    tokenizer: Type.Optional(
      Type.Object(
        { family: Type.String({ minLength: 1 }), charsPerToken: Type.Number({ exclusiveMinimum: 0 }) },
        { additionalProperties: false },
      ),
    ),
    legacy: Type.Optional(Type.Literal(true)),
    note: Type.Optional(Type.String({ minLength: 1 })),
    source: Type.Object(
      { url: Type.String({ pattern: "^https://" }), checked: Day },
      { additionalProperties: false },
    ),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    compat: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    serverTools: Type.Optional(
      Type.Array(Type.Union([Type.Literal("web_search"), Type.Literal("web_fetch")]), { uniqueItems: true }),
    ),
  },
  { additionalProperties: false },
);

describe.each(BUILTIN_PROVIDERS.map((p) => [p.id, p] as const))("catalog: %s", (id, provider) => {
  const rows = BUILTIN_MODELS.filter((m) => m.provider === id);

  it("has rows, each of which parses as a catalog model", () => {
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(describeSchemaErrors(CatalogRow, row), modelRef(row)).toEqual([]);
  });

  it("names the day it was checked and its sources", () => {
    expect(provider.checked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(provider.sources.length).toBeGreaterThan(0);
    for (const row of rows.filter((m) => !m.legacy)) {
      expect(row.source, modelRef(row)).toBeDefined();
      expect(row.source?.checked, modelRef(row)).toBe(provider.checked);
    }
  });

  it("keeps limits, tiers and thinking specs consistent", () => {
    for (const row of rows) {
      const ref = modelRef(row);
      expect(row.maxOutput, ref).toBeLessThanOrEqual(row.contextWindow);
      const lines = (row.cost.tiers ?? []).map((t) => t.aboveInputTokens);
      expect(lines, ref).toEqual([...lines].sort((a, b) => a - b));
      for (const tier of row.cost.tiers ?? []) expect(tier.input, ref).toBeGreaterThanOrEqual(row.cost.input);
      // A price marked unknown is 0, never a guess.
      for (const field of row.cost.unknown ?? []) expect(row.cost[field], ref).toBe(0);
      if (row.thinking) {
        expect(row.reasoning, ref).toBe(true);
        const ranks = row.thinking.efforts.map((e) => REASONING_EFFORTS.indexOf(e));
        expect(ranks, ref).toEqual([...ranks].sort((a, b) => a - b));
        expect(row.thinking.efforts, ref).not.toContain("none");
        if (row.thinking.defaultEffort)
          expect(row.thinking.efforts, ref).toContain(row.thinking.defaultEffort);
      }
    }
  });

  it("defaults to a current model of its own, and a small model where it names one", () => {
    const model = defaultModelFor(id);
    expect(model?.id).toBe(provider.defaultModel);
    expect(model?.legacy, provider.defaultModel).toBeUndefined();
    expect(provider.defaultReason.length).toBeGreaterThan(20);
    if (provider.smallModel) expect(smallModelFor(id)?.id).toBe(provider.smallModel);
  });
});

describe("built-in catalog", () => {
  it("has unique provider/id pairs and a provider entry for every row", () => {
    const refs = BUILTIN_MODELS.map(modelRef);
    expect(new Set(refs).size).toBe(refs.length);
    const providers = new Set(BUILTIN_PROVIDERS.map((p) => p.id));
    for (const m of BUILTIN_MODELS) expect(providers.has(m.provider), modelRef(m)).toBe(true);
  });

  it("gives every OpenAI-compatible entry a compat block and a base URL", () => {
    const compatible = BUILTIN_MODELS.filter((m) => m.api === "openai-completions");
    expect(compatible.length).toBeGreaterThan(0);
    for (const m of compatible) {
      expect(m.compat, modelRef(m)).toBeDefined();
      expect(m.baseUrl, modelRef(m)).toMatch(/^https:\/\//);
    }
  });

  it("covers the providers Keel promises, with the lineups the vendors document", () => {
    expect(listProviders()).toEqual([
      "anthropic",
      "openai",
      "deepseek",
      "dashscope",
      "moonshot",
      "zai",
      "openrouter",
    ]);
    // Anthropic's current lineup, all 1M windows and 128K output, with a default effort.
    for (const id of ["claude-fable-5-2", "claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5"]) {
      const m = getModel("anthropic", id)._unsafeUnwrap();
      expect(m).toMatchObject({ contextWindow: 1_000_000, maxOutput: 128_000, samplingParams: false });
      expect(m.thinking?.mode).toBe("adaptive");
      expect(m.thinking?.defaultEffort).toBeDefined();
      expect(m.legacy).toBeUndefined();
    }
    for (const id of ["claude-opus-5", "claude-sonnet-5", "claude-fable-5-1", "claude-sonnet-4-6"])
      expect(getModel("anthropic", id)._unsafeUnwrap().legacy).toBe(true);
    // The Sonnet 5 family's tokenizer: about 30% more tokens than Claude 4.6 for the same text.
    const sonnet55 = getModel("anthropic", "claude-sonnet-5-5")._unsafeUnwrap();
    const sonnet46 = getModel("anthropic", "claude-sonnet-4-6")._unsafeUnwrap();
    const ratio = (sonnet46.tokenizer?.charsPerToken ?? 0) / (sonnet55.tokenizer?.charsPerToken ?? 1);
    expect(ratio).toBeGreaterThan(1.25);
    expect(ratio).toBeLessThan(1.35);
    // GPT-5.5's efforts are none…xhigh ("none" being the way to turn reasoning off).
    expect(getModel("openai", "gpt-5.5")._unsafeUnwrap().thinking).toMatchObject({
      efforts: ["low", "medium", "high", "xhigh"],
      off: "effort-none",
    });
    // A long-context tier: over 272K input, input x2 and output x1.5.
    expect(getModel("openai", "gpt-6.2-sol")._unsafeUnwrap().cost.tiers).toEqual([
      { aboveInputTokens: 272_000, input: 4, output: 15, cacheRead: 0.2, cacheWrite: 5 },
    ]);
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

  it("reports an unknown bare id with every known model, suggesting a near one", () => {
    const error = findModel("gpt-99")._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "unknown_model", query: "gpt-99" });
    if (error.type === "unknown_model") expect(error.known).toContain("openai/gpt-5");
    const typo = findModel("claude-opuss-5-5")._unsafeUnwrapErr();
    expect(typo).toMatchObject({ suggestion: "anthropic/claude-opus-5-5" });
    expect(typo.message).toContain("did you mean anthropic/claude-opus-5-5?");
  });

  it("lists models per provider in catalog order", () => {
    const deepseek = listModels("deepseek").map((m) => m.id);
    expect(deepseek).toEqual([
      "deepseek-v4-pro",
      "deepseek-flash",
      "deepseek-v4-flash",
      "deepseek-chat",
      "deepseek-reasoner",
    ]);
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
