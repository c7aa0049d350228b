// decide(): the permission decision for one tool call, a function of its inputs and the filesystem.
import { homedir } from "node:os";
import { resolveKeelHome } from "../config/paths.js";
import { realpathOrResolved } from "../fs/paths.js";
import { judgeBash } from "./bash.js";
import { judgeRead, judgeWrite, type PathContext } from "./pathcheck.js";
import { resolvePath } from "./paths.js";
import { catalogRules, domainMatches, familyOf, normalizeDomain, rulesFor } from "./rules.js";
import { confineVerdicts } from "./sandboxed.js";
import { loadShellParser } from "./shell/parser.js";
import { coveringRules, exactCommandRule } from "./suggest.js";
import type { PermissionDecision, PermissionRequest } from "./types.js";
import { allow, ask, combine, deny, type Verdict } from "./verdict.js";

function stringArg(args: unknown, ...keys: string[]): string | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  for (const key of keys) {
    const v = (args as Record<string, unknown>)[key];
    if (typeof v === "string" && v.length > 0) return v;
  }
  return undefined;
}

const PATH_KEYS = ["path", "file_path", "filePath", "notebook_path"];

/** The resolved paths and rules every judgement works from. */
export function pathContext(
  request: Pick<PermissionRequest, "mode" | "rules" | "workspace" | "userHome" | "keelHome">,
): PathContext {
  const home = realpathOrResolved(request.userHome ?? homedir());
  return {
    mode: request.mode,
    rules: request.rules,
    workspace: realpathOrResolved(request.workspace),
    home,
    keelHome: realpathOrResolved(request.keelHome ?? resolveKeelHome(process.env, home)),
    patterns: new Map(),
  };
}

export async function decide(request: PermissionRequest): Promise<PermissionDecision> {
  const ctx = pathContext(request);
  const cwd = request.cwd === undefined ? ctx.workspace : realpathOrResolved(request.cwd);
  const decision = combine(await verdictsFor(request, ctx, cwd), request.mode);
  if (decision.behavior !== "ask") return decision;
  return withAlwaysRules(decision, request, ctx, cwd);
}

/**
 * On an ask, `suggestions` become alternatives that each alone allow this call (narrowest first,
 * the exact command line before prefixes): "always" then grants no more than was asked.
 */
async function withAlwaysRules(
  decision: PermissionDecision,
  request: PermissionRequest,
  ctx: PathContext,
  cwd: string,
): Promise<PermissionDecision> {
  const command = familyOf(request.tool) === "bash" ? stringArg(request.args, "command") : undefined;
  const exact = command === undefined ? undefined : exactCommandRule(command);
  const candidates = [...(exact ? [exact] : []), ...(decision.suggestions ?? [])];
  const covering = await coveringRules(candidates, async (rule) => {
    const rules = [...request.rules, { rule, behavior: "allow" as const, source: "session" as const }];
    const verdicts = await verdictsFor({ ...request, rules }, { ...ctx, rules }, cwd);
    return combine(verdicts, request.mode).behavior === "allow";
  });
  const { suggestions: _, ...rest } = decision;
  return covering.length > 0 ? { ...rest, suggestions: covering } : rest;
}

/** The kernel's Bash tool runs commands without CDPATH, so `cd name` means ./name. */
function defaultShellEnv(): Record<string, string | undefined> {
  const { CDPATH: _, ...env } = process.env;
  return env;
}

async function verdictsFor(request: PermissionRequest, ctx: PathContext, cwd: string): Promise<Verdict[]> {
  const { tool, args } = request;
  if (request.catalogEntry) return [judgeCatalogEntry(tool, request.catalogEntry, request, ctx)];
  if (request.approval === "extension")
    return [extensionApproves(judgeNamedTool(tool, request.sideEffects, ctx), ctx)];
  switch (familyOf(tool)) {
    case "bash": {
      const command = stringArg(args, "command");
      if (command === undefined) return [ask("Bash was called without a command", [], true)];
      const judged = request.forceParserAllow
        ? [allow("the shell parser's verdicts are forced to allow (a test switch)")]
        : judgeBash(await loadShellParser(), command, ctx, {
            cwd,
            env: request.shellEnv ?? defaultShellEnv(),
          });
      return request.sandbox ? confineVerdicts(judged, request.sandbox, request.mode) : judged;
    }
    case "edit": {
      const path = stringArg(args, ...PATH_KEYS);
      if (path === undefined) return [ask(`${tool} was called without a path`, [], true)];
      return [judgeWrite(resolvePath(path, cwd, ctx.home), ctx)];
    }
    case "read": {
      const base = stringArg(args, ...PATH_KEYS) ?? ".";
      const verdicts = [judgeRead(resolvePath(base, cwd, ctx.home), ctx)];
      // Glob("../../etc/*") reaches outside through its pattern, not its path.
      const pattern = stringArg(args, "pattern");
      if (tool === "Glob" && pattern !== undefined) {
        const literal = pattern
          .split("/")
          .filter((_, i, segs) => !segs.slice(0, i + 1).some((s) => /[*?[{]/.test(s)));
        const root = resolvePath(base, cwd, ctx.home).lexical;
        if (literal.length > 0)
          verdicts.push(judgeRead(resolvePath(literal.join("/") || "/", root, ctx.home), ctx));
      }
      return verdicts;
    }
    case "webfetch":
      return [judgeWebFetch(stringArg(args, "url"), ctx)];
    default:
      return [judgeNamedTool(tool, request.sideEffects, ctx)];
  }
}

function judgeWebFetch(url: string | undefined, ctx: PathContext): Verdict {
  let host: string;
  try {
    host = normalizeDomain(new URL(url ?? "").hostname);
  } catch {
    return ask(`WebFetch was called without a valid URL`, [], true);
  }
  const find = (b: "allow" | "ask" | "deny") =>
    rulesFor(ctx.rules, b, "webfetch").find((r) => domainMatches(r.specifier, host));
  const denied = find("deny");
  if (denied) return deny(`fetching ${host} is denied by rule ${denied.entry.rule}`, denied.entry.rule);
  const asked = find("ask");
  if (asked)
    return {
      ...ask(`rule ${asked.entry.rule} asks before fetching ${host}`, [], true),
      rule: asked.entry.rule,
    };
  const allowed = find("allow");
  if (allowed) return allow(`fetching ${host} is allowed by rule ${allowed.entry.rule}`, allowed.entry.rule);
  return ask(`fetches ${host}`, [`WebFetch(domain:${host})`]);
}

/**
 * A catalog entry, by its own identity `group:name`. Rules may name it so, name its whole group
 * (`group`, `group:*`, `group__*`), or use its bare name when that stands for it alone and is no
 * built-in's name (`mcp__server__tool`). A built-in tool's rules (`Bash(…)`, `Read`) never
 * apply: an entry called `Bash` is not the shell.
 */
function judgeCatalogEntry(
  identity: string,
  entry: NonNullable<PermissionRequest["catalogEntry"]>,
  request: PermissionRequest,
  ctx: PathContext,
): Verdict {
  // A server-wide rule names the entry's group exactly: `mcp__docs` is not `mcp__docs__evil`,
  // whatever the entry's bare name starts with.
  const names = new Set([identity, entry.group, `${entry.group}:*`, `${entry.group}__*`]);
  const matches = (ruleTool: string) => names.has(ruleTool) || (entry.bareName && ruleTool === entry.name);
  const find = (b: "allow" | "ask" | "deny") => catalogRules(ctx.rules, b).find((r) => matches(r.tool));
  const denied = find("deny");
  if (denied) return deny(`${identity} is denied by rule ${denied.rule}`, denied.rule);
  const asked = find("ask");
  if (asked) return { ...ask(`rule ${asked.rule} asks before ${identity}`, [], true), rule: asked.rule };
  if (request.sideEffects === false) return allow(`${identity} has no side effects`);
  if (ctx.mode === "plan")
    return deny(`plan mode: ${identity} may have side effects; only reading tools run while planning`);
  const allowed = find("allow");
  if (allowed) return allow(`${identity} is allowed by rule ${allowed.rule}`, allowed.rule);
  const verdict = ask(`${identity} needs approval`, [identity]);
  return request.approval === "extension" ? extensionApproves(verdict, ctx) : verdict;
}

/**
 * A tool that asks the user itself: what would merely ask here goes on to its own dialog, except
 * in dontAsk mode (nobody is asked) — rules, hard asks and plan mode still decide.
 */
function extensionApproves(verdict: Verdict, ctx: PathContext): Verdict {
  if (verdict.behavior !== "ask" || verdict.hard || ctx.mode === "dontAsk") return verdict;
  return allow(`${verdict.reason}; the tool asks the user itself`);
}

/** MCP and extension tools: by name. Tools declared free of side effects run in every mode. */
function judgeNamedTool(tool: string, sideEffects: boolean | undefined, ctx: PathContext): Verdict {
  const family = familyOf(tool);
  const find = (b: "allow" | "ask" | "deny") => rulesFor(ctx.rules, b, family, tool)[0];
  const denied = find("deny");
  if (denied) return deny(`${tool} is denied by rule ${denied.entry.rule}`, denied.entry.rule);
  const asked = find("ask");
  if (asked)
    return { ...ask(`rule ${asked.entry.rule} asks before ${tool}`, [], true), rule: asked.entry.rule };
  if (sideEffects === false) return allow(`${tool} has no side effects`);
  if (ctx.mode === "plan")
    return deny(`plan mode: ${tool} may have side effects; only reading tools run while planning`);
  const allowed = find("allow");
  if (allowed) return allow(`${tool} is allowed by rule ${allowed.entry.rule}`, allowed.entry.rule);
  return ask(`${tool} needs approval`, [tool]);
}
