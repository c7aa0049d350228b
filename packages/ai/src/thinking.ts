// Keel's thinking vocabulary mapped onto one model: the single place where a requested level
// ("off", "low", …, "max") becomes the setting a provider adapter sends for that model.
import type { Model, ReasoningEffort, ThinkingLevel, ThinkingSpec } from "./types.js";

/** Every effort value, weakest first. */
export const REASONING_EFFORTS: readonly ReasoningEffort[] = [
  "none",
  "minimal",
  "low",
  "medium",
  "high",
  "xhigh",
  "max",
];

/** The levels a caller may ask for ("none" is accepted too and means "off"). */
export const THINKING_LEVELS: readonly ThinkingLevel[] = [
  "off",
  "minimal",
  "low",
  "medium",
  "high",
  "xhigh",
  "max",
];

/** What a request says about thinking, in terms an adapter spells for its API. */
export type ThinkingChoice =
  /** Say nothing: the model does what it does by default (`ThinkingSpec.defaultOn`). */
  | { kind: "default" }
  | { kind: "off"; via: NonNullable<ThinkingSpec["off"]> }
  /** Think; `effort` undefined means "on" without an effort (a switch with no levels). */
  | { kind: "on"; effort?: ReasoningEffort };

export interface ThinkingResolution {
  choice: ThinkingChoice;
  /** One line for the user when the request could not be honoured as asked. */
  adjusted?: string;
}

const rank = (effort: ReasoningEffort) => REASONING_EFFORTS.indexOf(effort);

/** The accepted effort nearest to the one asked for; ties go to the cheaper one. */
function nearest(asked: ReasoningEffort, accepted: readonly ReasoningEffort[]): ReasoningEffort {
  let best = accepted[0]!;
  for (const candidate of accepted) {
    const d = Math.abs(rank(candidate) - rank(asked));
    const bestD = Math.abs(rank(best) - rank(asked));
    if (d < bestD || (d === bestD && rank(candidate) < rank(best))) best = candidate;
  }
  return best;
}

/**
 * The thinking spec of a reasoning model the catalog says nothing about (a custom model): the
 * request shapes Keel used before the catalog carried specs, so such models keep working.
 */
export function fallbackThinking(model: Model): ThinkingSpec | undefined {
  if (!model.reasoning) return undefined;
  if (model.api === "anthropic-messages")
    return { mode: "budget", efforts: ["minimal", "low", "medium", "high"], defaultOn: false, off: "omit" };
  if (model.api === "openai-responses")
    return { mode: "effort", efforts: ["minimal", "low", "medium", "high"], defaultOn: true };
  if (model.compat?.supportsReasoningEffort || model.provider === "openai")
    return { mode: "effort", efforts: ["low", "medium", "high"], defaultOn: true };
  return { mode: "toggle", efforts: [], defaultOn: true };
}

export function thinkingSpecOf(model: Model): ThinkingSpec | undefined {
  return model.reasoning ? (model.thinking ?? fallbackThinking(model)) : undefined;
}

/**
 * Maps a requested level onto what `model` accepts. Undefined asks for the model's default.
 * "off" on a model that always thinks becomes its lowest effort; an effort the model does not
 * take becomes the nearest one it does. Either way `adjusted` says so in one line.
 */
export function resolveThinking(model: Model, requested: ThinkingLevel | undefined): ThinkingResolution {
  if (requested === undefined) return { choice: { kind: "default" } };
  const level: ThinkingLevel = requested === "none" ? "off" : requested;
  const spec = thinkingSpecOf(model);
  if (!spec) {
    return level === "off"
      ? { choice: { kind: "default" } }
      : {
          choice: { kind: "default" },
          adjusted: `${model.name} does not reason; thinking ${level} has no effect.`,
        };
  }
  if (level === "off") {
    if (spec.off) return { choice: { kind: "off", via: spec.off } };
    const lowest = spec.efforts[0];
    if (lowest === undefined) {
      return {
        choice: { kind: "default" },
        adjusted: `${model.name} always thinks and has no setting to turn it off.`,
      };
    }
    return {
      choice: { kind: "on", effort: lowest },
      adjusted: `${model.name} always thinks; using its lowest effort, ${lowest}.`,
    };
  }
  if (spec.efforts.length === 0) {
    return {
      choice: { kind: "on" },
      adjusted: `${model.name} takes no effort level; thinking is on.`,
    };
  }
  const effort = nearest(level, spec.efforts);
  return effort === level
    ? { choice: { kind: "on", effort } }
    : {
        choice: { kind: "on", effort },
        adjusted: `${model.name} does not take effort ${level}; using ${effort}.`,
      };
}
