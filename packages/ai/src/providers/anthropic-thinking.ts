// What an Anthropic request says about thinking, per the model's catalog spec: adaptive thinking
// (with the display that returns its text) and an effort, a manual budget, or the model's off.
import type Anthropic from "@anthropic-ai/sdk";
import { resolveThinking, thinkingSpecOf } from "../thinking.js";
import type { Model, ReasoningEffort, StreamOptions, ThinkingSpec } from "../types.js";
import type { RequestOptions } from "./anthropic-request.js";

type Params = Anthropic.MessageCreateParamsStreaming;

/** Thinking budgets per effort (manual extended thinking); at least 1024 and less than max_tokens. */
const THINKING_BUDGET: Partial<Record<ReasoningEffort, number>> = {
  minimal: 1024,
  low: 4096,
  medium: 10_240,
  high: 32_000,
};
const MIN_THINKING_BUDGET = 1024;

/** A request that cannot be built as asked; the adapter reports it as a config error. */
export class AnthropicRequestError extends Error {
  override readonly name = "AnthropicRequestError";
}

/** The beta that lets a request ask for stale preserved-thinking blocks to be dropped. */
export const THINKING_BINDING_BETA = "thinking-binding-controls-2026-08-01";

type ThinkingParams = Pick<Params, "thinking" | "output_config">;

/**
 * Adaptive thinking as Keel always asks for it: summarized, so thinking text (and, on Claude
 * Sonnet 5.5, the notes written between tool calls) comes back instead of empty blocks; and,
 * on models with preserved thinking, with stale blocks dropped instead of failing the request:
 * Keel's one-request reminders and compaction change what came before older blocks.
 */
function adaptive(spec: ThinkingSpec): Params["thinking"] {
  const config = {
    type: "adaptive" as const,
    display: "summarized" as const,
    ...(spec.prefixBound ? { block_binding: { prefix_mismatch_behavior: "drop_block" } } : {}),
  };
  return config as Params["thinking"];
}

export function thinkingParams(
  model: Model,
  requested: StreamOptions["reasoning"],
  maxTokens: number,
): ThinkingParams {
  const spec = thinkingSpecOf(model);
  if (!spec) return {};
  const { choice } = resolveThinking(model, requested);
  if (choice.kind === "default") {
    // Saying nothing runs the model's default; spelling it out also asks for the thinking text.
    return spec.mode === "adaptive" && spec.defaultOn ? { thinking: adaptive(spec) } : {};
  }
  if (choice.kind === "off") {
    if (choice.via === "disabled") return { thinking: { type: "disabled" } };
    if (choice.via === "between_tools") return { thinking: { type: "between_tools" } };
    return {};
  }
  if (spec.mode === "adaptive") {
    return {
      thinking: adaptive(spec),
      ...(choice.effort
        ? { output_config: { effort: choice.effort as "low" | "medium" | "high" | "xhigh" | "max" } }
        : {}),
    };
  }
  const budget = Math.min(
    THINKING_BUDGET[choice.effort ?? "medium"] ?? THINKING_BUDGET.medium!,
    maxTokens - 1,
  );
  if (budget < MIN_THINKING_BUDGET) {
    throw new AnthropicRequestError(
      `maxTokens ${maxTokens} leaves no room for extended thinking (it needs more than ${MIN_THINKING_BUDGET}); ` +
        "raise maxTokens or drop the reasoning option.",
    );
  }
  return { thinking: { type: "enabled", budget_tokens: budget } };
}

/** Headers a request needs for what its body asks (the preserved-thinking binding beta). */
export function requestHeaders(
  params: Params,
  model: Model,
  options: RequestOptions,
): Record<string, string> {
  const binding = (params.thinking as { block_binding?: unknown } | undefined)?.block_binding;
  if (!binding) return {};
  const headers = { ...model.headers, ...options.headers };
  const existing = Object.entries(headers).find(([name]) => name.toLowerCase() === "anthropic-beta")?.[1];
  const betas = existing ? existing.split(",").map((b) => b.trim()) : [];
  if (!betas.includes(THINKING_BINDING_BETA)) betas.push(THINKING_BINDING_BETA);
  return { "anthropic-beta": betas.join(",") };
}
