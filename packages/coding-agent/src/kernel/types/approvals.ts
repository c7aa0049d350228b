// What a host's approval dialog is asked and answers, and what a host's UI offers the kernel.
import type { ExtensionUI, ToolPreview } from "@keel/extension-sdk";
import type { GateAnswer } from "../../permissions/gate.js";

/**
 * The dialog's answer: the gate's answers, plus "this exact call" for extension questions that
 * offer it. A denial of a tool call may stop the run (`stopRun`): the call's result carries the
 * reason and tells the model to wait, and the run ends once the tool batch is done, so the user
 * can say what to do instead.
 */
export type ApprovalAnswer =
  | GateAnswer
  | { decision: "allow_exact" }
  | { decision: "deny"; reason?: string; stopRun?: boolean };

/**
 * What an approval dialog may show of what is about to happen: a tool's declared preview
 * (`ToolPreview`), or what an extension's question shows (which may also be JSON).
 */
export interface ApprovalPreview {
  format: ToolPreview["format"] | "json";
  text: string;
  /** The file it is about. */
  path?: string;
}

/** What the host's approval dialog is asked: a tool call the permission gate holds, or an extension's question. */
export interface ToolApprovalRequest {
  /** "tool": the permission gate asks about a call; "extension": an extension asks through `approve`. */
  kind: "tool" | "extension";
  /** The permission identity: `Bash`, `Edit`, a catalog entry's `group:name`. */
  toolName: string;
  /**
   * A catalog entry as people are shown it: `group:name`, or the name alone when it already
   * begins with its group (`mcp__docs__search`). Absent: show `toolName`.
   */
  shownName?: string;
  /** Empty when the question is not about one tool call. */
  toolCallId: string;
  args: Record<string, unknown>;
  /** Why approval is needed (the permission decision's reason, or the extension's message). */
  reason: string;
  /** Set when a subagent asks: the dialog names it. */
  agent?: { id: string; title: string };
  /** The extension asking (kind "extension"). */
  extensionId?: string;
  /** A title an extension gave its question. */
  title?: string;
  /** The call in one line, as the tool summarises it (kind "tool"). */
  summary?: string;
  preview?: ApprovalPreview;
  /**
   * The rules "always" may save, narrowest first; the dialog may let the user pick one and sends
   * it back in the answer. Empty: "always" is not offered.
   */
  alwaysRules: string[];
  /**
   * Where an "always" answer is saved (a file: the project's `.keel/config.local.json`), for the
   * dialog to say. Absent while `alwaysRules` is not empty: "always" lasts for this session only
   * (an untrusted project's config is neither read nor written).
   */
  alwaysSavesTo?: string;
  /** An extension question may offer "always" (the extension keeps it; no rule is saved). */
  offersAlways?: boolean;
  /** An extension may offer "allow this exact call" (bound to these arguments, expiring). */
  offersExactCall?: boolean;
  /** Aborted when the question no longer matters (the run or the tool was aborted). */
  signal?: AbortSignal;
}

/** What a host (TUI, print mode, RPC) offers the kernel. Everything optional: headless by default. */
export interface HostUI extends Partial<ExtensionUI> {
  /** Permission prompts. Absent → headless: `ask` resolves to deny with a reason for the model. */
  approve?: (request: ToolApprovalRequest) => Promise<ApprovalAnswer>;
}
