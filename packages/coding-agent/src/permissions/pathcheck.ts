// Judges one file path for reading or writing: rules, workspace containment, protected files.
import { join } from "node:path";
import {
  compilePathPattern,
  isInside,
  type PathPattern,
  patternMatches,
  type ResolvedPath,
  workspaceRelative,
} from "./paths.js";
import { HOME_PROTECTED, WORKSPACE_PROTECTED_FOR_TOOLS } from "./protected-paths.js";
import { type JudgedTool, rulesFor } from "./rules.js";
import { pathRules } from "./suggest.js";
import type { PermissionMode, PermissionRuleEntry } from "./types.js";
import { allow, ask, deny, type Verdict } from "./verdict.js";

export interface PathContext {
  mode: PermissionMode;
  rules: readonly PermissionRuleEntry[];
  /** realpath of the workspace. */
  workspace: string;
  home: string;
  /** realpath of the Keel home (trust.json and the user config live there). */
  keelHome: string;
  /**
   * Rule patterns compiled during one decision (compiling resolves their literal prefix on disk,
   * and one command can name hundreds of paths once its globs are expanded).
   */
  patterns?: Map<string, PathPattern>;
  /** The tool being judged, within its family: rules naming it (`Glob(src/**)`) join the family's. */
  tool?: JudgedTool;
}

const protectedBases = new Map<string, string[]>();

export function isProtectedWrite(
  target: ResolvedPath,
  ctx: Pick<PathContext, "workspace" | "home" | "keelHome">,
): boolean {
  const key = `${ctx.keelHome}\0${ctx.home}\0${ctx.workspace}`;
  let bases = protectedBases.get(key);
  if (!bases) {
    bases = [
      ctx.keelHome,
      ...HOME_PROTECTED.map((p) => join(ctx.home, p)),
      ...WORKSPACE_PROTECTED_FOR_TOOLS.map((p) => join(ctx.workspace, p)),
      "/etc",
    ];
    if (protectedBases.size > 64) protectedBases.clear();
    protectedBases.set(key, bases);
  }
  return bases.some((b) => isInside(target.lexical, b) || isInside(target.real, b));
}

export function isInKeelHome(target: ResolvedPath, ctx: Pick<PathContext, "keelHome">): boolean {
  return isInside(target.real, ctx.keelHome) || isInside(target.lexical, ctx.keelHome);
}

function compiled(ctx: PathContext, specifier: string): PathPattern {
  const hit = ctx.patterns?.get(specifier);
  if (hit) return hit;
  const pattern = compilePathPattern(specifier, ctx.workspace, ctx.home);
  ctx.patterns?.set(specifier, pattern);
  return pattern;
}

function matching(
  ctx: PathContext,
  behavior: "allow" | "ask" | "deny",
  family: "read" | "edit",
  target: ResolvedPath,
) {
  return rulesFor(ctx.rules, behavior, family, ctx.tool).find(
    (r) =>
      r.specifier === undefined ||
      patternMatches(compiled(ctx, r.specifier), target, behavior === "allow" ? "allow" : "deny"),
  );
}

function describe(target: ResolvedPath, ctx: PathContext): string {
  const rel = workspaceRelative(target.real, ctx.workspace);
  if (rel !== undefined) return rel === "" ? "the workspace root" : rel;
  return target.real === target.lexical ? target.real : `${target.lexical} (really ${target.real})`;
}

export function judgeRead(target: ResolvedPath, ctx: PathContext): Verdict {
  const what = describe(target, ctx);
  const denied = matching(ctx, "deny", "read", target);
  if (denied) return deny(`reading ${what} is denied by rule ${denied.entry.rule}`, denied.entry.rule);
  const asked = matching(ctx, "ask", "read", target);
  if (asked)
    return {
      ...ask(`rule ${asked.entry.rule} asks before reading ${what}`, [], true),
      rule: asked.entry.rule,
    };
  const allowed = matching(ctx, "allow", "read", target);
  if (allowed) return allow(`reading ${what} is allowed by rule ${allowed.entry.rule}`, allowed.entry.rule);
  // Keel's home is never part of the workspace, also when keel was started in ~.
  if (isInKeelHome(target, ctx)) return ask(`reads ${what}, in Keel's home (credentials, sessions)`, []);
  if (isInside(target.real, ctx.workspace)) return allow(`reads inside the workspace`);
  return ask(`reads ${what}, outside the workspace`, pathRules("read", target, ctx));
}

export function judgeWrite(target: ResolvedPath, ctx: PathContext): Verdict {
  const what = describe(target, ctx);
  const denied = matching(ctx, "deny", "edit", target);
  if (denied) return deny(`writing ${what} is denied by rule ${denied.entry.rule}`, denied.entry.rule);
  if (ctx.mode === "plan") return deny(`plan mode: writing ${what} is not allowed while planning`);
  const asked = matching(ctx, "ask", "edit", target);
  if (asked)
    return {
      ...ask(`rule ${asked.entry.rule} asks before writing ${what}`, [], true),
      rule: asked.entry.rule,
    };
  // Before allow rules: `Edit(**)` or acceptEdits must not let a tool write what runs code later
  // or widens what Keel may do (a skill's allowed-tools, a hook, an MCP server).
  if (isProtectedWrite(target, ctx)) {
    return ask(
      `writes ${what}, a protected file (shell startup, credentials, git, Keel or agent config)`,
      [],
      true,
    );
  }
  const allowed = matching(ctx, "allow", "edit", target);
  if (allowed) return allow(`writing ${what} is allowed by rule ${allowed.entry.rule}`, allowed.entry.rule);
  const inside = isInside(target.real, ctx.workspace);
  if (inside && ctx.mode === "acceptEdits")
    return allow("acceptEdits mode allows edits inside the workspace");
  const where = inside ? "" : ", outside the workspace";
  return ask(`writes ${what}${where}`, pathRules("edit", target, ctx));
}
