// What a walking tool (Grep, Glob, LS) may list or read below a root the permission check
// admitted: never an entry a Read deny or ask rule covers, and never a symlink that leads out of
// the root and the workspace unless a Read allow rule covers its target — whatever the mode.
import { realpathSync } from "node:fs";
import type { GuardedEntry, WalkGuard } from "../tools/walk.js";
import { pathContext } from "./decide.js";
import { isInKeelHome, type PathContext } from "./pathcheck.js";
import {
  compilePathPattern,
  isInside,
  type PathPattern,
  patternMatches,
  workspaceRelative,
} from "./paths.js";
import { rulesFor } from "./rules.js";
import type { PermissionRequest } from "./types.js";

interface Compiled {
  rule: string;
  pattern: PathPattern | undefined;
}

function compile(ctx: PathContext, behavior: "allow" | "ask" | "deny"): Compiled[] {
  return rulesFor(ctx.rules, behavior, "read").map((r) => ({
    rule: r.entry.rule,
    pattern: r.specifier === undefined ? undefined : compilePathPattern(r.specifier, ctx.workspace, ctx.home),
  }));
}

/** `realRoot` is where the walk starts, resolved; rules are compiled once per walk. */
export function createReadGuard(ctx: PathContext, realRoot: string): WalkGuard {
  const denied = compile(ctx, "deny");
  const asked = compile(ctx, "ask");
  const allowed = compile(ctx, "allow");
  const hit = (list: Compiled[], e: GuardedEntry, purpose: "allow" | "deny") =>
    list.find(
      (c) => c.pattern === undefined || patternMatches(c.pattern, { lexical: e.path, real: e.real }, purpose),
    );
  const shown = (path: string) => {
    const rel = workspaceRelative(path, ctx.workspace);
    return rel === undefined ? path : rel === "" ? "the workspace" : rel;
  };
  return {
    admit(e) {
      const deny = hit(denied, e, "deny");
      if (deny) return `denied by rule ${deny.rule}`;
      const ask = hit(asked, e, "deny");
      if (ask) return `rule ${ask.rule} asks before reading it; Read it directly`;
      if (isInKeelHome({ lexical: e.path, real: e.real }, ctx)) return "Keel's home (credentials, sessions)";
      if (!e.symlink || isInside(e.real, realRoot) || isInside(e.real, ctx.workspace)) return undefined;
      if (hit(allowed, e, "allow")) return undefined;
      return `a symbolic link to ${shown(e.real)}, outside the workspace`;
    },
  };
}

/** The guard for the rules and mode in force now, for a walk from `root`. */
export function readGuardFor(
  request: Pick<PermissionRequest, "mode" | "rules" | "workspace" | "userHome" | "keelHome">,
  root: string,
): WalkGuard {
  let realRoot = root;
  try {
    realRoot = realpathSync(root);
  } catch {
    // the walk will report the missing root itself
  }
  return createReadGuard(pathContext(request), realRoot);
}
