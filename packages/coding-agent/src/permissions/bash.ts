// Judges a Bash command: every simple command it runs, every file it redirects to, through wrappers.
import type { Parser } from "web-tree-sitter";
import { isProtectedWrite, judgeRead, judgeWrite, type PathContext } from "./pathcheck.js";
import { expandHome, hasGlob, type ResolvedPath, resolvePath } from "./paths.js";
import { rulesFor } from "./rules.js";
import { classifyReadOnly, dangerReason, type PathFacts } from "./shell/classify.js";
import { parseShell, type ShellCommand, type ShellRedirect, type ShellWord } from "./shell/parser.js";
import { commandName, type Unwrapped, unwrap } from "./shell/wrappers.js";
import { applyExactCommandRule, commandPrefixRules } from "./suggest.js";
import type { PermissionBehavior } from "./types.js";
import { allow, ask, deny, type Verdict } from "./verdict.js";

const MAX_SCRIPT_DEPTH = 3;

/** Variables that change what later programs load or run: never set silently. */
const RISKY_ENV =
  /^(PATH|LD_.*|DYLD_.*|BASH_ENV|ENV|IFS|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PERL5OPT|PERL5LIB|RUBYOPT|GIT_.*|PAGER|MANPAGER|GIT_PAGER|EDITOR|VISUAL|HOME|ZDOTDIR|LESSOPEN|npm_config_.*|NPM_CONFIG_.*)$/i;

interface BashContext extends PathContext {
  parser: Parser;
  /** Every directory a later command might run in (after `cd`); undefined once unknowable. */
  cwds: string[] | undefined;
}

export function judgeBash(parser: Parser, command: string, ctx: PathContext): Verdict[] {
  const verdicts = judgeScript(command, { ...ctx, parser, cwds: [ctx.workspace] }, 0);
  return applyExactCommandRule(command, verdicts, ctx.rules);
}

function judgeScript(script: string, ctx: BashContext, depth: number): Verdict[] {
  const parsed = parseShell(ctx.parser, script);
  if (parsed.isErr()) return [ask(`the command could not be checked: ${parsed.error.message}`, [], true)];
  const out: Verdict[] = [];
  for (const cmd of parsed.value.commands) {
    out.push(...judgeCommand(cmd, ctx, depth));
    for (const r of cmd.redirects) out.push(...judgeRedirect(r, ctx));
  }
  for (const r of parsed.value.redirects) out.push(...judgeRedirect(r, ctx));
  return out;
}

/** The text a rule is matched against: argv words, unquoted when known, as written otherwise. */
function words(ws: ShellWord[]): string[] {
  return ws.map((w) => (w.static ? w.value : w.raw));
}

function display(ws: ShellWord[]): string {
  return ws
    .map((w) =>
      w.static && /^[\w@%+=:,./~-]+$/.test(w.value) ? w.value : w.static ? JSON.stringify(w.value) : w.raw,
    )
    .join(" ");
}

/**
 * `Bash(npm test:*)` / `Bash(npm test *)`: the command's words start with these words.
 * `Bash(git status)`: exactly these words. `*` inside a word matches within that word.
 */
export function bashRuleMatches(specifier: string | undefined, argv: string[], exactOnly = false): boolean {
  if (specifier === undefined) return !exactOnly;
  let spec = specifier.trim();
  let prefix = false;
  if (spec.endsWith(":*")) {
    spec = spec.slice(0, -2);
    prefix = true;
  } else if (spec.endsWith(" *")) {
    spec = spec.slice(0, -2);
    prefix = true;
  }
  if (prefix && exactOnly) return false;
  const want = spec
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .map(unquote);
  if (argv.length < want.length || (!prefix && argv.length !== want.length)) return false;
  return want.every((w, i) => (w.includes("*") ? wildcard(w).test(argv[i]!) : w === argv[i]));
}

function unquote(w: string): string {
  return /^(["']).*\1$/.test(w) ? w.slice(1, -1) : w;
}

function wildcard(w: string): RegExp {
  return new RegExp(
    `^${w
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
}

function findRule(ctx: BashContext, behavior: PermissionBehavior, layers: string[][], exactOnly = false) {
  for (const rule of rulesFor(ctx.rules, behavior, "bash")) {
    if (layers.some((argv) => bashRuleMatches(rule.specifier, argv, exactOnly))) return rule.entry.rule;
  }
  return undefined;
}

function judgeCommand(cmd: ShellCommand, ctx: BashContext, depth: number, appendsArgs = false): Verdict[] {
  const riskyAssignment = cmd.assignments.find((a) => RISKY_ENV.test(a.name));
  if (cmd.words.length === 0) {
    return riskyAssignment
      ? [ask(`sets ${riskyAssignment.name}, which changes what later commands run`)]
      : [];
  }
  const un = unwrap(cmd.words);
  const all = un.layers.map((l) => words(l.words));
  const extrasArgv = un.extras.map(words);
  const full = display(cmd.words);

  const denied = findRule(ctx, "deny", [...all, ...extrasArgv]);
  if (denied) return [deny(`\`${full}\` is denied by rule ${denied}`, denied)];
  const asked = findRule(ctx, "ask", [...all, ...extrasArgv]);
  if (asked) return [{ ...ask(`rule ${asked} asks before \`${full}\``, [], true), rule: asked }];

  if (un.script !== undefined) {
    if (depth + 1 > MAX_SCRIPT_DEPTH) return [ask(`\`${full}\` nests shells too deeply to check`, [], true)];
    return judgeScript(un.script.value, ctx, depth + 1);
  }

  const out: Verdict[] = [];
  for (const extra of un.extras) {
    out.push(
      ...judgeCommand(
        { ...cmd, words: extra, assignments: [], redirects: [], pipedInput: false },
        ctx,
        depth,
        true,
      ),
    );
  }

  const effective = un.layers[un.layers.length - 1]!.words;
  const danger = dangerReason(effective, cmd.pipedInput, facts(ctx));
  if (danger) {
    const exact = findRule(ctx, "allow", [all[0]!], true);
    if (exact) return [...out, allow(`\`${full}\` is allowed by rule ${exact}`, exact)];
    if (ctx.mode === "plan") return [...out, deny(`plan mode: \`${full}\` ${danger}`)];
    return [...out, ask(`\`${full}\` is never allowed automatically: ${danger}`, [`Bash(${full})`], true)];
  }

  const riskyEnv = riskyAssignment?.name ?? un.envAssignments.find((n) => RISKY_ENV.test(n));
  const readOnly =
    riskyEnv || un.elevated || un.opaque || appendsArgs || un.appendsArgs
      ? undefined
      : readOnlyVerdicts(effective, ctx);

  if (ctx.mode === "plan") {
    if (readOnly) return [...out, ...readOnly];
    return [
      ...out,
      deny(`plan mode: \`${full}\` may change things; only read-only commands run while planning`),
    ];
  }

  const allowedBy = riskyEnv ? undefined : findRule(ctx, "allow", allowLayers(un, all), appendsArgs);
  if (allowedBy) return [...out, allow(`\`${full}\` is allowed by rule ${allowedBy}`, allowedBy)];
  if (readOnly) return [...out, ...readOnly];

  const why = riskyEnv
    ? `sets ${riskyEnv}, which changes what the command runs`
    : un.opaque
      ? `runs code the permission checker cannot see (${un.opaque})`
      : un.elevated
        ? "runs with elevated privileges"
        : "needs approval";
  const suggestions = riskyEnv || un.opaque ? [] : commandPrefixRules(un.elevated ? cmd.words : effective);
  return [...out, ask(`\`${full}\` ${why}`, suggestions)];
}

/** Rules for the inner command count through transparent wrappers, never through sudo/doas. */
function allowLayers(un: Unwrapped, all: string[][]): string[][] {
  const out = [all[0]!];
  for (let i = 1; i < un.layers.length; i++) {
    const via = un.layers[i]!.via;
    if (via === "sudo" || via === "doas") break;
    out.push(all[i]!);
  }
  return out;
}

function readOnlyVerdicts(ws: ShellWord[], ctx: BashContext): Verdict[] | undefined {
  const verdict = classifyReadOnly(ws);
  if (!verdict.readOnly) return undefined;
  const name = commandName(ws[0])!;
  const out: Verdict[] = [];
  for (const p of verdict.paths) out.push(...judgePathWord(p, ctx, "read"));
  if (name === "cd" || name === "pushd") moveCwd(ws[1], ctx);
  if (out.every((v) => v.behavior === "allow"))
    return [allow(`\`${display(ws)}\` only reads inside the workspace`)];
  return out;
}

function moveCwd(target: ShellWord | undefined, ctx: BashContext): void {
  if (!ctx.cwds) return;
  if (!target) {
    ctx.cwds = [...ctx.cwds, ctx.home];
    return;
  }
  if (!target.static || target.value === "-") {
    ctx.cwds = undefined;
    return;
  }
  const base = ctx.cwds;
  const moved = base.map((c) => resolveWord(target, c, ctx).real);
  ctx.cwds = [...new Set([...base, ...moved])];
}

function resolveWord(w: ShellWord, cwd: string, ctx: BashContext): ResolvedPath {
  return resolvePath(w.tilde ? expandHome(w.value, ctx.home) : w.value, cwd, ctx.home);
}

/** A glob segment like `.*` can match `..` in older shells: treat it as leaving the directory. */
function globMayEscape(value: string): boolean {
  return value.split("/").some((seg) => seg.startsWith(".") && hasGlob(seg.slice(1, 2)));
}

function judgePathWord(w: ShellWord, ctx: BashContext, access: "read" | "write"): Verdict[] {
  if (!w.static) return [ask(`uses a path only known when the shell runs (${w.raw})`)];
  if (globMayEscape(w.value)) return [ask(`the pattern ${w.raw} can match the parent directory`)];
  const isRelative = !w.value.startsWith("/") && !w.tilde;
  if (isRelative && !ctx.cwds)
    return [ask(`uses ${w.raw} after a cd to a directory only known when the shell runs`)];
  const cwds = isRelative ? ctx.cwds! : [ctx.workspace];
  return cwds.map((cwd) => {
    const target = resolveWord(w, cwd, ctx);
    return access === "read" ? judgeRead(target, ctx) : judgeWrite(target, ctx);
  });
}

const HARMLESS_DEVICES = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

function judgeRedirect(r: ShellRedirect, ctx: BashContext): Verdict[] {
  if (r.kind === "dup" || !r.target) return [];
  if (r.target.static && HARMLESS_DEVICES.test(r.target.value)) return [];
  if (r.kind === "write" && r.target.static && r.target.value.startsWith("/dev/")) {
    if (ctx.mode === "plan") return [deny(`plan mode: writes the device ${r.target.value}`)];
    return [ask(`writes the device ${r.target.value}`, [], true)];
  }
  if (r.kind === "write" && ctx.mode === "plan")
    return [deny(`plan mode: \`${r.op} ${r.target.raw}\` writes a file`)];
  return judgePathWord(r.target, ctx, r.kind === "read" ? "read" : "write");
}

function facts(ctx: BashContext): PathFacts {
  const resolveAll = (w: ShellWord) => (ctx.cwds ?? [ctx.workspace]).map((c) => resolveWord(w, c, ctx));
  return {
    isRootOrHome: (w) =>
      w.static && resolveAll(w).some((t) => [t.lexical, t.real].some((p) => p === "/" || p === ctx.home)),
    isSensitiveWrite: (w) => w.static && resolveAll(w).some((t) => isProtectedWrite(t, ctx)),
  };
}
