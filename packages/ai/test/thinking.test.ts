// Keel's thinking levels mapped onto each model's accepted set: efforts snap to the nearest one
// the model takes, "off" becomes the model's way of turning thinking off (or its lowest effort).
import { getModel, type Model, resolveThinking } from "@keel/ai";
import { describe, expect, it } from "vitest";
import { claudeModel } from "./helpers.js";

const model = (ref: string): Model => {
  const [provider, ...id] = ref.split("/");
  return getModel(provider!, id.join("/"))._unsafeUnwrap();
};

describe("resolveThinking", () => {
  it("asks for nothing when nothing is requested", () => {
    expect(resolveThinking(model("anthropic/claude-sonnet-5-5"), undefined)).toEqual({
      choice: { kind: "default" },
    });
  });

  it("passes efforts the model takes and snaps others to the nearest (ties to the cheaper)", () => {
    const gpt55 = model("openai/gpt-5.5");
    expect(resolveThinking(gpt55, "xhigh").choice).toEqual({ kind: "on", effort: "xhigh" });
    expect(resolveThinking(gpt55, "max")).toMatchObject({
      choice: { kind: "on", effort: "xhigh" },
      adjusted: "GPT-5.5 does not take effort max; using xhigh.",
    });
    expect(resolveThinking(gpt55, "minimal").choice).toEqual({ kind: "on", effort: "low" });
    const v4 = model("deepseek/deepseek-v4-pro"); // high, max
    expect(resolveThinking(v4, "medium").choice).toEqual({ kind: "on", effort: "high" });
    expect(resolveThinking(v4, "xhigh").choice).toEqual({ kind: "on", effort: "high" });
  });

  it("turns thinking off the model's way", () => {
    expect(resolveThinking(model("openai/gpt-5.5"), "off").choice).toEqual({
      kind: "off",
      via: "effort-none",
    });
    expect(resolveThinking(model("openai/gpt-5.5"), "none").choice).toEqual({
      kind: "off",
      via: "effort-none",
    });
    expect(resolveThinking(model("anthropic/claude-sonnet-5-5"), "off").choice).toEqual({
      kind: "off",
      via: "between_tools",
    });
    expect(resolveThinking(model("anthropic/claude-sonnet-5"), "off").choice).toEqual({
      kind: "off",
      via: "disabled",
    });
    expect(resolveThinking(model("anthropic/claude-sonnet-4-6"), "off").choice).toEqual({
      kind: "off",
      via: "omit",
    });
  });

  it("uses the lowest effort on a model that always thinks, and says so", () => {
    expect(resolveThinking(model("anthropic/claude-opus-5-5"), "off")).toEqual({
      choice: { kind: "on", effort: "low" },
      adjusted: "Claude Opus 5.5 always thinks; using its lowest effort, low.",
    });
    expect(resolveThinking(model("openai/gpt-6.2-astra"), "off").choice).toEqual({
      kind: "on",
      effort: "low",
    });
    expect(resolveThinking(model("moonshot/kimi-k3"), "off")).toMatchObject({
      choice: { kind: "default" },
      adjusted: "Kimi K3 always thinks and has no setting to turn it off.",
    });
  });

  it("switches thinking on without an effort where the model takes none", () => {
    expect(resolveThinking(model("zai/glm-5.3"), "high")).toMatchObject({
      choice: { kind: "on" },
      adjusted: "GLM-5.3 takes no effort level; thinking is on.",
    });
  });

  it("ignores thinking for a model that does not reason", () => {
    expect(resolveThinking(model("openai/gpt-4.1"), "high")).toMatchObject({
      choice: { kind: "default" },
      adjusted: "GPT-4.1 does not reason; thinking high has no effect.",
    });
    expect(resolveThinking(model("openai/gpt-4.1"), "off")).toEqual({ choice: { kind: "default" } });
  });

  it("keeps custom reasoning models on the request shapes Keel always sent them", () => {
    // A Claude model with no spec: manual budgets, minimal included.
    expect(resolveThinking(claudeModel(), "minimal").choice).toEqual({ kind: "on", effort: "minimal" });
  });
});
