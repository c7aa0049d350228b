// Custom models and endpoints from config merged over the catalog, and the errors bad config gets.
import { BUILTIN_MODELS, CUSTOM_COMPAT_DEFAULTS, CUSTOM_MODEL_DEFAULTS, createModelRegistry } from "@keel/ai";
import { describe, expect, it } from "vitest";

describe("createModelRegistry", () => {
  it("without config is the built-in catalog", () => {
    const registry = createModelRegistry()._unsafeUnwrap();
    expect(registry.list()).toHaveLength(BUILTIN_MODELS.length);
    expect(registry.find("claude-haiku-4-5")._unsafeUnwrap().provider).toBe("anthropic");
  });

  it("adds a new provider, filling the documented defaults", () => {
    const registry = createModelRegistry({
      providers: {
        ollama: {
          api: "openai-completions",
          baseUrl: "http://127.0.0.1:11434/v1",
          models: [{ id: "qwen3-coder:30b", contextWindow: 65_536, reasoning: true }, { id: "llama3.2" }],
        },
      },
    })._unsafeUnwrap();
    expect(registry.providers()).toContain("ollama");
    expect(registry.get("ollama", "qwen3-coder:30b")._unsafeUnwrap()).toEqual({
      id: "qwen3-coder:30b",
      name: "qwen3-coder:30b",
      api: "openai-completions",
      provider: "ollama",
      baseUrl: "http://127.0.0.1:11434/v1",
      reasoning: true,
      input: ["text"],
      contextWindow: 65_536,
      maxOutput: CUSTOM_MODEL_DEFAULTS.maxOutput,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      compat: CUSTOM_COMPAT_DEFAULTS,
    });
    const small = registry.find("ollama/llama3.2")._unsafeUnwrap();
    expect(small.contextWindow).toBe(CUSTOM_MODEL_DEFAULTS.contextWindow);
    expect(small.apiKeyEnv).toBeUndefined();
    expect(registry.list()).toHaveLength(BUILTIN_MODELS.length + 2);
  });

  it("keeps a company proxy's key variable, headers and compat", () => {
    const registry = createModelRegistry({
      providers: {
        corp: {
          api: "openai-completions",
          baseUrl: "https://llm.corp.example/v1",
          apiKeyEnv: "CORP_LLM_KEY",
          headers: { "X-Team": "infra" },
          compat: { supportsDeveloperRole: true, reasoningField: "reasoning" },
          models: [{ id: "big", name: "Big", maxOutput: 8_000, cost: { input: 1, output: 2 } }],
        },
      },
    })._unsafeUnwrap();
    const model = registry.get("corp", "big")._unsafeUnwrap();
    expect(model).toMatchObject({
      name: "Big",
      apiKeyEnv: "CORP_LLM_KEY",
      headers: { "X-Team": "infra" },
      maxOutput: 8_000,
      cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
    });
    expect(model.compat).toEqual({
      ...CUSTOM_COMPAT_DEFAULTS,
      supportsDeveloperRole: true,
      reasoningField: "reasoning",
    });
  });

  it("overrides a built-in model field by field", () => {
    const registry = createModelRegistry({
      providers: { deepseek: { models: [{ id: "deepseek-chat", cost: { input: 0.1 } }] } },
    })._unsafeUnwrap();
    const builtin = BUILTIN_MODELS.find((m) => m.provider === "deepseek" && m.id === "deepseek-chat");
    const model = registry.get("deepseek", "deepseek-chat")._unsafeUnwrap();
    expect(model).toEqual({ ...builtin, cost: { ...builtin?.cost, input: 0.1 } });
    expect(registry.list("deepseek")).toHaveLength(
      BUILTIN_MODELS.filter((m) => m.provider === "deepseek").length,
    );
  });

  it("routes a built-in provider through a proxy and adds models that inherit its endpoint", () => {
    const registry = createModelRegistry({
      providers: {
        anthropic: {
          baseUrl: "https://proxy.corp.example/anthropic",
          headers: { "X-Proxy": "1" },
          models: [{ id: "claude-next", contextWindow: 300_000, input: ["text", "image"] }],
        },
      },
    })._unsafeUnwrap();
    for (const m of registry.list("anthropic")) {
      expect(m.baseUrl).toBe("https://proxy.corp.example/anthropic");
      expect(m.headers).toEqual({ "X-Proxy": "1" });
      expect(m.api).toBe("anthropic-messages");
      expect(m.apiKeyEnv).toBe("ANTHROPIC_API_KEY");
    }
    expect(registry.get("anthropic", "claude-next")._unsafeUnwrap()).toMatchObject({
      contextWindow: 300_000,
      maxOutput: CUSTOM_MODEL_DEFAULTS.maxOutput,
      input: ["text", "image"],
    });
    // The built-in registry is untouched.
    expect(
      createModelRegistry()._unsafeUnwrap().get("anthropic", "claude-haiku-4-5")._unsafeUnwrap().baseUrl,
    ).toBe(undefined);
  });

  it("shrinks an overridden model's maxOutput with a smaller window", () => {
    const registry = createModelRegistry({
      providers: { anthropic: { models: [{ id: "claude-opus-4-6", contextWindow: 100_000 }] } },
    })._unsafeUnwrap();
    expect(registry.get("anthropic", "claude-opus-4-6")._unsafeUnwrap()).toMatchObject({
      contextWindow: 100_000,
      maxOutput: 100_000,
    });
  });

  describe("invalid config", () => {
    it("names the field path of a wrong type", () => {
      const error = createModelRegistry({
        providers: { ollama: { api: "openai-completions", models: [{ id: "x", contextWindow: "big" }] } },
      })._unsafeUnwrapErr();
      expect(error.type).toBe("config");
      expect(error.issues).toEqual([
        { path: "/providers/ollama/models/0/contextWindow", message: 'must be an integer (got "big")' },
      ]);
      expect(error.message).toContain(
        '/providers/ollama/models/0/contextWindow must be an integer (got "big")',
      );
      expect(JSON.parse(JSON.stringify(error))).toEqual(error);
    });

    it("names a misspelt field and the allowed ones", () => {
      const error = createModelRegistry({
        providers: { ollama: { api: "openai-completions", baseURL: "http://x", models: [{ id: "x" }] } },
      })._unsafeUnwrapErr();
      expect(error.issues[0]).toEqual({
        path: "/providers/ollama/baseURL",
        message: "is not an allowed property; allowed: api, baseUrl, apiKeyEnv, headers, compat, models",
      });
    });

    it("rejects an unknown api with the accepted values", () => {
      const error = createModelRegistry({
        providers: { x: { api: "gemini", models: [{ id: "m" }] } },
      })._unsafeUnwrapErr();
      expect(error.issues).toEqual([
        {
          path: "/providers/x/api",
          message:
            'must be one of "anthropic-messages","openai-completions","openai-responses" (got "gemini")',
        },
      ]);
    });

    it("requires api and models for a provider that is not built in", () => {
      const error = createModelRegistry({ providers: { lmstudio: { baseUrl: "http://127.0.0.1:1234/v1" } } });
      expect(error._unsafeUnwrapErr().issues.map((i) => i.path)).toEqual([
        "/providers/lmstudio/api",
        "/providers/lmstudio/models",
      ]);
    });

    it("rejects duplicate ids, negative prices and maxOutput above the window", () => {
      const error = createModelRegistry({
        providers: {
          vllm: {
            api: "openai-completions",
            baseUrl: "http://127.0.0.1:8000/v1",
            models: [{ id: "m", contextWindow: 4_096, maxOutput: 8_192 }, { id: "m" }],
          },
        },
      })._unsafeUnwrapErr();
      expect(error.issues).toEqual([
        {
          path: "/providers/vllm/models/0/maxOutput",
          message: "must be <= the context window (4096) (got 8192)",
        },
        { path: "/providers/vllm/models/1/id", message: 'duplicates "m"' },
      ]);
      const price = createModelRegistry({
        providers: { deepseek: { models: [{ id: "deepseek-chat", cost: { output: -1 } }] } },
      })._unsafeUnwrapErr();
      expect(price.issues).toEqual([
        { path: "/providers/deepseek/models/0/cost/output", message: "must be >= 0 (got -1)" },
      ]);
    });

    it("rejects a section that is not an object", () => {
      expect(createModelRegistry("ollama")._unsafeUnwrapErr().message).toContain(
        '(models section) must be an object (got "ollama")',
      );
    });
  });

  it("makes ambiguous bare ids an error that lists the candidates", () => {
    const registry = createModelRegistry({
      providers: {
        mirror: { api: "openai-completions", baseUrl: "http://127.0.0.1:9/v1", models: [{ id: "o3" }] },
      },
    })._unsafeUnwrap();
    const error = registry.find("o3")._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "ambiguous_model", candidates: ["openai/o3", "mirror/o3"] });
    expect(registry.find("mirror/o3")._unsafeUnwrap().provider).toBe("mirror");
  });
});
