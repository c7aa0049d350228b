// Bridges the permission gate to the kernel: the host's approval dialog, persistence of
// "always allow" rules, and trust kept valid across the kernel's own writes to project config.
import { summarizeToolCall, type ToolDeclaration } from "@keel/extension-sdk";
import { err, ok, type Result } from "neverthrow";
import type { ConfigError } from "../config/errors.js";
import { addPermissionRule, configFileFor, removePermissionRule } from "../config/write.js";
import { shownRef } from "../host/catalogs.js";
import { decide } from "../permissions/decide.js";
import { createPermissionGate } from "../permissions/gate.js";
import { readGuardFor } from "../permissions/read-scope.js";
import { RULE_WORD } from "../permissions/rules.js";
import type { GateSandbox } from "../permissions/sandboxed.js";
import type { PermissionMode, PermissionRuleEntry } from "../permissions/types.js";
import { previewOf } from "../tools/declarations.js";
import { previewReader } from "../tools/file-preview.js";
import type { TextFileAccess } from "../tools/text-files.js";
import type { WalkGuard } from "../tools/walk.js";
import { writeKeepingTrust } from "../trust/store.js";
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
  /** The OS sandbox a Bash command would run in (sandbox/runtime.ts). */
  sandbox?: (mode: PermissionMode) => Promise<GateSandbox>;
  /** Test-only: the shell parser's verdicts forced to allow (CodingAgentOptions.testing). */
  forceParserAllow?: boolean;
  /** The host's view of text files: previews read the editor's buffers through it (else the disk). */
  textFiles?: TextFileAccess;
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
  mode(): PermissionMode;
  setMode(mode: PermissionMode): void;
  /** The rules in force, with where each came from. */
  rules(): readonly PermissionRuleEntry[];
  /**
   * Puts a rule in force and into its source's config file (`present`), or takes it out of
   * both. "session" rules live in this process only. Resolves to the file written, if any.
   */
  editRule(entry: PermissionRuleEntry, present: boolean): Result<string | undefined, ConfigError>;
  /**
   * The reason when a deny rule (or the mode) forbids reading `path`; undefined otherwise. For
   * what the user attaches to a prompt: their mention is their approval, but a deny rule holds.
   */
  deniedRead(path: string): Promise<string | undefined>;
  /** What Grep, Glob and LS may walk into below `root`, under the rules and mode in force now. */
  readGuard(root: string): WalkGuard;
}

/** A read of one path, as any read tool's is judged (`Read(…)` rules, the workspace, the mode). */
export const ONE_READ: ToolDeclaration = { access: "read", args: { paths: ["path"] } };

/** Said to the model with a denial that stopped the run, so it waits instead of trying another way. */
const STOPPED =
  " The user stopped the run to tell you what to do instead: do not try another way, wait for their next message.";

export function createToolPermission(options: ToolPermissionOptions): KernelPermission {
  const approve = options.ui?.approve;
  // Calls whose denial asked to stop the run (the answer's stopRun), until the gate's verdict is read.
  const stops = new Set<string>();
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
              ...(request.catalogEntry
                ? { shownName: shownRef(request.catalogEntry.group, request.catalogEntry.name) }
                : {}),
              toolCallId: request.toolCallId ?? "",
              args: (request.args ?? {}) as Record<string, unknown>,
              reason: request.reason,
              ...(request.agent ? { agent: { id: request.agent.agentId, title: request.agent.title } } : {}),
              summary: summarizeToolCall(
                request.declaration,
                (request.args ?? {}) as Record<string, unknown>,
              ),
              ...(await previewFor(request.declaration, request.args)),
              alwaysRules: request.suggestions,
              ...(request.suggestions.length > 0 && savesTo ? { alwaysSavesTo: savesTo } : {}),
            });
            if (
              answer.decision === "deny" &&
              "stopRun" in answer &&
              answer.stopRun === true &&
              request.toolCallId
            )
              stops.add(request.toolCallId);
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
    persist: async (rule, scope) => save(rule, "allow", scope, true),
    onDiagnostic: options.report,
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.forceParserAllow ? { forceParserAllow: true } : {}),
  });
  function save(
    rule: string,
    behavior: PermissionRuleEntry["behavior"],
    scope: "user" | "project" | "projectLocal",
    present: boolean,
  ): Result<string, ConfigError> {
    const where = { keelHome: options.keelHome, projectRoot: options.workspace };
    const write = () =>
      present
        ? addPermissionRule(rule, behavior, scope, where)
        : removePermissionRule(rule, behavior, scope, where);
    if (scope === "user") return write();
    // The kernel's own write of a rule must not make a trusted project untrusted.
    const { written, trustLost } = writeKeepingTrust(options.workspace, { home: options.keelHome }, write);
    if (trustLost) options.report(trustLost);
    return written;
  }
  const readText = previewReader(options.textFiles);
  const previewFor = async (declaration: ToolDeclaration | undefined, args: unknown) => {
    const preview = await previewOf(declaration, args, { cwd: options.cwd ?? options.workspace, readText });
    return preview ? { preview } : {};
  };
  let grants: (() => void)[] = [];
  const check: ToolPermission = async (call) => {
    const outcome = await gate({
      tool: call.toolName,
      args: call.args,
      toolCallId: call.toolCallId,
      ...(call.declaration ? { declaration: call.declaration } : {}),
      approval: call.approval,
      ...(call.catalogEntry ? { catalogEntry: call.catalogEntry } : {}),
      ...(call.agent ? { agent: call.agent } : {}),
    });
    if (outcome.action === "continue") return { action: "continue" };
    const stopRun = stops.delete(call.toolCallId);
    return stopRun
      ? { action: "block", reason: outcome.reason + STOPPED, by: outcome.by, stopRun }
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
    deniedRead: async (path) => {
      const decision = await decide({
        tool: RULE_WORD.read,
        args: { path },
        declaration: ONE_READ,
        mode: gate.mode,
        rules: gate.rules(),
        workspace: options.workspace,
        userHome: options.userHome,
        keelHome: options.keelHome,
      });
      return decision.behavior === "deny" ? decision.reason : undefined;
    },
    mode: () => gate.mode,
    setMode: (mode) => gate.setMode(mode),
    rules: () => gate.rules(),
    editRule: (entry, present) => {
      if (entry.source === "session" || entry.source === "cli") {
        gate.setRule(entry, present);
        return ok(undefined);
      }
      if (
        entry.source === "claudeUser" ||
        entry.source === "claudeProject" ||
        entry.source === "claudeProjectLocal"
      )
        return err({
          type: "config_write_failed",
          file: entry.source,
          message:
            "That rule comes from Claude Code's settings; Keel does not edit Claude Code's files. Change it there.",
        });
      if (entry.source !== "user" && !options.trusted)
        return err({
          type: "config_write_failed",
          file: configFileFor(entry.source, { keelHome: options.keelHome, projectRoot: options.workspace }),
          message:
            "This project is not trusted, so its config is not read: a rule there would do nothing. Trust it with /trust, or add the rule for yourself (user) or for this session.",
        });
      const saved = save(entry.rule, entry.behavior, entry.source, present);
      if (saved.isErr()) return err(saved.error);
      gate.setRule(entry, present);
      return ok(saved.value);
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
