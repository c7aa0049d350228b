// Turns config entries into resolved server specs: the transport picked, `${VAR}` expanded,
// defaults applied, and a clear problem for an entry that cannot work (nothing half-resolved).
import { isAbsolute, resolve } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { err, ok, type Result } from "neverthrow";
import { expandList, expandRecord, expandString } from "./expand.js";
import { type ServerEntry, ServerEntrySchema, type ServerScope } from "./schema.js";

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
export const DEFAULT_SAMPLING_MAX_TOKENS = 1024;
export const DEFAULT_SAMPLING_MAX_REQUESTS = 20;

export interface SamplingPolicy {
  enabled: boolean;
  maxTokens: number;
  maxRequests: number;
  model?: string;
}

/** Cross-app access: the organisation's identity provider and the user's ID token from it. */
export interface IdentityProviderSettings {
  issuer?: string;
  tokenEndpoint?: string;
  clientId?: string;
  clientSecret?: string;
  idToken?: string;
  idTokenFile?: string;
}

export interface OAuthSettings {
  grant?: "authorization_code" | "client_credentials" | "cross_app_access";
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  callbackPort?: number;
  clientMetadataUrl?: string;
  privateKeyFile?: string;
  signingAlgorithm?: string;
  idp?: IdentityProviderSettings;
}

interface SpecBase {
  name: string;
  scope: ServerScope;
  /** The file the entry came from, for messages. */
  origin: string;
  enabled: boolean;
  /** A call may go this long without a response or a progress notification. */
  timeoutMs: number;
  startupTimeoutMs: number;
  tools: { allow?: string[]; deny?: string[] };
  /** "trust": a tool's readOnlyHint may lift the permission ask; "ignore": every tool asks. */
  readOnlyHints: "trust" | "ignore";
  sampling: SamplingPolicy;
}

export interface StdioServerSpec extends SpecBase {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export interface HttpServerSpec extends SpecBase {
  /** "http": Streamable HTTP, falling back to legacy SSE on a 4xx handshake; "sse": SSE only. */
  transport: "http" | "sse";
  url: string;
  headers: Record<string, string>;
  /** false: never run OAuth for this server (e.g. it takes a static Authorization header). */
  oauth: OAuthSettings | false;
}

export type ServerSpec = StdioServerSpec | HttpServerSpec;

export interface ConfigProblem {
  type: "invalid_server";
  server: string;
  origin: string;
  message: string;
}

export interface ParseContext {
  scope: ServerScope;
  origin: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Relative `cwd` entries resolve against this (the project root, or the session's cwd). */
  baseDir: string;
  /** What the user's config says about readOnlyHint from project servers (default "ignore"). */
  projectReadOnlyHints?: "trust" | "ignore";
}

export interface ParsedServer {
  spec: ServerSpec;
  /** Said once to the user: unset variables and the like. */
  warnings: string[];
}

/** The entry checked against its schema; the first problem, said with its path. */
function checkEntry(
  raw: unknown,
): { valid: true; data: ServerEntry } | { valid: false; errorMessage: string } {
  if (Value.Check(ServerEntrySchema, raw)) return { valid: true, data: raw };
  const first = [...Value.Errors(ServerEntrySchema, raw)][0];
  return { valid: false, errorMessage: `${first?.path || "the entry"} ${first?.message ?? "is invalid"}` };
}

function problem(name: string, origin: string, message: string): ConfigProblem {
  return { type: "invalid_server", server: name, origin, message: `${origin}: server "${name}": ${message}` };
}

function readOnlyPolicy(entry: ServerEntry, context: ParseContext): "trust" | "ignore" {
  if (context.scope === "user") return entry.readOnlyHints ?? "trust";
  // A project may tighten its own servers but never loosen them: only the user's config can.
  if (entry.readOnlyHints === "ignore") return "ignore";
  return context.projectReadOnlyHints ?? "ignore";
}

function hasAuthorizationHeader(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === "authorization");
}

export function parseServer(
  name: string,
  raw: unknown,
  context: ParseContext,
): Result<ParsedServer, ConfigProblem> {
  const checked = checkEntry(raw);
  if (!checked.valid) return err(problem(name, context.origin, checked.errorMessage));
  const entry = checked.data;
  const unset = new Set<string>();
  const type = entry.type === "streamable-http" ? "http" : (entry.type ?? (entry.url ? "http" : "stdio"));
  const base = {
    name,
    scope: context.scope,
    origin: context.origin,
    enabled: entry.enabled ?? true,
    timeoutMs: entry.timeout ?? DEFAULT_TIMEOUT_MS,
    startupTimeoutMs: entry.startupTimeout ?? DEFAULT_STARTUP_TIMEOUT_MS,
    tools: {
      ...(entry.tools?.allow ? { allow: entry.tools.allow } : {}),
      ...(entry.tools?.deny ? { deny: entry.tools.deny } : {}),
    },
    readOnlyHints: readOnlyPolicy(entry, context),
    sampling: {
      enabled: entry.sampling?.enabled ?? false,
      maxTokens: entry.sampling?.maxTokens ?? DEFAULT_SAMPLING_MAX_TOKENS,
      maxRequests: entry.sampling?.maxRequests ?? DEFAULT_SAMPLING_MAX_REQUESTS,
      ...(entry.sampling?.model ? { model: entry.sampling.model } : {}),
    },
  };
  const warnings = () =>
    [...unset].map(
      (variable) =>
        `${context.origin}: server "${name}" uses \${${variable}}, which is not set; it expands to an empty string`,
    );

  if (type === "stdio") {
    if (!entry.command)
      return err(problem(name, context.origin, 'needs a "command" (stdio) or a "url" (http)'));
    const command = expandString(entry.command, context.env);
    for (const variable of command.unset) unset.add(variable);
    if (command.value.trim() === "")
      return err(problem(name, context.origin, '"command" is empty after expansion'));
    const cwdRaw = entry.cwd === undefined ? undefined : expandString(entry.cwd, context.env);
    for (const variable of cwdRaw?.unset ?? []) unset.add(variable);
    const cwd = cwdRaw?.value
      ? isAbsolute(cwdRaw.value)
        ? cwdRaw.value
        : resolve(context.baseDir, cwdRaw.value)
      : context.baseDir;
    const spec: StdioServerSpec = {
      ...base,
      transport: "stdio",
      command: command.value,
      args: expandList(entry.args, context.env, unset) ?? [],
      env: expandRecord(entry.env, context.env, unset) ?? {},
      cwd,
    };
    return ok({ spec, warnings: warnings() });
  }

  if (!entry.url) return err(problem(name, context.origin, `type "${type}" needs a "url"`));
  const url = expandString(entry.url, context.env);
  for (const variable of url.unset) unset.add(variable);
  let parsed: URL;
  try {
    parsed = new URL(url.value);
  } catch {
    return err(problem(name, context.origin, `"url" is not a URL: ${url.value}`));
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    return err(problem(name, context.origin, `"url" must be http or https, not ${parsed.protocol}`));
  const headers = expandRecord(entry.headers, context.env, unset) ?? {};
  const oauth: OAuthSettings | false =
    entry.oauth === false
      ? false
      : entry.oauth
        ? { ...entry.oauth }
        : hasAuthorizationHeader(headers)
          ? false
          : {};
  if (
    oauth &&
    oauth.grant === "client_credentials" &&
    (!oauth.clientId || !(oauth.clientSecret || oauth.privateKeyFile))
  )
    return err(
      problem(
        name,
        context.origin,
        '"oauth" with grant client_credentials needs clientId and clientSecret or privateKeyFile',
      ),
    );
  if (oauth && oauth.grant === "cross_app_access") {
    const idp = oauth.idp;
    if (!oauth.clientId || !idp || !(idp.issuer || idp.tokenEndpoint) || !(idp.idToken || idp.idTokenFile))
      return err(
        problem(
          name,
          context.origin,
          '"oauth" with grant cross_app_access needs clientId and idp { issuer or tokenEndpoint, idToken or idTokenFile }',
        ),
      );
    // The ID token comes from the environment (an SSO tool sets it): `${VAR}` as elsewhere.
    const expanded = { ...idp };
    for (const key of ["idToken", "idTokenFile", "issuer", "tokenEndpoint"] as const) {
      const value = idp[key];
      if (value === undefined) continue;
      const result = expandString(value, context.env);
      for (const variable of result.unset) unset.add(variable);
      expanded[key] = result.value;
    }
    oauth.idp = expanded;
  }
  if (oauth && oauth.privateKeyFile !== undefined)
    oauth.privateKeyFile = expandString(oauth.privateKeyFile, context.env).value;
  if (oauth && oauth.clientMetadataUrl !== undefined) {
    const metadataUrl = URL.canParse(oauth.clientMetadataUrl) ? new URL(oauth.clientMetadataUrl) : undefined;
    if (metadataUrl?.protocol !== "https:" || metadataUrl.pathname === "/")
      return err(problem(name, context.origin, '"oauth.clientMetadataUrl" must be an https URL with a path'));
  }
  const spec: HttpServerSpec = { ...base, transport: type, url: parsed.href, headers, oauth };
  return ok({ spec, warnings: warnings() });
}

/** Whether the server's tool `name` passes its allow / deny lists (`*` matches any run of characters). */
export function toolAllowed(spec: Pick<ServerSpec, "tools">, name: string): boolean {
  const matches = (pattern: string) =>
    new RegExp(`^${pattern.split("*").map(escapeRegExp).join(".*")}$`).test(name);
  if (spec.tools.deny?.some(matches)) return false;
  return spec.tools.allow === undefined || spec.tools.allow.some(matches);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
