// The session's thinking level: what the user asked for (or the default for the model), what the
// model gets for it per the catalog (`resolveThinking`), the levels the model takes as they are
// asked, and the words for a status line.
import { type Model, resolveThinking, THINKING_LEVELS, type ThinkingLevel, thinkingSpecOf } from "@keel/ai";

export interface ThinkingState {
  /** What was asked for; undefined: the default for the model. */
  level: ThinkingLevel | undefined;
  /** What the model gets: an effort, "on" (a switch without levels), "off", or "none" (it does not reason). */
  effort: string;
  /**
   * Set when the model cannot take the level the user chose as it is (the nearest it takes is
   * used): what was used instead. Never for the default, which is the model's own.
   */
  note?: string;
  /** The levels this model takes as asked, weakest first (what a picker offers beside the default). */
  levels: ThinkingLevel[];
}

/**
 * The level sent when the user chose none. A model that thinks by default keeps its vendor's
 * default; a catalog model that reasons only when asked (Claude 4.x, Qwen's switch) is asked for
 * medium effort, as Claude Code and Codex think by default. Models the catalog has no thinking
 * facts for (custom ones) keep their provider's default.
 */
export function defaultThinking(model: Model): ThinkingLevel | undefined {
  const spec = model.reasoning ? model.thinking : undefined;
  if (!spec || spec.defaultOn) return undefined;
  return "medium";
}

/** The level each request carries (`StreamOptions.reasoning`). */
export function requestedThinking(model: Model, level: ThinkingLevel | undefined): ThinkingLevel | undefined {
  return level ?? defaultThinking(model);
}

/** The levels `model` takes without remapping (`resolveThinking` adjusts none of them), weakest first. */
export function acceptedThinkingLevels(model: Model): ThinkingLevel[] {
  if (!thinkingSpecOf(model)) return [];
  return THINKING_LEVELS.filter((level) => resolveThinking(model, level).adjusted === undefined);
}

export function thinkingState(model: Model, level: ThinkingLevel | undefined): ThinkingState {
  const spec = thinkingSpecOf(model);
  const levels = acceptedThinkingLevels(model);
  if (!spec)
    return {
      level,
      effort: "none",
      levels,
      ...(level && level !== "off" ? { note: `${model.name} does not reason.` } : {}),
    };
  const resolved = resolveThinking(model, requestedThinking(model, level));
  const { choice } = resolved;
  const effort =
    choice.kind === "off"
      ? "off"
      : choice.kind === "on"
        ? (choice.effort ?? "on")
        : spec.defaultOn
          ? (spec.defaultEffort ?? "on")
          : "off";
  // The default a model is asked for (medium for one that thinks only when asked) is Keel's choice,
  // not the user's: a model that takes no such effort gets what it has, with nothing to note.
  return {
    level,
    effort,
    levels,
    ...(level !== undefined && resolved.adjusted ? { note: resolved.adjusted } : {}),
  };
}

/** The one line to show when the level the user chose is remapped for `state`'s model, or undefined. */
export function remapNote(state: ThinkingState): string | undefined {
  return state.level !== undefined && state.note ? `Thinking ${state.level}: ${state.note}` : undefined;
}

/** A level as the user typed it ("none" is "off"), or undefined when it is not one. */
export function parseThinkingLevel(text: string): ThinkingLevel | undefined {
  const t = text.trim().toLowerCase();
  return (THINKING_LEVELS as readonly string[]).includes(t)
    ? (t as ThinkingLevel)
    : t === "none"
      ? "off"
      : undefined;
}
