// Keel's approval dialog as session/request_permission: the same choices as the terminal's (allow
// once, this exact call, always with each narrow rule, deny, deny and say what to do instead),
// labelled with the child agent that asks; and the project trust question, asked the same way.
import type {
  PermissionOption,
  PermissionOptionKind,
  RequestPermissionOutcome,
  ToolCallContent,
} from "@agentclientprotocol/sdk";
import type { ApprovalAnswer, ToolApprovalRequest } from "@keel/coding-agent";

/** One choice: what the editor shows, and what Keel does with it (`tell`: ask for the words first). */
interface Choice {
  option: PermissionOption;
  answer: ApprovalAnswer | "tell";
}

const option = (optionId: string, name: string, kind: PermissionOptionKind): PermissionOption => ({
  optionId,
  name,
  kind,
});

/**
 * The choices of a request, as the terminal's dialog offers them. "Deny, tell Keel what to do"
 * needs words typed: offered only when the client can ask for them (elicitation forms).
 */
export function approvalChoices(request: ToolApprovalRequest, canAskForWords: boolean): Choice[] {
  const where = request.alwaysSavesTo ? ` (saved in ${request.alwaysSavesTo})` : " (this session)";
  const rules = request.alwaysRules.map(
    (rule, i): Choice => ({
      option: option(`always:${i}`, `Always allow ${rule}${where}`, "allow_always"),
      answer: { decision: "allow_always", rule },
    }),
  );
  const extensionAlways: Choice[] =
    rules.length === 0 && request.offersAlways === true
      ? [{ option: option("always", "Always allow", "allow_always"), answer: { decision: "allow_always" } }]
      : [];
  return [
    { option: option("once", "Allow once", "allow_once"), answer: { decision: "allow_once" } },
    ...(request.offersExactCall
      ? [
          {
            option: option("exact", "Allow this exact call", "allow_once"),
            answer: { decision: "allow_exact" } as const,
          },
        ]
      : []),
    ...rules,
    ...extensionAlways,
    { option: option("deny", "Deny", "reject_once"), answer: { decision: "deny", stopRun: true } },
    ...(canAskForWords
      ? [
          {
            option: option("tell", "Deny, and tell Keel what to do instead", "reject_once"),
            answer: "tell" as const,
          },
        ]
      : []),
  ];
}

/** The title an editor shows: what is asked, and which child agent asks. */
export function approvalTitle(request: ToolApprovalRequest, callTitle: string): string {
  const asker = request.agent ? `[${request.agent.title}] ` : "";
  if (request.kind === "extension")
    return `${asker}${request.title ?? request.extensionId ?? "An extension"} asks`;
  return `${asker}${callTitle}`;
}

/** What the dialog shows besides the call's own content: why it is asked, and the preview. */
export function approvalContent(request: ToolApprovalRequest): ToolCallContent[] {
  const text = (t: string): ToolCallContent => ({ type: "content", content: { type: "text", text: t } });
  const parts = [text(request.reason)];
  const preview = request.preview;
  if (preview && preview.format !== "diff")
    parts.push(text(preview.format === "command" ? `\`\`\`sh\n${preview.text}\n\`\`\`` : preview.text));
  return parts;
}

/** The editor's answer as Keel's. Cancelled (the turn was cancelled): deny and stop the run. */
export function answerOf(outcome: RequestPermissionOutcome, choices: Choice[]): ApprovalAnswer | "tell" {
  if (outcome.outcome === "cancelled") return { decision: "deny", stopRun: true };
  return (
    choices.find((c) => c.option.optionId === outcome.optionId)?.answer ?? { decision: "deny", stopRun: true }
  );
}

export const TRUST_OPTIONS: PermissionOption[] = [
  option("trust", "Trust this project", "allow_once"),
  option("no", "Do not trust it", "reject_once"),
];
