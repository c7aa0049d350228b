// JSONL encoding of the journal: one line per entry, and a parser that splits a whole file
// in one pass, classifies each line and locates a torn tail by byte offset for repair.
import { err, ok, type Result } from "neverthrow";
import { META_TYPES, NODE_TYPES, type SessionEntry, type SessionError, type SessionHeader } from "./types.js";

export interface ParsedJournal {
  header: SessionHeader;
  entries: SessionEntry[];
  /** Byte offset just past the last good, newline-terminated line. */
  goodEnd: number;
  /** Bytes after `goodEnd` that are not a complete, valid line (a write cut short by a crash). */
  tornTailBytes: number;
  /** 1-based line numbers of invalid lines followed by valid ones (not a torn tail: damage). */
  corruptLines: number[];
  /** Entry types this version does not know. */
  unknownTypes: string[];
  /**
   * Lines that repeat an earlier line byte for byte (same entry written twice): skipped, so a
   * copy never moves the head back to where the original stood.
   */
  duplicateLines: { line: number; firstLine: number; entryId: string }[];
}

export function encodeLine(value: object): string {
  return `${JSON.stringify(value)}\n`;
}

type LineResult = { kind: "blank" } | { kind: "bad" } | { kind: "ok"; value: Record<string, unknown> };

function parseLine(text: string): LineResult {
  // Lines we write start with "{"; anything else is blank or damage, and trim() is costly per line.
  if (text.charCodeAt(0) !== 0x7b && text.trim() === "") return { kind: "blank" };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return { kind: "bad" };
    return { kind: "ok", value: value as Record<string, unknown> };
  } catch {
    return { kind: "bad" };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isStringOrNull = (v: unknown): boolean => v === null || typeof v === "string";
const isMessage = (v: unknown): boolean =>
  isObject(v) && typeof v.role === "string" && (typeof v.content === "string" || Array.isArray(v.content));

/**
 * The fields the fold, the listing and recovery read, per known type. A line of a known type
 * without them is damage like any other bad line: reported and skipped, never a crash later.
 */
const SHAPES: Record<string, (v: Record<string, unknown>) => boolean> = {
  message: (v) => isMessage(v.message),
  app_state: (v) => typeof v.extensionId === "string",
  compaction: (v) => typeof v.summary === "string" && isStringOrNull(v.firstKeptEntryId),
  branch_summary: (v) => typeof v.summary === "string",
  model_change: (v) => typeof v.provider === "string" && typeof v.modelId === "string",
  capability_notice: (v) => typeof v.source === "string" && isObject(v.inventory) && isMessage(v.message),
  notice: (v) =>
    typeof v.source === "string" &&
    isMessage(v.message) &&
    (v.key === undefined || typeof v.key === "string"),
  op_begin: (v) => typeof v.toolCallId === "string" && typeof v.toolName === "string" && isObject(v.args),
  op_end: (v) => typeof v.toolCallId === "string" && (v.outcome === "ok" || v.outcome === "error"),
  leaf: (v) => isStringOrNull(v.targetId),
  label: (v) => typeof v.targetId === "string" && typeof v.label === "string",
  info: (v) => v.name === undefined || typeof v.name === "string",
  checkpoint: (v) => isObject(v.message) && Array.isArray(v.message.content),
  agent_run: (v) =>
    typeof v.agentId === "string" &&
    (v.phase === "start" || v.phase === "end") &&
    typeof v.sessionId === "string" &&
    (v.outcome === undefined || isObject(v.outcome)),
  approval: (v) => typeof v.subject === "string" && typeof v.decision === "string",
};

/** The entry a parsed line holds, or null when it is not one (damage). */
export function toEntry(value: Record<string, unknown>): SessionEntry | null {
  const { id, parentId, type, timestamp } = value;
  if (typeof id !== "string" || typeof type !== "string") return null;
  if (parentId !== null && typeof parentId !== "string") return null;
  if (NODE_TYPES.has(type) || META_TYPES.has(type)) {
    return SHAPES[type]?.(value) ? (value as unknown as SessionEntry) : null;
  }
  return {
    id,
    parentId,
    type,
    timestamp: typeof timestamp === "string" ? timestamp : "",
    unknown: true,
    raw: value,
  };
}

function toHeader(value: Record<string, unknown>): SessionHeader | null {
  if (value.type !== "session") return null;
  if (typeof value.version !== "number" || typeof value.id !== "string") return null;
  if (typeof value.cwd !== "string" || typeof value.created !== "string") return null;
  return value as unknown as SessionHeader;
}

/**
 * The byte offset matching `charOffset`, which sits just past a newline. Counted in newlines
 * from the end rather than by re-encoding: a torn tail may hold a cut multi-byte character,
 * which decodes to U+FFFD and would re-encode to a different length. 0x0A never occurs
 * inside a multi-byte UTF-8 sequence, so newlines match one to one.
 */
function byteOffsetOf(buf: Buffer, text: string, charOffset: number): number {
  let newlines = 0;
  for (let i = text.indexOf("\n", charOffset); i !== -1; i = text.indexOf("\n", i + 1)) newlines++;
  let at = buf.length;
  for (let k = 0; k <= newlines; k++) at = buf.lastIndexOf(0x0a, at - 1);
  return at + 1;
}

/** Parses a whole session file. Fails only when there is no usable header. */
export function parseJournal(buf: Buffer, path: string): Result<ParsedJournal, SessionError> {
  // One decode and string slicing beat a decode per line; byte offsets are needed only for
  // the tail, and are derived from its length once at the end.
  const text = buf.toString("utf8");
  let header: SessionHeader | null = null;
  const entries: SessionEntry[] = [];
  const corruptLines: number[] = [];
  const unknownTypes = new Set<string>();
  const duplicateLines: ParsedJournal["duplicateLines"] = [];
  /** Where each entry id was first seen: its line and its text's char range. */
  const seen = new Map<string, { line: number; start: number; end: number }>();
  let pendingBad: number[] = [];
  let goodEndChar = 0;
  let pos = 0;
  let lineNo = 0;

  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    lineNo++;
    // A final segment without its newline is torn even if it parses: the one write that
    // carried it did not finish, so its append was never acknowledged.
    if (nl === -1) break;
    const start = pos;
    const parsed = parseLine(text.slice(pos, nl));
    pos = nl + 1;
    if (parsed.kind === "blank") {
      if (pendingBad.length === 0) goodEndChar = pos;
      continue;
    }
    const value = parsed.kind === "ok" ? parsed.value : null;
    if (header === null) {
      const h = value ? toHeader(value) : null;
      if (!h) {
        return err({
          type: "corrupt",
          path,
          line: lineNo,
          message: `${path} does not start with a valid session header (line ${lineNo}); it is not a Keel session or its creation was cut short.`,
        });
      }
      header = h;
      goodEndChar = pos;
      continue;
    }
    let entry = value ? toEntry(value) : null;
    const first = entry ? seen.get(entry.id) : undefined;
    if (entry && first) {
      if (text.slice(first.start, first.end) === text.slice(start, nl)) {
        duplicateLines.push({ line: lineNo, firstLine: first.line, entryId: entry.id });
        if (pendingBad.length === 0) goodEndChar = pos;
        continue;
      }
      // Two different entries under one id: which is meant cannot be known, so it is damage.
      entry = null;
    }
    if (!entry) {
      pendingBad.push(lineNo);
      continue;
    }
    seen.set(entry.id, { line: lineNo, start, end: nl });
    if (pendingBad.length > 0) {
      corruptLines.push(...pendingBad);
      pendingBad = [];
    }
    if ("unknown" in entry && entry.unknown === true) unknownTypes.add(entry.type);
    entries.push(entry);
    goodEndChar = pos;
  }
  const goodEnd = goodEndChar === text.length ? buf.length : byteOffsetOf(buf, text, goodEndChar);
  const tornTailBytes = buf.length - goodEnd;

  if (header === null) {
    return err({
      type: "corrupt",
      path,
      line: 1,
      message: `${path} has no complete session header; it is empty or its creation was cut short.`,
    });
  }
  return ok({
    header,
    entries,
    goodEnd,
    tornTailBytes,
    corruptLines,
    unknownTypes: [...unknownTypes],
    duplicateLines,
  });
}
