// Bash permission rules: how `Bash(npm test:*)`, `Bash(git status)` and `*` inside a word match
// a command's words, which layers of a wrapped command each kind of rule sees, and the words a
// command is shown and suggested by.

import { rulesFor } from "./rules.js";
import type { ShellWord } from "./shell/parser.js";
import type { Unwrapped } from "./shell/wrappers.js";
import type { BashContext } from "./shell-state.js";
import type { PermissionBehavior } from "./types.js";

/** The text a rule is matched against: argv words, unquoted when known, as written otherwise. */
export function words(ws: ShellWord[]): string[] {
  return ws.map((w) => (w.static ? w.value : w.raw));
}

export function display(ws: ShellWord[]): string {
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

export function findRule(
  ctx: BashContext,
  behavior: PermissionBehavior,
  layers: string[][],
  exactOnly = false,
) {
  for (const rule of rulesFor(ctx.rules, behavior, "bash", ctx.tool)) {
    if (layers.some((argv) => bashRuleMatches(rule.specifier, argv, exactOnly))) return rule.entry.rule;
  }
  return undefined;
}

/**
 * Deny and ask rules name programs: `Bash(rm:*)` covers `/usr/bin/rm`, `./rm` and `\rm` as well,
 * so each layer is also matched with its command reduced to its base name.
 */
export function byName(layers: string[][]): string[][] {
  const out = [...layers];
  for (const argv of layers) {
    const first = argv[0];
    if (first?.includes("/")) out.push([first.slice(first.lastIndexOf("/") + 1), ...argv.slice(1)]);
  }
  return out;
}

/** Rules for the inner command count through transparent wrappers only (not sudo, setsid, …). */
export function allowLayers(un: Unwrapped, all: string[][]): string[][] {
  const out = [all[0]!];
  for (let i = 1; i < un.layers.length; i++) {
    if (!un.layers[i]!.transparent) break;
    out.push(all[i]!);
  }
  return out;
}

/** The innermost command that allow rules are matched against: what a suggestion should name. */
export function ruleWords(un: Unwrapped): ShellWord[] {
  let i = 0;
  while (i + 1 < un.layers.length && un.layers[i + 1]!.transparent) i++;
  return un.layers[i]!.words;
}
