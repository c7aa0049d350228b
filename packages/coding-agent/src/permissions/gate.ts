// The approval flow the kernel runs from beforeToolCall: decide, ask a human if needed, remember "always".
import type { Result } from "neverthrow";
import { decide } from "./decide.js";
import type { PermissionDecision, PermissionMode, PermissionRuleEntry, RuleSource } from "./types.js";

export type ApprovalAnswer = "allow_once" | "allow_always" | "deny";
export type PersistScope = "user" | "project" | "projectLocal";

export interface ApprovalRequest {
  tool: string;
  args: unknown;
  toolCallId?: string;
  reason: string;
  /** The rules "allow always" would add. */
  suggestions: string[];
}

export interface ToolCallToCheck {
  tool: string;
  args: unknown;
  toolCallId?: string;
  /** As declared by the tool (AgentTool.sideEffects); used for tools the checker does not know. */
  sideEffects?: boolean;
}

export type GateOutcome =
  | { action: "continue"; decision: PermissionDecision; approvedBy?: "user_once" | "user_always" }
  | { action: "block"; reason: string; decision: PermissionDecision };

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
  ask?: (request: ApprovalRequest) => Promise<ApprovalAnswer>;
  persist: (rule: string, scope: PersistScope) => Promise<Result<unknown, PersistFailure>>;
  /** Where "always allow" rules go; personal by default so nothing is shared by accident. */
  persistScope?: PersistScope;
  onDiagnostic?: (message: string) => void;
}

export interface PermissionGate {
  (call: ToolCallToCheck): Promise<GateOutcome>;
  setMode(mode: PermissionMode): void;
  readonly mode: PermissionMode;
  /** The rules in force, including those added by "always allow" in this process. */
  rules(): readonly PermissionRuleEntry[];
}

const SCOPE_SOURCE: Record<PersistScope, RuleSource> = {
  user: "user",
  project: "project",
  projectLocal: "projectLocal",
};

export function createPermissionGate(options: PermissionGateOptions): PermissionGate {
  let mode = options.mode;
  const rules: PermissionRuleEntry[] = [...options.rules];
  const scope = options.persistScope ?? "projectLocal";

  const evaluate = (call: ToolCallToCheck) =>
    decide({
      tool: call.tool,
      args: call.args,
      mode,
      rules,
      workspace: options.workspace,
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      userHome: options.userHome,
      keelHome: options.keelHome,
      sideEffects: call.sideEffects,
    });

  const check = async (call: ToolCallToCheck): Promise<GateOutcome> => {
    const decision = await evaluate(call);
    if (decision.behavior === "allow") return { action: "continue", decision };
    if (decision.behavior === "deny") return { action: "block", reason: decision.reason, decision };
    if (!options.ask) {
      const reason = `${call.tool} needs the user's approval and nobody can approve it in this run (${decision.reason}). Do not retry it; continue without it or ask the user to allow it (e.g. a permission rule${decision.suggestions?.length ? ` such as ${decision.suggestions.join(", ")}` : ""}).`;
      return { action: "block", reason, decision };
    }
    let answer: ApprovalAnswer;
    try {
      answer = await options.ask({
        tool: call.tool,
        args: call.args,
        toolCallId: call.toolCallId,
        reason: decision.reason,
        suggestions: decision.suggestions ?? [],
      });
    } catch {
      // Fail closed: a broken prompt must not turn into an approval.
      return { action: "block", reason: `the approval prompt failed, so ${call.tool} was not run`, decision };
    }
    if (answer === "deny") return { action: "block", reason: `the user denied ${call.tool}`, decision };
    if (answer === "allow_once") return { action: "continue", decision, approvedBy: "user_once" };

    for (const rule of decision.suggestions ?? []) {
      const saved = await options.persist(rule, scope);
      if (saved.isErr())
        options.onDiagnostic?.(`could not save permission rule ${rule}: ${saved.error.message}`);
      if (!rules.some((r) => r.rule === rule && r.behavior === "allow")) {
        rules.push({ rule, behavior: "allow", source: SCOPE_SOURCE[scope] });
      }
    }
    // Re-check with the new rules: a deny rule still wins, and the outcome reports what applies now.
    const after = await evaluate(call);
    if (after.behavior === "deny") return { action: "block", reason: after.reason, decision: after };
    return { action: "continue", decision: after, approvedBy: "user_always" };
  };

  const gate = check as PermissionGate;
  Object.defineProperty(gate, "mode", { get: () => mode, enumerable: true });
  gate.setMode = (next: PermissionMode) => {
    mode = next;
  };
  gate.rules = () => rules;
  return gate;
}
