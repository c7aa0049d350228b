// Tool arguments as they stream: parsed leniently while they grow (the partial keeps its last
// good value), exactly when they end (damage is reported, never guessed around).
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

export function parseFinalArguments(
  raw: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  if (raw.trim() === "") return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(raw);
    if (!isRecord(value)) return { ok: false, message: "arguments must be a JSON object" };
    return { ok: true, value };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
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
