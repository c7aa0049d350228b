// `${VAR}` and `${VAR:-default}` in server configs, as Claude Code's .mcp.json writes them. An
// unset variable without a default expands to "" and is reported, never silently dropped.

const PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export interface Expansion {
  value: string;
  /** Variables that were unset and had no default. */
  unset: string[];
}

export function expandString(text: string, env: Readonly<Record<string, string | undefined>>): Expansion {
  const unset: string[] = [];
  const value = text.replace(PATTERN, (_match, name: string, fallback: string | undefined) => {
    const found = env[name];
    // `${VAR:-x}` follows the shell: an empty variable takes the default too.
    if (found !== undefined && !(fallback !== undefined && found === "")) return found;
    if (fallback !== undefined) return fallback;
    unset.push(name);
    return "";
  });
  return { value, unset };
}

/** Expands every string of a record's values; `unset` collects what was missing. */
export function expandRecord(
  record: Record<string, string> | undefined,
  env: Readonly<Record<string, string | undefined>>,
  unset: Set<string>,
): Record<string, string> | undefined {
  if (record === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [key, raw] of Object.entries(record)) {
    const expanded = expandString(raw, env);
    for (const name of expanded.unset) unset.add(name);
    out[key] = expanded.value;
  }
  return out;
}

export function expandList(
  list: string[] | undefined,
  env: Readonly<Record<string, string | undefined>>,
  unset: Set<string>,
): string[] | undefined {
  return list?.map((item) => {
    const expanded = expandString(item, env);
    for (const name of expanded.unset) unset.add(name);
    return expanded.value;
  });
}
