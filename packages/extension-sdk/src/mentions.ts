// Mentions an extension answers in the user's prompt: `@<prefix>:<ref>` (an MCP server's resource
// is `@docs:file:///guide.md`). The host completes them as the user types and, when the prompt is
// sent, attaches what the source resolves them to (bounded), next to `@path` file mentions. Only
// the user writes a mention; the model never sees a source until the user picked something from it.
import type { ToolResult } from "./tools.js";

type Block = ToolResult["content"][number];

/** A mention as the user wrote it: `@docs:file:///guide.md` is prefix "docs", ref "file:///guide.md". */
export interface Mention {
  prefix: string;
  ref: string;
}

export interface MentionCompletion {
  /** What goes after `@<prefix>:` when the user picks it. */
  ref: string;
  /** Shown in the list (default: the ref). */
  label?: string;
  /** One line shown beside it. */
  description?: string;
}

export type MentionResolution =
  | {
      ok: true;
      /** Text and images to attach (text past the host's bound is cut, and the model told so). */
      content: Block[];
      /** A title for the attachment ("guide.md"). */
      title?: string;
    }
  | { ok: false; message: string };

export interface MentionContext {
  /** Aborted when the user goes on typing (completion) or the prompt is withdrawn (resolve). */
  signal: AbortSignal;
}

export interface MentionSource {
  /** Unique within the extension. */
  id: string;
  /**
   * The prefixes this source answers now (MCP: the connected servers with resources). Asked at
   * each completion and each prompt, so it may change during the session. Letters, digits,
   * `_ . -`; a prefix another source answers already is left to the first.
   */
  prefixes(): readonly string[];
  /** Candidates for `@<prefix>:<partial>`, best first (the host shows the first few). */
  complete?(query: Mention, context: MentionContext): Promise<MentionCompletion[]> | MentionCompletion[];
  /** What the mention attaches to the prompt when it is sent. */
  resolve(mention: Mention, context: MentionContext): Promise<MentionResolution> | MentionResolution;
}

export interface MentionRegistry {
  add(source: MentionSource): { ok: true } | { ok: false; message: string };
  remove(id: string): boolean;
}
