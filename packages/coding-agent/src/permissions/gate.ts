// The approval flow the kernel runs from beforeToolCall: decide, ask a human if needed, remember "always".
import type { ToolDeclaration } from "@keel/extension-sdk";
import type { Result } from "neverthrow";
import { decide } from "./decide.js";
import type { GateSandbox } from "./sandboxed.js";
import type {
  PermissionDecision,
  PermissionMode,
  PermissionRequest,
  PermissionRuleEntry,
  RuleSource,
} from "./types.js";

/**
 * The user's answer. `allow_always` may name which of the offered rules to save (default: the
 * first, the narrowest); `deny` may carry the user's words for the model ("do X instead").
 */
export type GateAnswer =
  | { decision: "allow_once" }
  | { decision: "allow_always"; rule?: string }
  | { decision: "deny"; reason?: string };
export type PersistScope = "user" | "project" | "projectLocal";

export interface ApprovalRequest {
  tool: string;
  args: unknown;
  toolCallId?: string;
  reason: string;
  /** The rules "allow always" may save, narrowest first; empty when "always" is not offered. */
  suggestions: string[];
  /** Passed through from the call: the child agent asking, for the dialog to name. */
  agent?: { agentId: string; title: string };
  /** Passed through from the call: what the tool declares (its preview, for the dialog). */
  declaration?: ToolDeclaration;
  /** Passed through from the call: the catalog entry it runs, for the dialog to name. */
  catalogEntry?: PermissionRequest["catalogEntry"];
}

export interface ToolCallToCheck {
  tool: string;
  args: unknown;
  toolCallId?: string;
  /** What the tool declares (access, argument roles, preview); absent: undeclared, the most dangerous kind. */
  declaration?: ToolDeclaration;
  catalogEntry?: PermissionRequest["catalogEntry"];
  approval?: PermissionRequest["approval"];
  agent?: { agentId: string; title: string };
}

/**
 * Who blocked a call: a deny rule, the permission mode (plan, dontAsk), nobody being there to ask
 * (headless, or the prompt failed), the user. ("policy", an extension's veto, is the kernel's.)
 */
export type GateDenier = "rule" | "mode" | "headless" | "user";

export type GateOutcome =
  | { action: "continue"; decision: PermissionDecision; approvedBy?: "user_once" | "user_always" }
  | { action: "block"; reason: string; decision: PermissionDecision; by: GateDenier };

/** Something JSON-safe to report when persisting a rule fails; the call itself still goes on. */
export interface PersistFailure {
  type: string;
  message: string;
}

export interface PermissionGateOptions {
  mode: PermissionMode;
  rules: readonly PermissionRuleEntry[];
  workspace: string;
  /** Where the tools run, when not the workspace root: relative paths resolve against it. */
  cwd?: string;
  /** The user's home directory (for `~`); not the Keel home. */
  userHome?: string;
  keelHome?: string;
  /** Interactive approval; absent in headless runs, where an ask becomes a deny with a reason. */
  ask?: (request: ApprovalRequest) => Promise<GateAnswer>;
  persist: (rule: string, scope: PersistScope) => Promise<Result<unknown, PersistFailure>>;
  /**
   * Where "always allow" rules go; personal to this project by default so nothing is shared or
   * widened by accident. "session": kept for this process only, never written.
   */
  persistScope?: PersistScope | "session";
  onDiagnostic?: (message: string) => void;
  /** The OS sandbox a Bash command would run in, in a mode (absent: judged by parsing alone). */
  sandbox?: (mode: PermissionMode) => Promise<GateSandbox>;
  /** Test-only (see PermissionRequest.forceParserAllow). */
  forceParserAllow?: boolean;
}

export interface PermissionGate {
  (call: ToolCallToCheck): Promise<GateOutcome>;
  setMode(mode: PermissionMode): void;
  readonly mode: PermissionMode;
  /** The rules in force, including those added by "always allow" in this process. */
  rules(): readonly PermissionRuleEntry[];
  /** Adds rules for this process only (source "session"); returns a function that takes them back. */
  addSessionRules(rules: readonly string[]): () => void;
  /**
   * Puts a rule in force (`present`) or takes it out, from now on (a UI's rule editor; the
   * caller saves it in its config file). Taking out removes every copy from that source.
   */
  setRule(entry: PermissionRuleEntry, present: boolean): void;
}

const SCOPE_SOURCE: Record<PersistScope | "session", RuleSource> = {
  user: "user",
  project: "project",
  projectLocal: "projectLocal",
  session: "session",
};

const runsCommands = (declaration: ToolDeclaration | undefined) =>
  declaration?.access === "exec" && declaration.args?.commands !== undefined;

export function createPermissionGate(options: PermissionGateOptions): PermissionGate {
  let mode = options.mode;
  const rules: PermissionRuleEntry[] = [...options.rules];
  const scope = options.persistScope ?? "projectLocal";

  const evaluate = async (call: ToolCallToCheck) =>
    decide({
      tool: call.tool,
      args: call.args,
      mode,
      rules,
      workspace: options.workspace,
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      userHome: options.userHome,
      keelHome: options.keelHome,
      ...(call.declaration ? { declaration: call.declaration } : {}),
      ...(call.catalogEntry ? { catalogEntry: call.catalogEntry } : {}),
      ...(call.approval ? { approval: call.approval } : {}),
      // The commands an exec tool declares run in the sandbox: what it confines changes the verdict.
      ...(options.sandbox && runsCommands(call.declaration) && !call.catalogEntry
        ? { sandbox: await options.sandbox(mode) }
        : {}),
      ...(options.forceParserAllow ? { forceParserAllow: true } : {}),
    });

  const check = async (call: ToolCallToCheck): Promise<GateOutcome> => {
    const decision = await evaluate(call);
    if (decision.behavior === "allow") return { action: "continue", decision };
    if (decision.behavior === "deny") {
      return { action: "block", reason: decision.reason, decision, by: decision.rule ? "rule" : "mode" };
    }
    if (!options.ask) {
      const reason = `${call.tool} needs the user's approval and nobody can approve it in this run (${decision.reason}). Do not retry it; continue without it or ask the user to allow it (e.g. a permission rule${decision.suggestions?.length ? ` such as ${decision.suggestions.join(" or ")}` : ""}).`;
      return { action: "block", reason, decision, by: "headless" };
    }
    let answer: GateAnswer;
    try {
      answer = await options.ask({
        tool: call.tool,
        args: call.args,
        toolCallId: call.toolCallId,
        reason: decision.reason,
        suggestions: decision.suggestions ?? [],
        ...(call.agent ? { agent: call.agent } : {}),
        ...(call.declaration ? { declaration: call.declaration } : {}),
        ...(call.catalogEntry ? { catalogEntry: call.catalogEntry } : {}),
      });
    } catch {
      // Fail closed: a broken prompt must not turn into an approval.
      return {
        action: "block",
        reason: `the approval prompt failed, so ${call.tool} was not run`,
        decision,
        by: "headless",
      };
    }
    if (answer.decision === "deny") {
      const said = answer.reason?.trim();
      const reason = said ? `the user denied ${call.tool} and said: ${said}` : `the user denied ${call.tool}`;
      return { action: "block", reason, decision, by: "user" };
    }
    if (answer.decision === "allow_once") return { action: "continue", decision, approvedBy: "user_once" };

    // One rule is saved: the one picked, else the narrowest. Each offered rule alone covers the
    // call, and an answer naming any other rule must not widen what the dialog showed.
    const offered = decision.suggestions ?? [];
    const rule = answer.rule ?? offered[0];
    if (rule === undefined || !offered.includes(rule)) {
      if (answer.rule !== undefined)
        options.onDiagnostic?.(
          `"always" named ${answer.rule}, which was not offered; allowed once, nothing saved`,
        );
      return { action: "continue", decision, approvedBy: "user_once" };
    }
    if (scope !== "session") {
      const saved = await options.persist(rule, scope);
      if (saved.isErr())
        options.onDiagnostic?.(`could not save permission rule ${rule}: ${saved.error.message}`);
    }
    if (!rules.some((r) => r.rule === rule && r.behavior === "allow")) {
      rules.push({ rule, behavior: "allow", source: SCOPE_SOURCE[scope] });
    }
    // Re-check with the new rule: a deny rule still wins, and the outcome reports what applies now.
    const after = await evaluate(call);
    if (after.behavior === "deny")
      return { action: "block", reason: after.reason, decision: after, by: "rule" };
    return { action: "continue", decision: after, approvedBy: "user_always" };
  };

  const gate = check as PermissionGate;
  Object.defineProperty(gate, "mode", { get: () => mode, enumerable: true });
  gate.setMode = (next: PermissionMode) => {
    mode = next;
  };
  gate.rules = () => rules;
  gate.addSessionRules = (added) => {
    const entries: PermissionRuleEntry[] = added.map((rule) => ({
      rule,
      behavior: "allow",
      source: "session",
    }));
    rules.push(...entries);
    return () => {
      for (const entry of entries) {
        const at = rules.indexOf(entry);
        if (at >= 0) rules.splice(at, 1);
      }
    };
  };
  gate.setRule = (entry, present) => {
    const same = (r: PermissionRuleEntry) =>
      r.rule === entry.rule && r.behavior === entry.behavior && r.source === entry.source;
    if (present) {
      if (!rules.some(same)) rules.push({ ...entry });
      return;
    }
    for (let i = rules.length - 1; i >= 0; i--) if (same(rules[i]!)) rules.splice(i, 1);
  };
  return gate;
}
