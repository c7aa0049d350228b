// One call through the approval policy: the rule in effect, an exact-call grant if one covers
// it, else the question (with the action, its class and the preview) and what the answer means.
// Every outcome comes back as a record to journal; nothing here sends anything to the service.
import type { ApprovalDecision, ApprovalPreview, ApprovalRequest } from "@keel/extension-sdk";
import type { Result } from "neverthrow";
import type { SideEffectClass } from "../sdk/connector.js";
import { callHash, type ExactCallGrants } from "./grants.js";
import { type ActionIdentity, type PolicyConfig, type PolicyRule, ruleFor, verdictFor } from "./policy.js";

export interface DecisionRecord {
  toolCallId: string;
  /** The permission identity: `github:github__create_issue`. */
  action: string;
  effect: SideEffectClass;
  rule: PolicyRule;
  source: string;
  outcome: "allowed" | "denied";
  /** Who decided: the policy, the user, an earlier "this exact call" grant, or nobody (headless). */
  by: "policy" | "user" | "exact_grant" | "no_one_to_ask" | "cancelled";
  scope?: "once" | "always" | "exact";
  reason?: string;
  /** As the record may keep them (a sensitive action's values are redacted). */
  args: Record<string, unknown>;
  argsHash: string;
  agent?: string;
}

export type GateOutcome =
  | { allowed: true; record: DecisionRecord }
  | {
      allowed: false;
      record: DecisionRecord;
      /** What the model reads. */
      message: string;
      /** One line for the run's list of permission denials. */
      denial: string;
    };

/** Why an "always" answer could not be saved as a rule (the config write's own words). */
export interface PersistError {
  type: "config_not_saved";
  message: string;
}

export interface GateInput {
  identity: ActionIdentity;
  /** "GitHub" */
  label: string;
  args: Record<string, unknown>;
  /** What records and the question may keep of the arguments. */
  recordedArgs: Record<string, unknown>;
  preview: ApprovalPreview;
  toolCallId: string;
  agent?: { agentId: string; title: string };
  user: PolicyConfig | undefined;
  project: PolicyConfig | undefined;
  grants: ExactCallGrants;
  now: () => number;
  approve(request: ApprovalRequest): Promise<ApprovalDecision>;
  /** Saves "always" to the user's config; the reason when it could not. */
  persistAlways(entry: string): Result<void, PersistError>;
  signal: AbortSignal;
}

const DENIAL: Record<DecisionRecord["by"], (source: string, reason?: string) => string> = {
  policy: (source) => `denied by the connector policy (${source})`,
  user: (_source, reason) => `the user denied it${reason ? `: ${reason}` : ""}`,
  no_one_to_ask: (source) => `needs approval (${source}) and nobody could be asked`,
  cancelled: () => "the approval was cancelled",
  exact_grant: () => "",
};

const CONFIG_HINT = "~/.keel/config.json under extensions.connector.config.policy.actions";

export async function passGate(input: GateInput): Promise<GateOutcome> {
  const { identity } = input;
  const rule = ruleFor(identity, input.user, input.project);
  const verdict = verdictFor(identity, rule);
  const hash = callHash(identity.entry, input.args);
  const base = {
    toolCallId: input.toolCallId,
    action: `${identity.connectorId}:${identity.entry}`,
    effect: identity.effect,
    rule: rule.rule,
    source: rule.source,
    args: input.recordedArgs,
    argsHash: hash,
    ...(input.agent ? { agent: input.agent.agentId } : {}),
  };
  const allowed = (by: DecisionRecord["by"], scope?: DecisionRecord["scope"]): GateOutcome => ({
    allowed: true,
    record: { ...base, outcome: "allowed", by, ...(scope ? { scope } : {}) },
  });
  const denied = (by: DecisionRecord["by"], message: string, reason?: string): GateOutcome => ({
    allowed: false,
    message,
    denial: DENIAL[by](rule.source, reason),
    record: { ...base, outcome: "denied", by, ...(reason ? { reason } : {}) },
  });

  if (verdict.kind === "allow") return allowed("policy");
  if (verdict.kind === "deny")
    return denied(
      "policy",
      `${identity.entry} is denied by the user's connector policy (${rule.source}); it was not run. Do not retry it; tell the user if it is needed.`,
    );
  if (input.grants.covers(hash, input.now())) return allowed("exact_grant", "exact");

  const who = input.agent ? ` (asked by the agent "${input.agent.title}")` : "";
  const request: ApprovalRequest = {
    title: `${input.label}: allow ${identity.entry}?`,
    message:
      `A ${identity.effect} action${who}. Policy: ask (${rule.source}).` +
      (identity.effect === "destructive"
        ? ' Destructive actions are approved one call at a time; "always" is not offered.'
        : ""),
    subject: base.action,
    args: input.recordedArgs,
    preview: input.preview,
    offerAlways: verdict.offerAlways,
    offerExactCall: true,
    signal: input.signal,
  };
  const answer = await input.approve(request);
  switch (answer.status) {
    case "allowed": {
      if (answer.scope === "exact") {
        input.grants.grant(hash, input.now());
        return allowed("user", "exact");
      }
      // An "always" the dialog was not allowed to offer counts once, never as a saved rule.
      if (answer.scope === "always" && verdict.offerAlways) {
        const saved = input.persistAlways(identity.entry);
        if (saved.isOk()) return allowed("user", "always");
        // The call was approved; only the rule could not be kept. It runs, and the record says why.
        const once = allowed("user", "once");
        once.record.reason = `"always" not saved: ${saved.error.message}`;
        return once;
      }
      return allowed("user", "once");
    }
    case "denied": {
      const reason = answer.reason?.trim();
      return denied(
        "user",
        `The user denied ${identity.entry}; it was not run.${reason ? ` Their reason: ${reason}` : " Ask them before trying it again."}`,
        reason,
      );
    }
    case "unsupported":
      return denied(
        "no_one_to_ask",
        `${identity.entry} needs the user's approval (policy: ask, ${rule.source}) and nobody can answer in this session, so it was not run. ` +
          `To allow it without a question the user can set "${identity.entry}": "allow" in ${CONFIG_HINT}.`,
        "no one to approve (headless)",
      );
    case "cancelled":
      return denied(
        "cancelled",
        `The approval for ${identity.entry} was cancelled; it was not run.`,
        "cancelled",
      );
  }
}
