// The vocabulary of the permission matrix's cases: what a case says, the expected behavior per
// mode, and the payload effects the end-to-end run looks for (cases.ts and cases-code.ts use it).
import type { ToolDeclaration } from "@keel/extension-sdk";
import type { PermissionBehavior, PermissionMode } from "../../src/permissions/types.js";

export type Expect = Record<PermissionMode, PermissionBehavior>;

export const MODES: PermissionMode[] = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"];

export const modes = (
  d: PermissionBehavior,
  a: PermissionBehavior,
  p: PermissionBehavior,
  n: PermissionBehavior,
  b: PermissionBehavior,
): Expect => ({
  default: d,
  acceptEdits: a,
  plan: p,
  dontAsk: n,
  bypassPermissions: b,
});
/** Reads inside the workspace (or allowed by a read rule): runs in every mode. */
export const READS = modes("allow", "allow", "allow", "allow", "allow");
/** Not pre-approved: asks, denied where nobody may ask or while planning, runs in bypass. */
export const ASKS = modes("ask", "ask", "deny", "deny", "allow");
/** Asks even in bypass (dangerous, protected, explicit ask rule, or a deny rule it may dodge). */
export const HARD = modes("ask", "ask", "deny", "deny", "ask");
export const DENIED = modes("deny", "deny", "deny", "deny", "deny");
/** A write inside the workspace. */
export const EDITS = modes("ask", "allow", "deny", "deny", "allow");
/** Allowed by an allow rule, but not a read: planning still denies it. */
export const RULED = modes("allow", "allow", "deny", "allow", "allow");

/**
 * What the end-to-end run looks at (paths relative to the fixture root): a file a payload creates,
 * one it removes, or content that must not reach the model. The effect must happen exactly when the
 * decision is allow, unless `never` (the command is harmless when allowed and the effect must
 * never happen at all).
 */
export type Effect = ({ creates: string } | { removes: string } | { leaks: string }) & {
  never?: true;
  /**
   * A file (relative to the fixture root) touched before every run, so git finds its index
   * stale and `git status`/`git diff` write it (which runs a post-index-change hook).
   */
  stale?: string;
};

export type IssueClass =
  | "base"
  | "1 readers that run"
  | "2 git config"
  | "3 unseen paths"
  | "4 spelling"
  | "5 evaluated values"
  | "6 git environment and hooks"
  | "7 runners";

export interface Case {
  name: string;
  class: IssueClass;
  tool?: string;
  /** A Bash command (tool defaults to Bash). */
  cmd?: string;
  args?: Record<string, unknown>;
  allow?: string[];
  ask?: string[];
  deny?: string[];
  /** What the tool declares, for tools that are not built-in (built-ins bring their own). */
  declaration?: ToolDeclaration;
  /** Another workspace of the fixture instead of the clean one (see fixture.ts). */
  workspace?: "hostile" | "hooked" | "hookspath";
  /** Where the agent runs, relative to the workspace (the project root stays the workspace). */
  cwd?: string;
  expect: Expect;
  reason?: RegExp;
  /** The rule that decided, checked in default mode. */
  rule?: string;
  /** A suggestion the default-mode ask offers. */
  suggests?: string;
  e2e?: Effect;
}

export const tag = (cls: IssueClass, list: Omit<Case, "class">[]): Case[] =>
  list.map((c) => ({ ...c, class: cls }));

export const SSH_DENY = ["Read(~/.ssh/**)"];
export const RM_DENY = ["Bash(rm:*)"];
export const PWNED = { creates: "ws/PWNED" };
export const VICTIM = { removes: "ws/victim.txt" };
