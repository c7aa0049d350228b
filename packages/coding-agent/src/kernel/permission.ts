// Bridges the permission gate to the kernel: the host's approval dialog, persistence of
// "always allow" rules, and trust kept valid across the kernel's own writes to project config.
import { ok } from "neverthrow";
import { addPermissionRule, configFileFor } from "../config/write.js";
import { createPermissionGate } from "../permissions/gate.js";
import { readGuardFor } from "../permissions/read-scope.js";
import type { PermissionMode, PermissionRuleEntry } from "../permissions/types.js";
import type { WalkGuard } from "../tools/walk.js";
import { renewProjectHash, trustStatus } from "../trust/store.js";
import type { ToolPermission } from "./seams.js";
import type { HostUI } from "./types.js";

export interface ToolPermissionOptions {
  mode: PermissionMode;
  rules: readonly PermissionRuleEntry[];
  workspace: string;
  /** Where the tools run (relative paths resolve against it); default: the workspace. */
  cwd?: string;
  /** The Keel home (config, trust store). */
  keelHome: string;
  /** The user's home directory, for `~` in rules and paths. */
  userHome: string;
  trusted: boolean;
  ui: HostUI | undefined;
  report: (message: string) => void;
  /** Hears every answer a person gave (journaled for the audit trail). */
  onAnswer?: (answer: ApprovalRecord) => void;
}

export interface ApprovalRecord {
  subject: string;
  toolCallId?: string;
  agentId?: string;
  decision: "allow_once" | "allow_always" | "deny";
  rule?: string;
  reason?: string;
}

/** The kernel's permission check, plus run-scoped grants (a skill's allowed-tools). */
export interface KernelPermission {
  check: ToolPermission;
  /** Allows `rules` until the current run ends (`endRun`). */
  allowForRun(rules: readonly string[]): void;
  endRun(): void;
  /** What Grep, Glob and LS may walk into below `root`, under the rules and mode in force now. */
  readGuard(root: string): WalkGuard;
}

export function createToolPermission(options: ToolPermissionOptions): KernelPermission {
  const approve = options.ui?.approve;
  // "Always" is personal to this project: its .keel/config.local.json. An untrusted project's
  // config is not read (and Keel writes nothing into it), so there "always" lasts for the
  // session; never the user's config, which would allow the call in every project.
  const scope = options.trusted ? "projectLocal" : "session";
  const savesTo =
    scope === "projectLocal"
      ? configFileFor(scope, { keelHome: options.keelHome, projectRoot: options.workspace })
      : undefined;
  const gate = createPermissionGate({
    mode: options.mode,
    rules: options.rules,
    workspace: options.workspace,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    userHome: options.userHome,
    keelHome: options.keelHome,
    persistScope: scope,
    ...(approve
      ? {
          ask: async (request) => {
            const answer = await approve({
              kind: "tool",
              toolName: request.tool,
              toolCallId: request.toolCallId ?? "",
              args: (request.args ?? {}) as Record<string, unknown>,
              reason: request.reason,
              ...(request.agent ? { agent: { id: request.agent.agentId, title: request.agent.title } } : {}),
              alwaysRules: request.suggestions,
              ...(request.suggestions.length > 0 && savesTo ? { alwaysSavesTo: savesTo } : {}),
            });
            // "This exact call" is an extension-question answer; for a tool call it means once.
            const gateAnswer =
              answer.decision === "allow_exact" ? ({ decision: "allow_once" } as const) : answer;
            options.onAnswer?.({
              subject: request.tool,
              ...(request.toolCallId ? { toolCallId: request.toolCallId } : {}),
              ...(request.agent ? { agentId: request.agent.agentId } : {}),
              decision: gateAnswer.decision,
              ...(gateAnswer.decision === "allow_always"
                ? { rule: gateAnswer.rule ?? request.suggestions[0] }
                : {}),
              ...(gateAnswer.decision === "deny" && gateAnswer.reason ? { reason: gateAnswer.reason } : {}),
            });
            return gateAnswer;
          },
        }
      : {}),
    persist: async (rule, scope) => {
      const where = { keelHome: options.keelHome, projectRoot: options.workspace };
      const wasTrusted =
        scope !== "user" &&
        trustStatus(options.workspace, { home: options.keelHome }).unwrapOr("untrusted") === "trusted";
      const written = addPermissionRule(rule, "allow", scope, where);
      if (written.isErr()) return written;
      // The kernel's own write of an approved rule must not make a trusted project untrusted
      // (nor approve anything else that changed: the context files keep their approvals).
      if (wasTrusted) renewProjectHash(options.workspace, { home: options.keelHome });
      return ok(written.value);
    },
    onDiagnostic: options.report,
  });
  let grants: (() => void)[] = [];
  const check: ToolPermission = async (call) => {
    const outcome = await gate({
      tool: call.toolName,
      args: call.args,
      toolCallId: call.toolCallId,
      sideEffects: call.sideEffects,
      approval: call.approval,
      ...(call.catalogEntry ? { catalogEntry: call.catalogEntry } : {}),
      ...(call.agent ? { agent: call.agent } : {}),
    });
    return outcome.action === "continue"
      ? { action: "continue" }
      : { action: "block", reason: outcome.reason, by: outcome.by };
  };
  return {
    check,
    allowForRun: (rules) => {
      grants.push(gate.addSessionRules(rules));
    },
    endRun: () => {
      for (const takeBack of grants) takeBack();
      grants = [];
    },
    readGuard: (root) =>
      readGuardFor(
        {
          mode: gate.mode,
          rules: gate.rules(),
          workspace: options.workspace,
          userHome: options.userHome,
          keelHome: options.keelHome,
        },
        root,
      ),
  };
}
