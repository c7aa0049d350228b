// Opening a session file for use: take the writer lock, read and parse, move a torn tail
// aside, decide whether the file must be read-only, open the append descriptor. Everything
// found or done along the way becomes one notice.
import { readFileSync } from "node:fs";
import { err, ok, type Result } from "neverthrow";
import { parseJournal } from "./codec.js";
import { ioError } from "./errors.js";
import { moveTornTailAside } from "./files.js";
import { checkLinks } from "./graph.js";
import { type JournalFileSystem, JournalWriter } from "./journal-writer.js";
import { acquireLock, type HeldLock } from "./lock.js";
import {
  type OpenNotice,
  SESSION_FORMAT_VERSION,
  type SessionEntry,
  type SessionError,
  type SessionHeader,
} from "./types.js";

/** A file ready to become a Session. `writer` and `lock` are both set, or both null (read-only). */
export interface OpenedFile {
  header: SessionHeader;
  entries: SessionEntry[];
  /** Size after any repair: where the next append lands. */
  fileSize: number;
  writer: JournalWriter | null;
  lock: HeldLock | null;
  notices: OpenNotice[];
}

/** `file` must be absolute. Wants read-only when `readOnly`; may end read-only anyway (see notices). */
export function openFile(
  file: string,
  readOnly: boolean,
  now: string,
  fileSystem?: JournalFileSystem,
): Result<OpenedFile, SessionError> {
  const notices: OpenNotice[] = [];
  let lock: HeldLock | null = null;
  if (!readOnly) {
    const held = acquireLock(file);
    if (held.isErr()) return err(held.error);
    lock = held.value;
    if (lock.reclaimed) {
      const { pid, hostname } = lock.reclaimed;
      notices.push({
        type: "stale_lock_reclaimed",
        pid,
        hostname,
        message: `Took over the lock of ${file} left by pid ${pid}: the Keel process that wrote it is no longer running.`,
      });
    }
  } else {
    notices.push({ type: "read_only", reason: "requested", message: `${file} is open read-only.` });
  }
  const fail = (e: SessionError): Result<OpenedFile, SessionError> => {
    lock?.release();
    return err(e);
  };

  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (e) {
    return fail(ioError("read", file, e));
  }
  const parsed = parseJournal(buf, file);
  if (parsed.isErr()) return fail(parsed.error);
  const journal = parsed.value;

  let fileSize = buf.length;
  if (journal.tornTailBytes > 0) {
    if (lock) {
      const moved = moveTornTailAside(file, buf, journal.goodEnd, now);
      if (moved.isErr()) return fail(moved.error);
      fileSize = journal.goodEnd;
      notices.push({
        type: "torn_tail_repaired",
        corruptPath: moved.value,
        bytes: journal.tornTailBytes,
        message: `The last ${journal.tornTailBytes} bytes of ${file} were an incomplete write (Keel stopped mid-append); they were moved to ${moved.value}.`,
      });
    } else {
      notices.push({
        type: "torn_tail_ignored",
        bytes: journal.tornTailBytes,
        message: `The last ${journal.tornTailBytes} bytes of ${file} are an incomplete write; ignored (read-only, not repaired).`,
      });
    }
  }

  for (const d of journal.duplicateLines) {
    notices.push({
      type: "duplicate_line",
      line: d.line,
      firstLine: d.firstLine,
      entryId: d.entryId,
      message: `Line ${d.line} of ${file} repeats line ${d.firstLine} (entry ${d.entryId}) byte for byte; the copy was skipped and the session is read as if it were not there.`,
    });
  }
  // Parent links: a cycle has no beginning to fold from, so the file is refused; a missing parent
  // cuts off the history before the entry that names it, so it is said and nothing is appended.
  const links = checkLinks(journal.entries);
  if (links.cycle.length > 0)
    return fail({
      type: "corrupt",
      path: file,
      message: `${file} cannot be opened: its entries name each other as parents in a cycle (${links.cycle.join(" → ")}), so its history has no beginning. Restore the file from a backup, or remove the entries of the cycle.`,
    });
  const readOnlyBecause: OpenNotice[] = [];
  for (const m of links.missing) {
    notices.push({
      type: "missing_parent",
      entryId: m.entryId,
      parentId: m.parentId,
      message: `Entry ${m.entryId} of ${file} names parent ${m.parentId}, which is not in the file: the history before it is missing, and a branch through it starts there.`,
    });
  }
  if (links.missing.length > 0)
    readOnlyBecause.push({
      type: "read_only",
      reason: "history_missing",
      message: `${file} is missing entries its history needs, so it is open read-only (nothing is added on top of a broken history); fork it to continue from what is there.`,
    });
  for (const line of journal.corruptLines) {
    notices.push({
      type: "corrupt_line",
      line,
      message: `Line ${line} of ${file} is damaged and was skipped.`,
    });
  }
  if (journal.corruptLines.length > 0) {
    readOnlyBecause.push({
      type: "read_only",
      reason: "damaged",
      message: `${file} has damaged lines inside it, so it is open read-only; fork it to continue from a good entry.`,
    });
  }
  if (journal.header.version > SESSION_FORMAT_VERSION) {
    readOnlyBecause.push({
      type: "read_only",
      reason: "newer_version",
      message: `${file} was written in session format ${journal.header.version} by a newer Keel (this one knows ${SESSION_FORMAT_VERSION}); it is open read-only. Update Keel to continue it.`,
    });
  } else if (journal.unknownTypes.length > 0) {
    readOnlyBecause.push({
      type: "read_only",
      reason: "unknown_entry_types",
      message: `${file} has entry types this Keel does not know (${journal.unknownTypes.join(", ")}); they are skipped and the session is open read-only. Update Keel to continue it.`,
    });
  }
  if (readOnlyBecause.length > 0 && lock) {
    notices.push(...readOnlyBecause);
    lock.release();
    lock = null;
  }

  let writer: JournalWriter | null = null;
  if (lock) {
    const opened = JournalWriter.open(file, fileSystem);
    if (opened.isErr()) return fail(opened.error);
    writer = opened.value;
  }
  return ok({ header: journal.header, entries: journal.entries, fileSize, writer, lock, notices });
}
