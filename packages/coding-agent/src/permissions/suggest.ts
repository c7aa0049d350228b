// What "always allow" may save, never broader than what was asked: the candidate rules for one
// part of a call (narrowest first), the exact-command rule for a whole Bash call and how it
// matches, and the filter that keeps only candidates that alone allow the call.
import { dirname } from "node:path";
import type { PathContext } from "./pathcheck.js";
import { isInside, type ResolvedPath, workspaceRelative } from "./paths.js";
import { RULE_WORD, rulesFor } from "./rules.js";
import type { ShellWord } from "./shell/parser.js";
import type { PermissionRuleEntry } from "./types.js";
import { allow, type Verdict } from "./verdict.js";

/** A prefix rule keeps at most this many words: longer ones are the exact command's business. */
const MAX_PREFIX_WORDS = 3;

/** A word a prefix rule can spell: rules split on whitespace and read `*` as a wildcard. */
const PLAIN_WORD = /^[^\s*]+$/;

/**
 * Prefix rules for one simple command, narrowest first: `rm -f x` → `Bash(rm -f x:*)`,
 * `Bash(rm -f:*)`. Never the bare program (`Bash(rm:*)` would allow every rm) unless the command
 * is the program alone (`make` → `Bash(make:*)`); nothing past a word only the shell knows.
 */
export function commandPrefixRules(ws: readonly ShellWord[]): string[] {
  const usable: string[] = [];
  for (const w of ws) {
    if (!w.static || !PLAIN_WORD.test(w.value)) break;
    usable.push(w.value);
  }
  const shortest = ws.length === 1 ? 1 : 2;
  const out: string[] = [];
  for (let k = Math.min(usable.length, MAX_PREFIX_WORDS); k >= shortest; k--) {
    out.push(`${RULE_WORD.bash}(${usable.slice(0, k).join(" ")}:*)`);
  }
  return out;
}

/** `Bash(<the command as written>)`, or undefined when that text would read as a prefix rule. */
export function exactCommandRule(command: string): string | undefined {
  const text = command.trim();
  if (text === "" || isPrefixSpecifier(text)) return undefined;
  return `${RULE_WORD.bash}(${text})`;
}

function isPrefixSpecifier(specifier: string): boolean {
  return specifier.endsWith(":*") || specifier.endsWith(" *");
}

/**
 * An allow rule that is exactly this command line allows every part of it a rule could allow
 * (what asks with suggestions). Deny verdicts stay, and so do asks no rule may remember: explicit
 * ask rules, unparseable or opaque code, values only known at run time, protected files.
 */
export function applyExactCommandRule(
  command: string,
  verdicts: Verdict[],
  rules: readonly PermissionRuleEntry[],
): Verdict[] {
  const text = command.trim();
  const rule = rulesFor(rules, "allow", "bash").find((r) => r.specifier === text && !isPrefixSpecifier(text))
    ?.entry.rule;
  if (!rule) return verdicts;
  return verdicts.map((v) =>
    v.behavior === "ask" && (v.suggestions?.length ?? 0) > 0
      ? allow(`\`${text}\` is allowed by rule ${rule}`, rule)
      : v,
  );
}

/**
 * Rules for one path, narrowest first: the file itself, then its directory — unless that is the
 * workspace root, the home directory or `/` (`Edit(**)` for README.md is acceptEdits mode, not
 * an answer to one edit). Written as the user would: workspace-relative, `~/…` or absolute.
 */
export function pathRules(family: "read" | "edit", target: ResolvedPath, ctx: PathContext): string[] {
  const tool = RULE_WORD[family];
  // A rule naming a directory covers everything in it: never the root, the home or the workspace.
  const tooBroad = (dir: string) => dir === ctx.workspace || dir === ctx.home || dir === dirname(dir);
  if (tooBroad(target.real)) return [];
  const out: string[] = [];
  const file = spell(target.real, ctx);
  if (!hasWildcard(file)) out.push(`${tool}(${file})`);
  const dir = dirname(target.real);
  if (!tooBroad(dir)) {
    const shown = spell(dir, ctx);
    if (!hasWildcard(shown)) out.push(`${tool}(${shown}/**)`);
  }
  return out;
}

function spell(path: string, ctx: PathContext): string {
  const rel = workspaceRelative(path, ctx.workspace);
  if (rel !== undefined) return rel;
  if (isInside(path, ctx.home)) return `~${path.slice(ctx.home.length)}`;
  return path;
}

function hasWildcard(spec: string): boolean {
  return /[*?[]/.test(spec);
}

/**
 * The candidates that alone turn this call into an allow, in order, without duplicates. `allows`
 * re-judges the call with one more allow rule: a rule is offered only when it covers every part.
 */
export async function coveringRules(
  candidates: readonly string[],
  allows: (rule: string) => Promise<boolean>,
): Promise<string[]> {
  const out: string[] = [];
  for (const rule of new Set(candidates)) if (await allows(rule)) out.push(rule);
  return out;
}
