// What the shell makes of a word before a command sees it ($HOME, ~user, globs against the real
// filesystem), and the judgement of the paths a command reads or writes, redirects included.
import { readFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import { expandGlob } from "./glob-expand.js";
import { judgeRead, judgeWrite } from "./pathcheck.js";
import { expandHome, resolveShellPath } from "./paths.js";
import type { ShellRedirect, ShellWord } from "./shell/parser.js";
import type { BashContext } from "./shell-state.js";
import { ask, deny, type Verdict } from "./verdict.js";

let passwd: Map<string, string> | undefined;

/** `~user`: the home directory /etc/passwd gives (NSS-only users stay unknown). */
function homeOf(user: string): string | undefined {
  if (!passwd) {
    passwd = new Map();
    try {
      for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
        const f = line.split(":");
        if (f.length >= 7 && f[0]) passwd.set(f[0], f[5]!);
      }
    } catch {
      // no passwd file: every ~user stays unknown
    }
  }
  return passwd.get(user);
}

function variable(name: string, ctx: BashContext): string | undefined {
  const { state } = ctx;
  if (state.assigned.has(name)) return undefined;
  if (name === "HOME") return state.home;
  if (name === "PWD") return state.cwds?.length === 1 ? state.cwds[0] : undefined;
  return undefined;
}

/** Fills in `$HOME`, `${HOME}`, `$PWD` and `~user` when their values are known. */
export function resolveWord(w: ShellWord, ctx: BashContext): ShellWord {
  if (w.static || !w.parts) return w;
  let value = "";
  for (const part of w.parts) {
    if ("text" in part) value += part.text;
    else if ("user" in part) {
      const home = homeOf(part.user);
      if (home === undefined) return w;
      value += home;
    } else {
      const v = variable(part.variable, ctx);
      // Unquoted, a value with blanks or glob characters would split or expand.
      if (v === undefined || (!part.quoted && /[\s*?[]/.test(v))) return w;
      value += v;
    }
  }
  return { value, static: true, raw: w.raw, tilde: false };
}

export interface Expanded {
  words: ShellWord[];
  /** Why some word could not be expanded; its command is then not judged read-only. */
  problem?: string;
}

/** The argv the command really gets: variables filled in and globs expanded in every possible cwd. */
export function expandWords(words: readonly ShellWord[], ctx: BashContext): Expanded {
  const out: ShellWord[] = [];
  let problem: string | undefined;
  for (const original of words) {
    const w = resolveWord(original, ctx);
    if (!w.static || w.glob === undefined) {
      out.push(w);
      continue;
    }
    const matches = expandOne(w, ctx);
    if (typeof matches === "string") {
      problem ??= matches;
      out.push(w);
    } else if (matches.length === 0) {
      const { glob: _, ...literal } = w;
      out.push(literal);
    } else out.push(...matches.map((m) => ({ value: m, static: true, raw: m, tilde: false })));
  }
  return problem ? { words: out, problem } : { words: out };
}

function expandOne(w: ShellWord, ctx: BashContext): string[] | string {
  const { state } = ctx;
  if (state.globsChanged) return `the pattern ${w.raw} may expand differently after shopt or set`;
  let pattern = w.glob!;
  if (w.tilde) {
    if (state.home === undefined) return `the pattern ${w.raw} depends on a HOME the script changed`;
    pattern = expandHome(pattern, state.home.replace(/[\\*?[]/g, "\\$&"));
  }
  const cwds = isAbsolute(pattern) ? [ctx.workspace] : state.cwds;
  if (!cwds) return `the pattern ${w.raw} is expanded in a directory only known when the shell runs`;
  const all = new Set<string>();
  for (const cwd of cwds) {
    const expansion = expandGlob(pattern, cwd);
    if (expansion.isErr()) return expansion.error.message;
    for (const m of expansion.value) all.add(m);
  }
  return [...all];
}

const unjudgeable = (reason: string, ctx: BashContext, access: "read" | "write"): Verdict => {
  const hard = access === "read" ? ctx.guarded.read : ctx.guarded.edit;
  return ask(hard ? `${reason}; a deny or ask rule may cover it` : reason, [], hard);
};

export function judgePathWord(w: ShellWord, ctx: BashContext, access: "read" | "write"): Verdict[] {
  const word = resolveWord(w, ctx);
  if (!word.static)
    return [unjudgeable(`uses a path only known when the shell runs (${w.raw})`, ctx, access)];
  let value = word.value;
  if (word.tilde) {
    if (ctx.state.home === undefined)
      return [unjudgeable(`uses ${w.raw} after the script changed HOME`, ctx, access)];
    value = expandHome(value, ctx.state.home);
  }
  const relative = !value.startsWith("/");
  const cwds = relative ? ctx.state.cwds : [ctx.workspace];
  if (!cwds)
    return [
      unjudgeable(`uses ${w.raw} after a cd to a directory only known when the shell runs`, ctx, access),
    ];
  return cwds.map((cwd) => {
    const target = resolveShellPath(value, cwd);
    return access === "read" ? judgeRead(target, ctx) : judgeWrite(target, ctx);
  });
}

const HARMLESS_DEVICES = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

export function judgeRedirect(r: ShellRedirect, ctx: BashContext): Verdict[] {
  if (r.kind === "dup" || !r.target) return [];
  const expanded = expandWords([r.target], ctx);
  if (expanded.problem) return [unjudgeable(expanded.problem, ctx, r.kind === "read" ? "read" : "write")];
  const out: Verdict[] = [];
  for (const target of expanded.words) {
    if (target.static && HARMLESS_DEVICES.test(target.value)) continue;
    if (r.kind === "write" && target.static && target.value.startsWith("/dev/")) {
      out.push(
        ctx.mode === "plan"
          ? deny(`plan mode: writes the device ${target.value}`)
          : ask(`writes the device ${target.value}`, [], true),
      );
      continue;
    }
    if (r.kind === "write" && ctx.mode === "plan") {
      out.push(deny(`plan mode: \`${r.op} ${r.target.raw}\` writes a file`));
      continue;
    }
    out.push(...judgePathWord(target, ctx, r.kind === "read" ? "read" : "write"));
  }
  return out;
}
