// `--settings` and `--mcp-config`, as `claude -p` takes them: each a file or an inline JSON object,
// read once at start. The values go to the kernel unchanged in meaning: settings as a Claude
// Code-shaped layer for this run, MCP servers as the mcp extension's session layer (the one an
// editor's servers use), `only` with `--strict-mcp-config`.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { err, ok, type Result } from "neverthrow";
import type { UsageError } from "./args.js";

const usage = (message: string): Result<never, UsageError> => err({ type: "usage", message });

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A JSON object given inline (it starts with `{`) or in a file (relative to `base`). */
function jsonObject(
  flag: string,
  value: string,
  base: string,
): Result<{ source: string; value: Record<string, unknown> }, UsageError> {
  const inline = value.trimStart().startsWith("{");
  const source = inline ? flag : resolve(base, value);
  let text = value;
  if (!inline) {
    try {
      text = readFileSync(source, "utf8");
    } catch (e) {
      return usage(`${flag} ${value}: cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)}).`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return usage(`${flag} ${inline ? "(inline JSON)" : value}: not valid JSON (${(e as Error).message}).`);
  }
  if (!isObject(parsed)) return usage(`${flag} ${inline ? "(inline JSON)" : value}: must be a JSON object.`);
  return ok({ source, value: parsed });
}

export function settingsFlag(
  value: string | undefined,
  base: string,
): Result<{ source: string; value: unknown } | undefined, UsageError> {
  return value === undefined ? ok(undefined) : jsonObject("--settings", value, base);
}

/** `--mcp-config …` and `--strict-mcp-config` as the mcp extension's session configuration. */
export function mcpFlags(
  values: readonly string[],
  strict: boolean,
  base: string,
): Result<Record<string, unknown> | undefined, UsageError> {
  if (values.length === 0 && !strict) return ok(undefined);
  const servers: Record<string, unknown> = {};
  for (const value of values) {
    const read = jsonObject("--mcp-config", value, base);
    if (read.isErr()) return err(read.error);
    const declared = read.value.value.mcpServers;
    if (!isObject(declared))
      return usage(
        `--mcp-config ${value.trimStart().startsWith("{") ? "(inline JSON)" : value}: expected {"mcpServers": {"<name>": {…}}}, as in .mcp.json.`,
      );
    // A later config's server replaces an earlier one of the same name.
    Object.assign(servers, declared);
  }
  return ok({ mcp: { servers, ...(strict ? { only: true } : {}) } });
}
