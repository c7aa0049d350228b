// Checks a scenario that arrives as JSON (the bin, the control route) before the engine runs
// it, so a typo is reported once with its location instead of failing a later request.
import type { Scenario } from "./scenario.js";

/** The SDK's one failure shape (this package has no neverthrow): `{ ok: false, error: { type, message } }`. */
export type ScenarioCheck =
  | { ok: true; scenario: Scenario }
  | { ok: false; error: { type: "invalid_scenario"; message: string } };

function turnProblem(turn: unknown, where: string): string | undefined {
  if (typeof turn !== "object" || turn === null || Array.isArray(turn)) return `${where} must be an object`;
  const kind = (turn as { kind?: unknown }).kind;
  if (kind === "error") {
    const status = (turn as { status?: unknown }).status;
    if (typeof status !== "number" || status < 100 || status > 599) {
      return `${where} is an error turn and needs a numeric "status" between 100 and 599`;
    }
    return undefined;
  }
  if (kind === undefined || kind === "reply")
    return toolCallsProblem(turn, where) ?? endlessProblem(turn, where);
  if (kind === "context_overflow") return undefined;
  return `${where} has unknown kind ${JSON.stringify(kind)} (expected "reply", "error" or "context_overflow")`;
}

function toolCallsProblem(turn: object, where: string): string | undefined {
  const calls = (turn as { toolCalls?: unknown }).toolCalls;
  if (calls === undefined) return undefined;
  if (!Array.isArray(calls)) return `${where}.toolCalls must be an array`;
  for (const [i, call] of calls.entries()) {
    const { name, arguments: args } = (call ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof name !== "string") return `${where}.toolCalls[${i}] needs a string "name"`;
    if (typeof args !== "string" && (typeof args !== "object" || args === null || Array.isArray(args))) {
      return `${where}.toolCalls[${i}] needs "arguments": an object, or a string sent verbatim`;
    }
  }
  return undefined;
}

function endlessProblem(turn: object, where: string): string | undefined {
  const { endless, text } = turn as { endless?: unknown; text?: unknown };
  if (endless === undefined || endless === false) return undefined;
  if (endless !== true) return `${where}.endless must be true or false`;
  if (typeof text !== "string" || text === "")
    return `${where} is endless and needs a non-empty "text" to repeat`;
  return undefined;
}

export function checkScenario(value: unknown): ScenarioCheck {
  const problem = scenarioProblem(value);
  if (problem !== undefined) return { ok: false, error: { type: "invalid_scenario", message: problem } };
  return { ok: true, scenario: value as Scenario };
}

/** The first problem found, worded with its place (`turns[1].toolCalls[0] needs …`). */

function scenarioProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return 'a scenario must be a JSON object like {"turns":[{"text":"hi"}]}';
  }
  const { turns, fallback, models } = value as { turns?: unknown; fallback?: unknown; models?: unknown };
  if (!Array.isArray(turns)) return 'a scenario needs a "turns" array';
  if (models !== undefined) {
    if (!Array.isArray(models)) return '"models" must be an array like [{"id":"m"}]';
    for (const [i, m] of models.entries()) {
      if (typeof (m as { id?: unknown } | null)?.id !== "string") return `models[${i}] needs a string "id"`;
    }
  }
  for (const [i, turn] of turns.entries()) {
    const problem = turnProblem(turn, `turns[${i}]`);
    if (problem) return problem;
  }
  if (fallback !== undefined) {
    const problem = turnProblem(fallback, "fallback");
    if (problem) return problem;
  }
  return undefined;
}
