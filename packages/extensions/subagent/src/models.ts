// Which model a child runs on, from what a definition or the model wrote: `provider/id` as is, a
// bare id the catalog knows, or Claude Code's family aliases (sonnet, opus, haiku).
import type { ModelsAccess } from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";

const ALIASES = new Set(["sonnet", "opus", "haiku"]);

export interface ModelChoice {
  /** `provider/id`; absent for the parent's model. */
  model?: string;
  /** Why the parent's model was kept although another was named (for the debug log). */
  note?: string;
}

export interface UnknownModel {
  type: "unknown_model";
  message: string;
}

export function chooseModel(
  ref: string | undefined,
  models: ModelsAccess,
): Result<ModelChoice, UnknownModel> {
  const wanted = ref?.trim();
  if (!wanted || wanted === "inherit") return ok({});
  if (wanted.includes("/")) return ok({ model: wanted });
  if (ALIASES.has(wanted)) {
    // Claude Code's aliases mean the newest Claude of that family; the catalog lists newest first.
    // On another provider's session they cannot mean anything there: the parent's model it is.
    const current = models.current();
    if (current.provider !== "anthropic")
      return ok({
        note: `"${wanted}" names a Claude family; this session runs ${current.provider}, so the child uses the session's model`,
      });
    const newest = models
      .list()
      .find((m) => m.provider === "anthropic" && !m.legacy && m.id.startsWith(`claude-${wanted}-`));
    return newest
      ? ok({ model: `anthropic/${newest.id}` })
      : err({ type: "unknown_model", message: `no current Claude ${wanted} model is in the catalog` });
  }
  const found = models.resolve(wanted);
  if (found) return ok({ model: `${found.provider}/${found.id}` });
  return err({
    type: "unknown_model",
    message: `model "${wanted}" is not one this session knows; write it as provider/id (keel models lists them)`,
  });
}
