// decide(): the permission decision for one tool call, a function of its inputs and the filesystem.
// A call is judged by what its tool declares (access, which arguments are paths, commands, URLs),
// never by its name: a tool that declares nothing is the most dangerous kind.
import { homedir } from "node:os";
import { resolveKeelHome } from "../config/paths.js";
import { realpathOrResolved } from "../fs/paths.js";
import { roleValues } from "../tools/declarations.js";
import { judgeBash } from "./bash.js";
import { judgeRead, judgeWrite, type PathContext } from "./pathcheck.js";
import { resolvePath } from "./paths.js";
import {
  catalogRules,
  domainMatches,
  domainRules,
  familyOfAccess,
  normalizeDomain,
  toolRules,
} from "./rules.js";
import { confineVerdicts } from "./sandboxed.js";
import { loadShellParser } from "./shell/parser.js";
import { coveringRules, exactCommandRule } from "./suggest.js";
import type { PermissionDecision, PermissionRequest } from "./types.js";
import { allow, ask, combine, deny, type Verdict } from "./verdict.js";

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
  const declared = request.declaration;
  const command =
    declared?.access === "exec" ? roleValues(request.args, declared.args?.commands)[0] : undefined;
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
  const { tool } = request;
  if (request.catalogEntry) return [judgeCatalogEntry(tool, request.catalogEntry, request, ctx)];
  const verdicts = await judgeDeclared(request, ctx, cwd);
  return request.approval === "extension" ? verdicts.map((v) => extensionApproves(v, ctx)) : verdicts;
}

/**
 * By access: a read tool's paths and patterns under `Read(…)` rules, a write tool's paths under
 * `Edit(…)`, an exec tool's commands through the shell parser and `Bash(…)` (confined by the
 * sandbox), a network tool's URLs under `<Tool>(domain:…)`. A tool whose access names no
 * argument of that kind, and an undeclared one, is judged by the rules naming it.
 */
async function judgeDeclared(request: PermissionRequest, ctx: PathContext, cwd: string): Promise<Verdict[]> {
  const { tool, args } = request;
  const access = request.declaration?.access;
  const roles = request.declaration?.args;
  const family = familyOfAccess(access);
  const own: PathContext = family ? { ...ctx, tool: { name: tool, family } } : ctx;
  if (access === "exec" && roles?.commands) {
    const commands = roleValues(args, roles.commands);
    if (commands.length === 0) return [ask(`${tool} was called without a command`, [], true)];
    const judged: Verdict[] = [];
    for (const command of commands)
      judged.push(
        ...(request.forceParserAllow
          ? [allow("the shell parser's verdicts are forced to allow (a test switch)")]
          : judgeBash(await loadShellParser(), command, own, {
              cwd,
              env: request.shellEnv ?? defaultShellEnv(),
            })),
      );
    return request.sandbox ? confineVerdicts(judged, request.sandbox, request.mode) : judged;
  }
  if (access === "write" && roles?.paths) {
    const paths = roleValues(args, roles.paths);
    if (paths.length === 0) return [ask(`${tool} was called without a path`, [], true)];
    return paths.map((path) => judgeWrite(resolvePath(path, cwd, ctx.home), own));
  }
  if (access === "read" && (roles?.paths || roles?.patterns)) return judgeReads(request, own, cwd);
  if (access === "network" && roles?.urls) {
    const urls = roleValues(args, roles.urls);
    if (urls.length === 0) return [ask(`${tool} was called without a valid URL`, [], true)];
    return urls.map((url) => judgeFetch(tool, url, ctx));
  }
  return [judgeNamedTool(tool, access, ctx)];
}

/** Every path a read tool names (the working folder when it names none), and what its patterns reach. */
function judgeReads(request: PermissionRequest, ctx: PathContext, cwd: string): Verdict[] {
  const roles = request.declaration?.args;
  const given = roleValues(request.args, roles?.paths);
  const bases = given.length > 0 ? given : ["."];
  const verdicts = bases.map((base) => judgeRead(resolvePath(base, cwd, ctx.home), ctx));
  // A pattern's literal leading folders are a path it reads ("../../etc/*" reaches outside).
  for (const pattern of roleValues(request.args, roles?.patterns)) {
    const literal = pattern
      .split("/")
      .filter((_, i, segs) => !segs.slice(0, i + 1).some((s) => /[*?[{]/.test(s)));
    if (literal.length === 0) continue;
    for (const base of bases) {
      const root = resolvePath(base, cwd, ctx.home).lexical;
      verdicts.push(judgeRead(resolvePath(literal.join("/") || "/", root, ctx.home), ctx));
    }
  }
  return verdicts;
}

function judgeFetch(tool: string, url: string, ctx: PathContext): Verdict {
  let host: string;
  try {
    host = normalizeDomain(new URL(url).hostname);
  } catch {
    return ask(`${tool} was called without a valid URL`, [], true);
  }
  const find = (b: "allow" | "ask" | "deny") =>
    domainRules(ctx.rules, b, tool).find((r) => domainMatches(r.specifier, host));
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
  return ask(`fetches ${host}`, [`${tool}(domain:${host})`]);
}

/**
 * Whether a tool's access alone lets it run: it changes nothing (none, read, network that names
 * no URL argument). Write, exec and undeclared tools are asked about.
 */
function runsFreely(access: string | undefined): boolean {
  return access === "none" || access === "read" || access === "network";
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
  if (runsFreely(request.declaration?.access)) return allow(`${identity} has no side effects`);
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

/**
 * A tool judged by the rules naming it: deny, then ask, win; a tool that changes nothing runs in
 * every mode; anything else (write or exec with no argument to judge, undeclared) is refused in
 * plan mode and asked about unless an allow rule names it.
 */
function judgeNamedTool(tool: string, access: string | undefined, ctx: PathContext): Verdict {
  const find = (b: "allow" | "ask" | "deny") => toolRules(ctx.rules, b, tool)[0];
  const denied = find("deny");
  if (denied) return deny(`${tool} is denied by rule ${denied.entry.rule}`, denied.entry.rule);
  const asked = find("ask");
  if (asked)
    return { ...ask(`rule ${asked.entry.rule} asks before ${tool}`, [], true), rule: asked.entry.rule };
  if (runsFreely(access)) return allow(`${tool} has no side effects`);
  if (ctx.mode === "plan")
    return deny(`plan mode: ${tool} may have side effects; only reading tools run while planning`);
  const allowed = find("allow");
  if (allowed) return allow(`${tool} is allowed by rule ${allowed.entry.rule}`, allowed.entry.rule);
  return ask(
    access === undefined ? `${tool} declares no access and needs approval` : `${tool} needs approval`,
    [tool],
  );
}
