// Extensions' questions to the user (runtime.approve / the tool context's approve) through the
// host's approval dialog: headless hosts answer "unsupported" at once, dontAsk denies, an abort
// cancels, and every answer a person gives is journaled.
import { type ApprovalDecision, type ApprovalRequest, summarizeToolCall } from "@keel/extension-sdk";
import type { Caller } from "../host/runtime.js";
import type { PermissionMode } from "../permissions/types.js";
import type { ApprovalAnswer, HostUI } from "./types.js";

export type ApprovalJournal = (entry: {
  subject: string;
  extensionId: string;
  decision: "allow_once" | "allow_always" | "allow_exact" | "deny" | "unsupported" | "cancelled";
  toolCallId?: string;
  agentId?: string;
  reason?: string;
}) => void;

export function createExtensionApprover(options: {
  ui: HostUI | undefined;
  mode: () => PermissionMode;
  journal: ApprovalJournal;
}) {
  return async (extensionId: string, request: ApprovalRequest, caller: Caller): Promise<ApprovalDecision> => {
    const subject = request.subject ?? extensionId;
    const record = (decision: Parameters<ApprovalJournal>[0]["decision"], reason?: string) =>
      options.journal({
        subject,
        extensionId,
        decision,
        ...(caller.toolCallId ? { toolCallId: caller.toolCallId } : {}),
        ...(caller.agent ? { agentId: caller.agent.agentId } : {}),
        ...(reason ? { reason } : {}),
      });
    const approve = options.ui?.approve;
    if (!approve) {
      record("unsupported");
      return { status: "unsupported" };
    }
    if (options.mode() === "dontAsk") {
      record("deny", "dontAsk mode");
      return {
        status: "denied",
        reason: "the session runs in dontAsk mode: nobody is asked, so it is denied",
      };
    }
    const signal = request.signal ?? caller.signal;
    if (signal?.aborted) {
      record("cancelled");
      return { status: "cancelled" };
    }
    let onAbort: (() => void) | undefined;
    const cancelled = new Promise<"cancelled">((resolve) => {
      onAbort = () => resolve("cancelled");
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    let answer: ApprovalAnswer | "cancelled";
    try {
      answer = await Promise.race([
        approve({
          kind: "extension",
          extensionId,
          toolName: subject,
          toolCallId: caller.toolCallId ?? "",
          args: request.args ?? {},
          reason: request.message ?? request.title,
          title: request.title,
          summary: summarizeToolCall(undefined, request.args ?? {}),
          ...(request.preview ? { preview: request.preview } : {}),
          ...(caller.agent ? { agent: { id: caller.agent.agentId, title: caller.agent.title } } : {}),
          alwaysRules: [],
          offersAlways: request.offerAlways === true,
          offersExactCall: request.offerExactCall === true,
          ...(signal ? { signal } : {}),
        }),
        cancelled,
      ]);
    } catch {
      // Fail closed: a broken dialog is a denial, never an approval.
      record("deny", "the approval dialog failed");
      return { status: "denied", reason: "the approval dialog failed" };
    } finally {
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
    if (answer === "cancelled") {
      record("cancelled");
      return { status: "cancelled" };
    }
    if (answer.decision === "deny") {
      record("deny", answer.reason);
      return { status: "denied", ...(answer.reason ? { reason: answer.reason } : {}) };
    }
    // Only what the dialog offered may be granted: "always" or "exact" it did not offer is once.
    const scope =
      answer.decision === "allow_always" && request.offerAlways === true
        ? "always"
        : answer.decision === "allow_exact" && request.offerExactCall === true
          ? "exact"
          : "once";
    record(`allow_${scope}`);
    return { status: "allowed", scope };
  };
}
