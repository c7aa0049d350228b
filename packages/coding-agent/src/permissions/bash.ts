// Judges a Bash command: every simple command it runs, every file it redirects to, through
// wrappers, with the shell's state (cwd, HOME, PATH, CDPATH) followed from command to command.
// How rules match is in bash-rules.ts; what git may run, in bash-git.ts.
import type { Parser } from "web-tree-sitter";
import { gitConfigWrites, gitRisk, optionalLocksOff } from "./bash-git.js";
import { allowLayers, byName, display, findRule, ruleWords, words } from "./bash-rules.js";
import { isProtectedWrite, type PathContext } from "./pathcheck.js";
import { expandHome, resolveShellPath, statQuiet } from "./paths.js";
import { RULE_WORD } from "./rules.js";
import { classifyReadOnly, dangerReason, type PathFacts, type ReadOnlyVerdict } from "./shell/classify.js";
import { argvEvaluation, type Evaluation } from "./shell/evaluation.js";
import { parseShell, type ShellCommand, type ShellWord } from "./shell/parser.js";
import { commandName, systemName, unwrap } from "./shell/wrappers.js";
import {
  applyStateEffects,
  assign,
  type BashContext,
  COMMAND_ENV,
  cloneState,
  forgetEverything,
  guardsOf,
  initialState,
  isRiskyEnv,
  PATH_ONLY_ENV,
  type ShellState,
} from "./shell-state.js";
import { expandWords, judgePathWord, judgeRedirect, resolveWord } from "./shell-words.js";
import { applyExactCommandRule, commandPrefixRules } from "./suggest.js";
import { allow, ask, deny, type Verdict } from "./verdict.js";

const MAX_SCRIPT_DEPTH = 3;

export interface BashOptions {
  /** Where the command starts (default: the workspace). */
  cwd?: string;
  /** The environment it starts with. */
  env?: Readonly<Record<string, string | undefined>>;
}

export function judgeBash(
  parser: Parser,
  command: string,
  ctx: PathContext,
  options: BashOptions = {},
): Verdict[] {
  const env = options.env ?? {};
  const bash: BashContext = {
    ...ctx,
    parser,
    env,
    state: initialState(ctx, options.cwd ?? ctx.workspace, env),
    guarded: guardsOf(ctx),
  };
  return applyExactCommandRule(command, judgeScript(command, bash, 0), ctx.rules);
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

/** Parameters that always hold numbers. */
const NUMERIC = new Set(["#", "?", "$", "!"]);

/**
 * Why what bash evaluates here may run a command: a value it evaluates is not known to be an
 * integer (`x='a[$(cmd)]'; echo $((x))` runs cmd), or is only known at run time.
 */
function evaluationRisk(e: Evaluation | undefined, state: ShellState): string | undefined {
  if (!e) return undefined;
  if (e.opaque) return `makes bash evaluate ${e.opaque}, which can run commands hidden in it`;
  const unknown = e.names.filter((n) => !state.integers.has(n) && !NUMERIC.has(n));
  if (unknown.length === 0) return undefined;
  const names = unknown.map((n) => `$${n}`).join(", ");
  return `makes bash evaluate ${names} as arithmetic or a variable name, which runs any command an array subscript in the value holds`;
}

interface EnvChange {
  name: string;
  value: ShellWord;
}

/**
 * Variables a command sets: what program-naming ones name (EDITOR='rm x' runs rm) is judged
 * against the Bash deny and ask rules; the first one that changes what programs run in a way
 * the checker cannot follow is returned as `hidden`.
 */
function envChanges(
  changes: EnvChange[],
  ctx: BashContext,
  depth: number,
): { verdicts: Verdict[]; hidden?: string } {
  const verdicts: Verdict[] = [];
  let hidden: string | undefined;
  for (const { name, value } of changes) {
    if (!isRiskyEnv(name) || PATH_ONLY_ENV.test(name)) continue;
    if (COMMAND_ENV.test(name) && value.static) {
      // Only what rules say about the command line counts here; the assignment itself asks anyway.
      const inner = judgeScript(
        value.value.replace(/^\|+/, ""),
        { ...ctx, state: cloneState(ctx.state) },
        depth + 1,
      );
      verdicts.push(...inner.filter((v) => v.behavior === "deny" || (v.behavior === "ask" && v.hard)));
      continue;
    }
    hidden ??= `sets ${name}, which changes what programs run or load`;
  }
  return hidden ? { verdicts, hidden } : { verdicts };
}

/** Code the checker cannot see: with Bash deny or ask rules it could be what they name. */
function unseenCode(reason: string, ctx: BashContext): Verdict {
  return ask(
    ctx.guarded.bash ? `${reason}; it cannot be checked against the Bash deny and ask rules` : reason,
    [],
    ctx.guarded.bash,
  );
}

/** `PATH=… `, `x=$((y))`, a loop variable: a statement that only assigns (or only evaluates). */
function judgeAssignmentOnly(
  cmd: ShellCommand,
  ctx: BashContext,
  depth: number,
  riskyAssignment: string | undefined,
  evaluated: string | undefined,
): Verdict[] {
  const env = envChanges(cmd.assignments, ctx, depth);
  const out = [...env.verdicts];
  const what = cmd.source.length > 80 ? `${cmd.source.slice(0, 77)}...` : cmd.source;
  if (evaluated) out.push(unseenCode(`\`${what}\` ${evaluated}`, ctx));
  if (riskyAssignment) {
    const reason = `sets ${riskyAssignment}, which changes what later commands run`;
    out.push(env.hidden ? unseenCode(reason, ctx) : ask(reason));
  }
  return out;
}

function judgeCommand(cmd: ShellCommand, ctx: BashContext, depth: number, appendsArgs = false): Verdict[] {
  // Judged by what was true before it: the command that changes PATH is not itself "after" it,
  // and `i=$((i+1))` evaluates the old i.
  const namesChanged = ctx.state.namesChanged;
  const evaluatedBefore = evaluationRisk(cmd.evaluates, ctx.state);
  const assigned = applyStateEffects(cmd, ctx.state);
  const riskyAssignment = assigned.find(isRiskyEnv);
  if (cmd.words.length === 0) return judgeAssignmentOnly(cmd, ctx, depth, riskyAssignment, evaluatedBefore);
  const expanded = expandWords(cmd.words, ctx);
  const un = unwrap(expanded.words, cmd.input);
  const all = un.layers.map((l) => words(l.words));
  const extrasArgv = un.extras.map(words);
  const full = display(cmd.words);
  const effective = un.layers[un.layers.length - 1]!.words;
  const evaluated =
    evaluatedBefore ?? evaluationRisk(argvEvaluation(effective, systemName(effective[0])), ctx.state);

  const ruleLayers = byName([...all, ...extrasArgv, words(cmd.words)]);
  const denied = findRule(ctx, "deny", ruleLayers);
  if (denied) return [deny(`\`${full}\` is denied by rule ${denied}`, denied)];
  const asked = findRule(ctx, "ask", ruleLayers);
  if (asked) return [{ ...ask(`rule ${asked} asks before \`${full}\``, [], true), rule: asked }];

  if (un.sources) forgetEverything(ctx.state, `${un.sources.raw} was sourced`);
  const changes: EnvChange[] = [...cmd.assignments, ...un.envAssignments];
  const env = envChanges(changes, ctx, depth);
  const riskyEnv = changes.find((a) => isRiskyEnv(a.name))?.name;
  if (un.script !== undefined) {
    if (depth + 1 > MAX_SCRIPT_DEPTH) return [ask(`\`${full}\` nests shells too deeply to check`, [], true)];
    // `PATH=… sh -c '…'`: the script runs with what the assignments set.
    for (const a of changes) assign(ctx.state, a.name);
    return [
      ...env.verdicts,
      ...(riskyEnv
        ? [
            env.hidden
              ? unseenCode(`\`${full}\` ${env.hidden}`, ctx)
              : ask(`\`${full}\` sets ${riskyEnv}, which changes what the script runs`),
          ]
        : []),
      ...(evaluated ? [unseenCode(`\`${full}\` ${evaluated}`, ctx)] : []),
      ...un.writes.flatMap((w) => judgePathWord(w, ctx, "write")),
      ...un.reads.flatMap((w) => judgePathWord(w, ctx, "read")),
      ...judgeScript(un.script.value, ctx, depth + 1),
    ];
  }

  const out: Verdict[] = [...env.verdicts];
  for (const extra of un.extras) {
    out.push(
      ...judgeCommand(
        { ...cmd, words: extra, assignments: [], redirects: [], pipedInput: false, evaluates: undefined },
        ctx,
        depth,
        true,
      ),
    );
  }
  for (const w of un.writes) out.push(...judgePathWord(w, ctx, "write"));
  for (const w of un.reads) out.push(...judgePathWord(w, ctx, "read"));
  out.push(...gitConfigWrites(effective, ctx));

  // A program the checker cannot name, names that may mean other programs now, code bash
  // evaluates from values, a variable that makes programs load other code: with deny or ask
  // rules for Bash, it could be what they name, so even bypassPermissions asks.
  const unnamed = (un.dynamic ? un.opaque : undefined) ?? namesChanged ?? evaluated ?? env.hidden;
  if (unnamed && ctx.guarded.bash)
    return [
      ...out,
      ask(`\`${full}\` cannot be checked against the Bash deny and ask rules: ${unnamed}`, [], true),
    ];

  const danger = dangerReason(effective, cmd.pipedInput, facts(ctx));
  if (danger) {
    if (ctx.mode === "plan") return [...out, deny(`plan mode: \`${full}\` ${danger}`)];
    const exact = findRule(ctx, "allow", [all[0]!], true);
    if (exact) return [...out, allow(`\`${full}\` is allowed by rule ${exact}`, exact)];
    return [
      ...out,
      ask(`\`${full}\` is never allowed automatically: ${danger}`, [`${RULE_WORD.bash}(${full})`], true),
    ];
  }

  // Why it cannot count as a read, as a phrase after the command (`x` sets PATH, …).
  const blocker =
    (riskyEnv &&
      `sets ${riskyEnv}, which changes what ${cmd.words.length > 0 && assigned.includes(riskyEnv) ? "later commands run" : "the command runs"}`) ||
    (namesChanged && `runs after ${namesChanged}, so its name may mean another program`) ||
    evaluated ||
    (un.opaque && `runs code the permission checker cannot see (${un.opaque})`) ||
    (un.elevated && "runs with elevated privileges") ||
    (expanded.problem && `cannot be checked: ${expanded.problem}`) ||
    undefined;
  // git's global options were peeled for the rules; the read is judged with them.
  const readWords = un.layers.at(-1)!.via === "git" ? un.layers.at(-2)!.words : effective;
  const classified: ReadOnlyVerdict =
    blocker || un.notRead || appendsArgs || un.appendsArgs
      ? { readOnly: false }
      : classifyReadOnly(readWords);
  const read = classified.readOnly ? readOnlyVerdicts(readWords, classified, cmd, ctx, depth) : undefined;
  const readVerdicts = read && "verdicts" in read ? read.verdicts : undefined;
  // Why it is not read-only, as a note (an option that runs a program, a hostile repository, …).
  const note =
    un.notRead ??
    (read && "reason" in read ? read.reason : undefined) ??
    (classified.readOnly ? undefined : classified.reason);

  // A reader handed a word only known at run time may read any file a Read rule covers.
  if (!classified.readOnly && classified.unseenPath && ctx.guarded.read)
    return [
      ...out,
      ask(
        `\`${full}\` may read a file only known when the shell runs; a deny or ask rule may cover it`,
        [],
        true,
      ),
    ];

  if (ctx.mode === "plan") {
    if (readVerdicts) return [...out, ...readVerdicts];
    const what = blocker ?? (note ? `is not read-only: ${note}` : "may change things");
    return [...out, deny(`plan mode: \`${full}\` ${what}; only read-only commands run while planning`)];
  }

  // Names that may mean other programs, a repository config that runs programs, a variable
  // that changes later commands, code bash evaluates: a prefix rule written for the ordinary
  // program does not cover it (an exact rule still does).
  const ruleOk = !riskyEnv && !namesChanged && !evaluated;
  const special = read !== undefined && "special" in read;
  const allowedBy = ruleOk ? findRule(ctx, "allow", allowLayers(un, all), appendsArgs || special) : undefined;
  if (allowedBy) return [...out, allow(`\`${full}\` is allowed by rule ${allowedBy}`, allowedBy)];
  if (readVerdicts) return [...out, ...readVerdicts];

  const reason = blocker ?? (note ? `needs approval: ${note}` : "needs approval");
  const opaqueOrRisky = riskyEnv || namesChanged || un.opaque || special || evaluated;
  // Candidates only (decide keeps those that alone allow the call): the innermost command
  // that allow rules are matched against.
  const suggestions = opaqueOrRisky
    ? []
    : commandPrefixRules(un.elevated ? cmd.words : ruleWords(unwrap(cmd.words)));
  return [...out, ask(`\`${full}\` ${reason}`, suggestions)];
}

/** A read's verdicts, or why it is not one (`special`: a prefix allow rule does not cover it either). */
type ReadJudgement = { verdicts: Verdict[] } | { reason: string; special?: true };

function readOnlyVerdicts(
  ws: ShellWord[],
  verdict: Extract<ReadOnlyVerdict, { readOnly: true }>,
  cmd: ShellCommand,
  ctx: BashContext,
  depth: number,
): ReadJudgement {
  const { state } = ctx;
  if (verdict.assigns !== undefined) {
    const name = verdict.assigns;
    state.assigned.add(name);
    applyStateEffects({ ...cmd, words: [], assignments: [{ name, value: ws[0]! }] }, state);
    if (isRiskyEnv(name))
      return { reason: `it sets ${name}, which changes what later commands run`, special: true };
  }
  const out: Verdict[] = [];
  for (const p of verdict.reads) out.push(...judgePathWord(p, ctx, "read"));
  for (const p of verdict.writes) out.push(...judgePathWord(p, ctx, "write"));
  if (verdict.git) {
    const risk = gitRisk(verdict.git.dirs, ctx, optionalLocksOff(verdict.git.refreshesIndex, cmd, ctx));
    if (risk) return { reason: risk, special: true };
    for (const d of verdict.git.dirs) out.push(...judgePathWord(d, ctx, "read"));
  }
  if (verdict.cd !== undefined) {
    const cdpath = state.cdpath || cmd.assignments.some((a) => a.name === "CDPATH");
    moveCwd(verdict.cd, cdpath, cmd.certain === true && depth === 0, verdict.cdPhysical === true, ctx);
  }
  if (out.every((v) => v.behavior === "allow"))
    return { verdicts: [allow(`\`${display(ws)}\` only reads inside the workspace`)] };
  return { verdicts: out };
}

/** A bare relative name (`cd src`) is looked up on CDPATH first. */
const CDPATH_APPLIES = /^(?!\.{1,2}(\/|$))[^/]/;

/**
 * After `cd`: where later commands may run, kept as bash's logical $PWD (`cd link/..` returns
 * to where it started; paths from there still resolve physically). A cd that surely runs (see
 * ShellCommand.certain) into an existing directory moves them there; any other keeps the old
 * directories possible too. A script nested in `sh -c` runs in a child shell: never moves.
 */
function moveCwd(
  target: ShellWord | "home" | "unknown",
  cdpath: boolean,
  sure: boolean,
  physical: boolean,
  ctx: BashContext,
): void {
  const { state } = ctx;
  if (!state.cwds) return;
  if (target === "unknown") {
    state.cwds = undefined;
    return;
  }
  if (target === "home") {
    state.cwds = state.home ? [...state.cwds, state.home] : undefined;
    return;
  }
  const word = resolveWord(target, ctx);
  if (!word.static || (cdpath && CDPATH_APPLIES.test(word.value))) {
    state.cwds = undefined;
    return;
  }
  const value = word.tilde ? (state.home ? expandHome(word.value, state.home) : undefined) : word.value;
  if (value === undefined) {
    state.cwds = undefined;
    return;
  }
  const moved = state.cwds.map((c) => {
    const to = resolveShellPath(value, c);
    return physical ? to.real : to.lexical;
  });
  const lands = sure && moved.every((m) => statQuiet(m)?.isDirectory());
  state.cwds = lands ? [...new Set(moved)] : [...new Set([...state.cwds, ...moved])];
}

function facts(ctx: BashContext): PathFacts {
  const resolveAll = (w: ShellWord) => {
    const word = resolveWord(w, ctx);
    if (!word.static) return [];
    const value = word.tilde ? expandHome(word.value, ctx.state.home ?? ctx.home) : word.value;
    return (ctx.state.cwds ?? [ctx.workspace]).map((c) => resolveShellPath(value, c));
  };
  return {
    isRootOrHome: (w) =>
      w.static && resolveAll(w).some((t) => [t.lexical, t.real].some((p) => p === "/" || p === ctx.home)),
    isSensitiveWrite: (w) => w.static && resolveAll(w).some((t) => isProtectedWrite(t, ctx)),
  };
}

export { bashRuleMatches } from "./bash-rules.js";
export { commandName };
