// Bridges the permission gate to the kernel: the host's approval dialog, persistence of
// "always allow" rules, and trust kept valid across the kernel's own writes to project config.
import { ok } from "neverthrow";
import { addPermissionRule } from "../config/write.js";
import { createPermissionGate } from "../permissions/gate.js";
import { readGuardFor } from "../permissions/read-scope.js";
import type { PermissionMode, PermissionRuleEntry } from "../permissions/types.js";
import type { WalkGuard } from "../tools/walk.js";
import { trustProject, trustStatus } from "../trust/store.js";
import type { ToolPermission } from "./seams.js";
import type { HostUI } from "./types.js";

export interface ToolPermissionOptions {
  mode: PermissionMode;
  rules: readonly PermissionRuleEntry[];
  workspace: string;
  /** Where the tools run (relative paths resolve against it). */
  cwd: string;
  /** The Keel home (config, trust store). */
  keelHome: string;
  /** The user's home directory, for `~` in rules and paths. */
  userHome: string;
  trusted: boolean;
  ui: HostUI | undefined;
  report: (message: string) => void;
}

/** The gate, plus what Grep, Glob and LS may walk into under the same rules. */
export type KernelPermission = ToolPermission & { readGuard(root: string): WalkGuard };

export function createToolPermission(options: ToolPermissionOptions): KernelPermission {
  const approve = options.ui?.approve;
  const gate = createPermissionGate({
    mode: options.mode,
    rules: options.rules,
    workspace: options.workspace,
    cwd: options.cwd,
    userHome: options.userHome,
    keelHome: options.keelHome,
    // Personal project rules only count in a trusted project; otherwise remember them for the user.
    persistScope: options.trusted ? "projectLocal" : "user",
    ...(approve
      ? {
          ask: (request) =>
            approve({
              toolName: request.tool,
              toolCallId: request.toolCallId ?? "",
              args: (request.args ?? {}) as Record<string, unknown>,
              reason: request.reason,
              ...(request.suggestions[0] ? { suggestedRule: request.suggestions[0] } : {}),
            }),
        }
      : {}),
    persist: async (rule, scope) => {
      const where = { keelHome: options.keelHome, projectRoot: options.workspace };
      const wasTrusted =
        scope !== "user" &&
        trustStatus(options.workspace, { home: options.keelHome }).unwrapOr("untrusted") === "trusted";
      const written = addPermissionRule(rule, "allow", scope, where);
      if (written.isErr()) return written;
      // The kernel's own write of an approved rule must not make a trusted project untrusted.
      if (wasTrusted) trustProject(options.workspace, { home: options.keelHome });
      return ok(written.value);
    },
    onDiagnostic: options.report,
  });
  const check: ToolPermission = async (call) => {
    const outcome = await gate({
      tool: call.toolName,
      args: call.args,
      toolCallId: call.toolCallId,
      sideEffects: call.sideEffects,
    });
    return outcome.action === "continue"
      ? { action: "continue" }
      : { action: "block", reason: outcome.reason };
  };
  const readGuard = (root: string) =>
    readGuardFor(
      {
        mode: gate.mode,
        rules: gate.rules(),
        workspace: options.workspace,
        userHome: options.userHome,
        keelHome: options.keelHome,
      },
      root,
    );
  return Object.assign(check, { readGuard });
}
