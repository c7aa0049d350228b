// How server entries from several files combine: user < project `.mcp.json` < project
// `.keel/config.json`, a later file replacing a same-named server whole (fields are never mixed,
// so a project entry can never borrow a user entry's headers or env for its own URL).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Static } from "@keel/extension-sdk";
import { Value } from "@sinclair/typebox/value";
import { err, ok, type Result } from "neverthrow";
import { type McpConfig, McpJsonSchema, type McpLayerSchema, type ServerScope } from "./schema.js";
import { type ConfigProblem, type ParsedServer, parseServer } from "./servers.js";

export type ResolvedMcpConfig = McpConfig;

/**
 * The host's `resolve` hook: per-server replacement, `disabled` added up, policy keys from the user
 * only. The session layer (servers an editor names for this session) is the user's word, last.
 */
export function resolveLayers(layers: {
  user: Partial<Static<typeof McpLayerSchema>> | undefined;
  project: Partial<Static<typeof McpLayerSchema>> | undefined;
  session?: Partial<Static<typeof McpLayerSchema>> | undefined;
}): ResolvedMcpConfig {
  const servers: Record<string, unknown> = {};
  const serverScopes: Record<string, ServerScope> = {};
  // `only` counts in the session layer alone: a file cannot hide the user's other servers.
  const only = layers.session?.only === true;
  for (const [scope, layer] of [
    ["user", only ? undefined : layers.user],
    ["project", only ? undefined : layers.project],
    ["user", layers.session],
  ] as const) {
    for (const [name, entry] of Object.entries(layer?.servers ?? {})) {
      servers[name] = entry;
      serverScopes[name] = scope;
    }
  }
  const sessionServers = Object.keys(layers.session?.servers ?? {});
  const disabled = [...new Set([...(layers.user?.disabled ?? []), ...(layers.project?.disabled ?? [])])];
  const maxResultChars = layers.project?.maxResultChars ?? layers.user?.maxResultChars;
  return {
    servers,
    serverScopes,
    ...(disabled.length > 0 ? { disabled } : {}),
    // A project cannot decide how far its own servers are trusted.
    ...(layers.user?.projectReadOnlyHints ? { projectReadOnlyHints: layers.user.projectReadOnlyHints } : {}),
    ...(maxResultChars !== undefined ? { maxResultChars } : {}),
    ...(sessionServers.length > 0 ? { sessionServers } : {}),
    ...(only ? { only } : {}),
  };
}

export interface McpJsonFile {
  path: string;
  servers: Record<string, unknown>;
}

export interface FileProblem {
  type: "invalid_file";
  path: string;
  message: string;
}

function checkMcpJson(
  json: unknown,
): { valid: true; data: { mcpServers?: Record<string, unknown> } } | { valid: false; errorMessage: string } {
  if (Value.Check(McpJsonSchema, json))
    return { valid: true, data: json as { mcpServers?: Record<string, unknown> } };
  const first = [...Value.Errors(McpJsonSchema, json)][0];
  return { valid: false, errorMessage: `${first?.path || "the file"} ${first?.message ?? "is invalid"}` };
}

/**
 * Reads a project's `.mcp.json` (Claude Code's format, unchanged). Call only for a trusted
 * project. A missing file is no servers; a broken one is a problem, never an empty success.
 */
export function readMcpJson(projectRoot: string): Result<McpJsonFile | undefined, FileProblem> {
  const path = join(projectRoot, ".mcp.json");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return ok(undefined);
    return err({ type: "invalid_file", path, message: `${path}: cannot read: ${(error as Error).message}` });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return err({
      type: "invalid_file",
      path,
      message: `${path}: not valid JSON: ${(error as Error).message}`,
    });
  }
  const checked = checkMcpJson(json);
  if (!checked.valid) return err({ type: "invalid_file", path, message: `${path}: ${checked.errorMessage}` });
  return ok({ path, servers: checked.data.mcpServers ?? {} });
}

export interface CollectContext {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  projectRoot: string;
  /** Shown in messages for servers from the user's file / the project's Keel file. */
  userOrigin: string;
  projectOrigin: string;
  /** Shown for servers the host named for this session (an editor over ACP). */
  sessionOrigin?: string;
}

export interface CollectedServers {
  servers: ParsedServer[];
  problems: ConfigProblem[];
}

/** Every configured server, resolved, in a stable order (by name). */
export function collectServers(
  config: ResolvedMcpConfig,
  mcpJson: McpJsonFile | undefined,
  context: CollectContext,
): CollectedServers {
  const chosen = new Map<string, { raw: unknown; scope: ServerScope; origin: string }>();
  const fromSession = new Set(config.sessionServers ?? []);
  for (const [name, raw] of Object.entries(config.servers ?? {})) {
    const scope = config.serverScopes?.[name] ?? "user";
    const origin = fromSession.has(name)
      ? (context.sessionOrigin ?? "this session's host")
      : scope === "user"
        ? context.userOrigin
        : context.projectOrigin;
    chosen.set(name, { raw, scope, origin });
  }
  for (const [name, raw] of Object.entries(config.only ? {} : (mcpJson?.servers ?? {}))) {
    // `.keel/config.json` is the project's Keel-specific word; it wins over `.mcp.json`, and the
    // servers the user's host named for this session win over both.
    if (chosen.get(name)?.scope === "project" || fromSession.has(name)) continue;
    chosen.set(name, { raw, scope: "project", origin: mcpJson!.path });
  }
  const disabled = new Set(config.disabled ?? []);
  const servers: ParsedServer[] = [];
  const problems: ConfigProblem[] = [];
  for (const name of [...chosen.keys()].sort()) {
    const { raw, scope, origin } = chosen.get(name)!;
    const parsed = parseServer(name, raw, {
      scope,
      origin,
      env: context.env,
      baseDir: scope === "project" ? context.projectRoot : context.cwd,
      ...(config.projectReadOnlyHints ? { projectReadOnlyHints: config.projectReadOnlyHints } : {}),
    });
    if (parsed.isErr()) {
      problems.push(parsed.error);
      continue;
    }
    if (disabled.has(name)) parsed.value.spec.enabled = false;
    servers.push(parsed.value);
  }
  return { servers, problems };
}
