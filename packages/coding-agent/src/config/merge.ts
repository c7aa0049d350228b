// The one merge rule for every configuration layering (Keel's own config, the project and
// project-local files, extension configuration): plain objects merge key by key, deeply; any
// other value in a higher layer replaces the lower one — except arrays the caller names as
// accumulating (permission rules, hook lists), which are concatenated.

export type Accumulates = (pointer: string) => boolean;

const never: Accumulates = () => false;

export function mergeLayers(
  lower: unknown,
  upper: unknown,
  accumulates: Accumulates = never,
  pointer = "",
): unknown {
  if (upper === undefined) return structuredClone(lower);
  if (isPlainObject(lower) && isPlainObject(upper)) {
    const out: Record<string, unknown> = structuredClone(lower);
    for (const [key, value] of Object.entries(upper)) {
      out[key] = mergeLayers(out[key], value, accumulates, `${pointer}/${key}`);
    }
    return out;
  }
  if (Array.isArray(lower) && Array.isArray(upper) && accumulates(pointer))
    return [...structuredClone(lower), ...structuredClone(upper)];
  return structuredClone(upper);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
