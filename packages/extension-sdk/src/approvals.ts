// Questions an extension puts to the user through the host's approval dialog (the one the
// permission gate uses): a title, what will happen, and which answers are offered.

/** What the dialog can show of what is about to happen. */
export interface ApprovalPreview {
  format: "text" | "diff" | "json" | "command";
  text: string;
  /** The file a diff is about. */
  path?: string;
}

export interface ApprovalRequest {
  /** One line: what is asked ("Create an issue in acme/web?"). */
  title: string;
  /** Why it needs approval, or what it does, in a sentence or two. */
  message?: string;
  /**
   * What the question is about, as a permission identity (`github:github__create_issue`);
   * journaled with the answer for the audit trail.
   */
  subject?: string;
  /** Arguments of the call asked about (shown and journaled; redact secrets before passing them). */
  args?: Record<string, unknown>;
  preview?: ApprovalPreview;
  /** Offer "always" (the extension persists it itself, e.g. with `runtime.updateConfig`). Default false. */
  offerAlways?: boolean;
  /** Offer "allow this exact call" (the extension binds it to these arguments). Default false. */
  offerExactCall?: boolean;
  /** Cancels the question (the dialog closes, the answer is "cancelled"). */
  signal?: AbortSignal;
}

/**
 * The answer. Headless hosts answer `unsupported` at once, never hang; treat it as a denial and
 * tell the model why.
 */
export type ApprovalDecision =
  | { status: "allowed"; scope: "once" | "always" | "exact" }
  | { status: "denied"; reason?: string }
  | { status: "unsupported" }
  | { status: "cancelled" };
