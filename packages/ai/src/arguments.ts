// Tool arguments as they stream: parsed leniently while they grow (the partial keeps its last
// good value), exactly when they end (damage is reported, never guessed around).
import { err, ok, type Result } from "neverthrow";
import { parse as parsePartialJson } from "partial-json";

/**
 * The arguments so far, or undefined when the prefix is not (yet) a JSON object: the partial
 * then keeps its last good arguments, and the final parse reports real damage.
 */
export function parseStreamingArguments(raw: string): Record<string, unknown> | undefined {
  if (raw.trim() === "") return {};
  try {
    const value: unknown = parsePartialJson(raw);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export interface ArgumentsError {
  type: "invalid_arguments";
  message: string;
}

/** The finished arguments, or why they are not a JSON object. */
export function parseFinalArguments(raw: string): Result<Record<string, unknown>, ArgumentsError> {
  if (raw.trim() === "") return ok({});
  const invalid = (message: string) => err<never, ArgumentsError>({ type: "invalid_arguments", message });
  try {
    const value: unknown = JSON.parse(raw);
    return isRecord(value) ? ok(value) : invalid("arguments must be a JSON object");
  } catch (e) {
    return invalid(e instanceof Error ? e.message : String(e));
  }
}

/** How damaged arguments began, short enough for an error result. */
export function excerpt(raw: string): string {
  const EXCERPT = 200;
  return raw.length <= EXCERPT ? raw : `${raw.slice(0, EXCERPT)}… (${raw.length} characters)`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
