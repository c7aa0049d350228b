// Extensions' `@<prefix>:<ref>` mention sources: one table, completion and resolution each under a
// deadline and the caller's signal, a throwing source reported once and answered as nothing.
import type {
  Mention,
  MentionCompletion,
  MentionResolution,
  MentionSource,
  Registration,
} from "@keel/extension-sdk";
import { withDeadline } from "./deadline.js";

const PREFIX = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Completion runs as the user types: a slow source is left out rather than waited for. */
const COMPLETE_DEADLINE_MS = 2_000;
/** Resolution holds the prompt: long enough for a server's read, not forever. */
const RESOLVE_DEADLINE_MS = 30_000;
/** Completions kept per source. */
const MAX_COMPLETIONS = 50;

export interface HostedMentionCompletion extends MentionCompletion {
  prefix: string;
  /** The extension whose source answered. */
  source: string;
}

interface Row {
  extensionId: string;
  source: MentionSource;
}

/** `docs:file:///a.md` → { prefix: "docs", ref: "file:///a.md" }; undefined without a prefix. */
export function splitMention(token: string): Mention | undefined {
  const colon = token.indexOf(":");
  if (colon <= 0) return undefined;
  const prefix = token.slice(0, colon);
  return PREFIX.test(prefix) ? { prefix, ref: token.slice(colon + 1) } : undefined;
}

export class MentionTable {
  private readonly rows: Row[] = [];

  constructor(private readonly report: (extensionId: string, message: string) => void) {}

  /** Answers the SDK's Registration (runtime.mentions.add's contract). */
  add(extensionId: string, source: MentionSource): Registration {
    if (typeof source?.id !== "string" || !source.id)
      return { ok: false, message: "a mention source needs an id (a string)" };
    if (typeof source.prefixes !== "function" || typeof source.resolve !== "function")
      return { ok: false, message: `mention source ${source.id} needs prefixes() and resolve()` };
    if (this.rows.some((r) => r.extensionId === extensionId && r.source.id === source.id))
      return { ok: false, message: `mention source ${source.id} is already registered` };
    this.rows.push({ extensionId, source });
    return { ok: true };
  }

  remove(extensionId: string, id: string): boolean {
    const at = this.rows.findIndex((r) => r.extensionId === extensionId && r.source.id === id);
    if (at < 0) return false;
    this.rows.splice(at, 1);
    return true;
  }

  removeAll(extensionId: string): void {
    for (let i = this.rows.length - 1; i >= 0; i--)
      if (this.rows[i]!.extensionId === extensionId) this.rows.splice(i, 1);
  }

  get isEmpty(): boolean {
    return this.rows.length === 0;
  }

  /** Every prefix answered now, each with the first source that answers it. */
  private prefixMap(): Map<string, Row> {
    const map = new Map<string, Row>();
    for (const row of this.rows) {
      let prefixes: readonly string[];
      try {
        prefixes = row.source.prefixes();
      } catch (e) {
        this.report(row.extensionId, `mention source ${row.source.id}: prefixes() threw: ${String(e)}`);
        continue;
      }
      for (const prefix of Array.isArray(prefixes) ? prefixes : []) {
        if (typeof prefix === "string" && PREFIX.test(prefix) && !map.has(prefix)) map.set(prefix, row);
      }
    }
    return map;
  }

  /** Whether `prefix` is answered by a source now. */
  answers(prefix: string): boolean {
    return this.prefixMap().has(prefix);
  }

  /**
   * Completions for what follows `@`: without a colon, the prefixes that start with it (ref "");
   * with one, the source's candidates for the ref.
   */
  async complete(token: string, signal?: AbortSignal): Promise<HostedMentionCompletion[]> {
    const map = this.prefixMap();
    const mention = splitMention(token);
    if (!mention || !map.has(mention.prefix)) {
      return [...map.entries()]
        .filter(([prefix]) => prefix.startsWith(token))
        .map(([prefix, row]) => ({ prefix, ref: "", source: row.extensionId }));
    }
    const row = map.get(mention.prefix)!;
    const complete = row.source.complete;
    if (!complete) return [];
    const outcome = await withDeadline(
      (s) => Promise.resolve(complete.call(row.source, mention, { signal: s })),
      COMPLETE_DEADLINE_MS,
      signal,
    );
    if (outcome.isErr()) {
      if (!signal?.aborted)
        this.report(row.extensionId, `mention completion for @${mention.prefix}: ${outcome.error.message}`);
      return [];
    }
    const list = Array.isArray(outcome.value) ? outcome.value : [];
    return list
      .filter((c): c is MentionCompletion => typeof c?.ref === "string")
      .slice(0, MAX_COMPLETIONS)
      .map((c) => ({ ...c, prefix: mention.prefix, source: row.extensionId }));
  }

  /**
   * What `@<prefix>:<ref>` attaches, as the SDK's MentionResolution (the source's own answer, or
   * one in its shape); undefined when no source answers the prefix (a path, then).
   */
  async resolve(mention: Mention, signal?: AbortSignal): Promise<MentionResolution | undefined> {
    const row = this.prefixMap().get(mention.prefix);
    if (!row) return undefined;
    const outcome = await withDeadline(
      (s) => Promise.resolve(row.source.resolve(mention, { signal: s })),
      RESOLVE_DEADLINE_MS,
      signal,
    );
    if (outcome.isErr())
      return {
        ok: false,
        message:
          outcome.error.type === "timeout" ? "the extension did not answer in time" : outcome.error.message,
      };
    const value = outcome.value;
    if (!value || typeof value !== "object" || (value.ok && !Array.isArray(value.content)))
      return { ok: false, message: `extension ${row.extensionId} answered the mention with nothing usable` };
    return value;
  }
}
