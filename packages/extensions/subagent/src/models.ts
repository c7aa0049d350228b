// Which model a child runs on, from what a definition or the model wrote: `provider/id` as is, a
// bare id the catalog knows, or Claude Code's family aliases (sonnet, opus, haiku).
import type { ModelsAccess } from "@keel/extension-sdk";

const ALIASES = new Set(["sonnet", "opus", "haiku"]);

export type ModelChoice =
  /** The parent's model. */
  | { ok: true; model?: undefined; note?: string }
  | { ok: true; model: string; note?: string }
  | { ok: false; message: string };

export function chooseModel(ref: string | undefined, models: ModelsAccess): ModelChoice {
  const wanted = ref?.trim();
  if (!wanted || wanted === "inherit") return { ok: true };
  if (wanted.includes("/")) return { ok: true, model: wanted };
  if (ALIASES.has(wanted)) {
    // Claude Code's aliases mean the newest Claude of that family; the catalog lists newest first.
    // On another provider's session they cannot mean anything there: the parent's model it is.
    const current = models.current();
    if (current.provider !== "anthropic")
      return {
        ok: true,
        note: `"${wanted}" names a Claude family; this session runs ${current.provider}, so the child uses the session's model`,
      };
    const newest = models
      .list()
      .find((m) => m.provider === "anthropic" && !m.legacy && m.id.startsWith(`claude-${wanted}-`));
    return newest
      ? { ok: true, model: `anthropic/${newest.id}` }
      : { ok: false, message: `no current Claude ${wanted} model is in the catalog` };
  }
  const found = models.resolve(wanted);
  if (found) return { ok: true, model: `${found.provider}/${found.id}` };
  return {
    ok: false,
    message: `model "${wanted}" is not one this session knows; write it as provider/id (keel models lists them)`,
  };
}
