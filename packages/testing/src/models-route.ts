// The models route (GET /v1/models) in the two shapes the SDKs read: Anthropic's paginated
// ModelInfo list and OpenAI's {object:"list", data:[Model]} (which compatible servers copy).
import { FIXED_UNIX_SECONDS } from "./dialects/dialect.js";
import type { ScriptedModel } from "./scenario.js";

const CREATED = new Date(FIXED_UNIX_SECONDS * 1000).toISOString();

export function listModels(shape: "anthropic" | "openai", models: readonly ScriptedModel[]): unknown {
  if (shape === "openai") {
    return {
      object: "list",
      data: models.map((m) => ({
        id: m.id,
        object: "model",
        created: FIXED_UNIX_SECONDS,
        owned_by: "keel-mock",
      })),
    };
  }
  const data = models.map((m) => ({
    type: "model",
    id: m.id,
    display_name: m.displayName ?? m.id,
    created_at: CREATED,
    max_input_tokens: m.maxInputTokens ?? null,
    max_tokens: m.maxOutputTokens ?? null,
  }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
