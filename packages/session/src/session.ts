// A session file opened for use: the single append path (one write per entry, durability
// by policy), head movement (branch, rewind, fork, labels) and the fold of the current head.
// One long idea: the Session is the journal's single writer. Every change to the file (entries,
// checkpoints, head moves, fork, close) goes through its private write path and refusal checks,
// so they stay on one class; the parts without that state are beside it (journal-writer.ts,
// checkpoint.ts, files.ts, fold.ts, restore-plan.ts).
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { AssistantMessage, Message } from "@keel/protocol";
import { err, ok, type Result } from "neverthrow";
import { CheckpointCoalescer } from "./checkpoint.js";
import { encodeLine } from "./codec.js";
import { ioError } from "./errors.js";
import { sessionFileName, writeNewSessionFile } from "./files.js";
import { foldIndexed, type JournalIndex, resolveHead } from "./fold.js";
import { newEntryId } from "./ids.js";
import type { JournalFileSystem, JournalWriter, WriterStats } from "./journal-writer.js";
import { emptyInfo, noteEntry, type SessionInfo, writeSidecar } from "./listing.js";
import type { HeldLock } from "./lock.js";
import { openFile } from "./open.js";
import { type RestorePlan, restorePlan } from "./restore-plan.js";
import {
  type FoldedSession,
  type FsyncPolicy,
  isNodeEntry,
  isUnknownEntry,
  type KnownEntry,
  type LabelEntry,
  META_TYPES,
  type MessageEntry,
  type NewEntry,
  NODE_TYPES,
  type OpenNotice,
  SESSION_FORMAT_VERSION,
  type SessionEntry,
  type SessionEnvironment,
  type SessionError,
  type SessionHeader,
} from "./types.js";

export interface SessionOptions {
  /** When appends reach stable storage. Default "turn". op_begin is always durable first. */
  fsync?: FsyncPolicy;
  /** Minimum time between two written streaming checkpoints. Default 250 ms. */
  checkpointIntervalMs?: number;
  /** The writer's file-system calls; replace them only to inject faults in tests. */
  fileSystem?: JournalFileSystem;
}

export interface CreateSessionOptions extends SessionOptions {
  /** Directory holding the session files (created if missing). */
  dir: string;
  /** The working directory the session is about. */
  cwd: string;
  /** For a child agent's session: who started it (recorded in the header). */
  spawnedBy?: SessionHeader["spawnedBy"];
  /** When and where the session's system prompt says it runs (recorded in the header). */
  environment?: SessionHeader["environment"];
  /**
   * Flush the new file (and its directory entry) before returning. Default true. A child agent's
   * journal skips it: spawns in one batch would queue behind each other's fsyncs, and the first
   * turn's sync makes the file durable (the parent journals the spawn itself durably).
   */
  syncCreate?: boolean;
}

export interface OpenSessionOptions extends SessionOptions {
  /** Open without taking the writer lock; appends fail, a torn tail is ignored, not repaired. */
  readOnly?: boolean;
}

type Out<T> = Promise<Result<T, SessionError>>;

const now = (): string => new Date().toISOString();

/** The platform line a new session's prompt gets: `process.platform process.arch`. */
export const currentPlatform = (): string => `${process.platform} ${process.arch}`;

export async function createSession(options: CreateSessionOptions): Out<Session> {
  const header: SessionHeader = {
    type: "session",
    version: SESSION_FORMAT_VERSION,
    id: randomUUID(),
    cwd: options.cwd,
    created: now(),
    ...(options.spawnedBy ? { spawnedBy: options.spawnedBy } : {}),
    ...(options.environment ? { environment: options.environment } : {}),
  };
  return createFile(resolve(options.dir), header, [], options, options.syncCreate !== false);
}

async function createFile(
  dir: string,
  header: SessionHeader,
  entries: SessionEntry[],
  options: SessionOptions,
  sync = true,
): Out<Session> {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    return err(ioError("create directory", dir, e));
  }
  const path = join(dir, sessionFileName(header.created, header.id));
  const written = writeNewSessionFile(path, header, entries, sync);
  if (written.isErr()) return err(written.error);
  return openSession(path, options);
}

export async function openSession(path: string, options: OpenSessionOptions = {}): Out<Session> {
  const file = resolve(path);
  const opened = openFile(file, options.readOnly === true, now(), options.fileSystem);
  if (opened.isErr()) return err(opened.error);
  const { header, entries, fileSize, writer, lock, notices } = opened.value;
  return ok(new Session(file, header, entries, fileSize, writer, lock, notices, options));
}

/** An open session. Create with `createSession` / `openSession`; close when done. */
export class Session {
  readonly header: SessionHeader;
  /** What opening found or did (repairs, read-only reasons, reclaimed lock): say each once. */
  readonly notices: readonly OpenNotice[];
  private readonly list: SessionEntry[];
  private readonly byId = new Map<string, number>();
  private readonly index: JournalIndex;
  private head: string | null = null;
  private readonly policy: FsyncPolicy;
  private readonly coalescer: CheckpointCoalescer;
  private readonly info: SessionInfo;
  /** The last write or flush failure not yet recovered from; the next append retries first. */
  private failed: SessionError | null = null;
  private closed = false;
  private cache: { length: number; head: string | null; folded: FoldedSession } | null = null;

  /** @internal use createSession / openSession */
  constructor(
    readonly path: string,
    header: SessionHeader,
    entries: SessionEntry[],
    private fileSize: number,
    private readonly writer: JournalWriter | null,
    private readonly lock: HeldLock | null,
    notices: OpenNotice[],
    options: SessionOptions,
  ) {
    this.header = header;
    this.list = entries;
    this.policy = options.fsync ?? "turn";
    this.info = emptyInfo(path, header);
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      this.byId.set(e.id, i);
      noteEntry(this.info, e);
    }
    // Replay head movement: nodes become the head, a leaf points it elsewhere.
    for (const e of entries) {
      if (isUnknownEntry(e)) continue;
      if (isNodeEntry(e)) this.head = e.id;
      else if (e.type === "leaf") {
        if (e.targetId === null || this.byId.has(e.targetId)) this.head = e.targetId;
        else {
          notices.push({
            type: "corrupt_line",
            line: this.byId.get(e.id)! + 2,
            message: `Leaf entry ${e.id} points at unknown entry ${e.targetId}; ignored.`,
          });
        }
      }
    }
    this.index = { entries: this.list, byId: this.byId };
    this.notices = notices;
    this.coalescer = new CheckpointCoalescer((m) => this.writeCheckpoint(m), {
      intervalMs: options.checkpointIntervalMs ?? 250,
      now: Date.now,
    });
  }

  /** When and where the session began, as its system prompt says it (see SessionHeader.environment). */
  get environment(): SessionEnvironment {
    const written = this.header.environment;
    if (written && typeof written.date === "string" && typeof written.platform === "string") return written;
    return { date: this.header.created.slice(0, 10), platform: currentPlatform() };
  }

  get id(): string {
    return this.header.id;
  }

  get readOnly(): boolean {
    return this.writer === null;
  }

  /** The current head (the node the next entry hangs off); null before the first entry. */
  get headId(): string | null {
    return this.head;
  }

  /** Every entry in file order. Read-only view: do not mutate. */
  entries(): readonly SessionEntry[] {
    return this.list;
  }

  getEntry(id: string): SessionEntry | undefined {
    const at = this.byId.get(id);
    return at === undefined ? undefined : this.list[at];
  }

  stats(): WriterStats {
    return this.writer ? { ...this.writer.stats } : { writes: 0, fsyncs: 0, bytes: 0, failures: 0 };
  }

  /**
   * The write failure the journal has not recovered from (disk full, I/O error), or null.
   * Appends keep being tried: the first one that succeeds clears it.
   */
  get writeFailure(): SessionError | null {
    return this.failed;
  }

  /** The fold of the current head (cached until the journal or head changes). */
  fold(): FoldedSession {
    const c = this.cache;
    if (c && c.length === this.list.length && c.head === this.head) return c.folded;
    const folded = foldIndexed(this.index, this.head);
    this.cache = { length: this.list.length, head: this.head, folded };
    return folded;
  }

  /** The model context at the head. */
  context(): Message[] {
    return this.fold().messages;
  }

  /**
   * The files to put back so the working tree matches `targetId` as Keel's file tools left it
   * (see `restorePlan`), starting from the current head.
   */
  restorePlan(targetId: string | null): Result<RestorePlan, SessionError> {
    const target = this.resolveNode(targetId);
    if (target.isErr()) return err(target.error);
    return ok(restorePlan(this.index, this.head, target.value));
  }

  /** Listing info as of now. */
  listingInfo(): SessionInfo {
    return structuredClone(this.info);
  }

  private refusal(): SessionError | null {
    if (this.closed) return { type: "closed", path: this.path, message: `Session ${this.path} is closed.` };
    if (!this.writer) {
      return {
        type: "read_only",
        path: this.path,
        message: `Session ${this.path} is open read-only (see its notices); fork it to continue.`,
      };
    }
    return null;
  }

  /** The one append path. Synchronous write; durability is awaited by the callers. */
  private write(data: NewEntry): Result<SessionEntry, SessionError> {
    const refused = this.refusal();
    if (refused) return err(refused);
    if (NODE_TYPES.has(data.type)) this.coalescer.cancel();
    // type, id, parentId, timestamp first: a line's head says what it is at a glance.
    const base = {
      type: data.type,
      id: newEntryId((id) => this.byId.has(id)),
      parentId: this.head,
      timestamp: now(),
    };
    const entry = Object.assign(base, data) as KnownEntry;
    const line = encodeLine(entry);
    if (this.failed) {
      // The failed write may have left part of a line: cut back to the last whole one first.
      const cut = this.writer!.truncate(this.fileSize);
      if (cut.isErr()) return err(this.fail(cut.error));
    }
    const written = this.writer!.write(line);
    if (written.isErr()) return err(this.fail(written.error));
    this.failed = null;
    this.fileSize += written.value;
    this.byId.set(entry.id, this.list.length);
    this.list.push(entry);
    noteEntry(this.info, entry);
    if (isNodeEntry(entry)) this.head = entry.id;
    else if (entry.type === "leaf") this.head = entry.targetId;
    return ok(entry);
  }

  private fail(error: SessionError): SessionError {
    this.failed = error;
    return error;
  }

  private validate(data: NewEntry): SessionError | null {
    if (!NODE_TYPES.has(data.type) && !META_TYPES.has(data.type)) {
      return { type: "invalid", message: `Unknown entry type "${data.type}".` };
    }
    const target =
      data.type === "leaf" || data.type === "label"
        ? data.targetId
        : data.type === "compaction"
          ? data.firstKeptEntryId
          : null;
    if (target !== null && !this.byId.has(target)) {
      return { type: "unknown_entry", entryId: target, message: `No entry ${target} in session ${this.id}.` };
    }
    return null;
  }

  /** Appends one entry; resolves once it is as durable as the policy (and T1) require. */
  async appendEntry(data: NewEntry): Out<SessionEntry> {
    const invalid = this.validate(data);
    if (invalid) return err(invalid);
    const written = this.write(data);
    if (written.isErr()) return written;
    if (this.policy === "always" || data.type === "op_begin") {
      const synced = await this.writer!.sync();
      if (synced.isErr()) return err(this.fail(synced.error));
    }
    return written;
  }

  async appendMessage(message: Message): Out<MessageEntry> {
    return (await this.appendEntry({ type: "message", message })) as Result<MessageEntry, SessionError>;
  }

  /**
   * Records the partial assistant message while it streams. Cheap to call on every delta:
   * at most one checkpoint per interval is written, the latest. Appending anything to the
   * branch (normally the final message) supersedes it.
   */
  checkpoint(partial: AssistantMessage): void {
    if (this.refusal()) return;
    this.coalescer.offer(partial);
  }

  private writeCheckpoint(message: AssistantMessage): number {
    const before = this.fileSize;
    const written = this.write({ type: "checkpoint", message });
    if (written.isOk() && this.policy === "always") {
      // Nobody awaits a checkpoint: a failed flush is kept and counted like a failed write.
      void this.writer!.sync().then((synced) => {
        if (synced.isErr()) this.fail(synced.error);
      });
    }
    return this.fileSize - before;
  }

  private resolveNode(entryId: string | null): Result<string | null, SessionError> {
    if (entryId !== null && !this.byId.has(entryId)) {
      return err({ type: "unknown_entry", entryId, message: `No entry ${entryId} in session ${this.id}.` });
    }
    return ok(resolveHead(this.index, entryId));
  }

  private async moveHead(target: string | null, summary: string | undefined): Out<string | null> {
    const from = this.head;
    if (target !== from) {
      const moved = await this.appendEntry({ type: "leaf", targetId: target });
      if (moved.isErr()) return err(moved.error);
    }
    if (summary !== undefined) {
      const added = await this.appendEntry({ type: "branch_summary", fromId: from, summary });
      if (added.isErr()) return err(added.error);
    }
    return ok(this.head);
  }

  /**
   * Moves the head to `entryId` (null: before the first entry); the next entry continues
   * from there. With `summary`, a branch_summary of the branch left behind is placed there.
   * Resolves to the new head.
   */
  async branch(entryId: string | null, options: { summary?: string } = {}): Out<string | null> {
    const target = this.resolveNode(entryId);
    if (target.isErr()) return err(target.error);
    return this.moveHead(target.value, options.summary);
  }

  /**
   * Undoes `entryId` and everything after it on the branch: the head moves to its parent.
   * Resolves to the rewound entry (e.g. the user message to put back in the editor).
   */
  async rewind(entryId: string, options: { summary?: string } = {}): Out<SessionEntry> {
    const node = this.resolveNode(entryId);
    if (node.isErr()) return err(node.error);
    if (node.value === null)
      return err({ type: "invalid", message: "Nothing to rewind: the session is empty." });
    const entry = this.getEntry(node.value)!;
    const moved = await this.moveHead(entry.parentId, options.summary);
    if (moved.isErr()) return err(moved.error);
    return ok(entry);
  }

  /** Labels an entry (session-wide); an empty label removes it. */
  async label(targetId: string, label: string): Out<LabelEntry> {
    return (await this.appendEntry({ type: "label", targetId, label })) as Result<LabelEntry, SessionError>;
  }

  async setName(name: string): Out<SessionEntry> {
    return this.appendEntry({ type: "info", name });
  }

  /**
   * A new session file holding a copy of the path root → `entryId` (default: the head),
   * with entry ids kept and `parentSession` pointing back here. Works on read-only sessions
   * too: it is the way to continue one. The copy stands alone; the parent may be deleted.
   */
  async fork(
    entryId: string | null = this.head,
    options: SessionOptions & { dir?: string } = {},
  ): Out<Session> {
    const target = this.resolveNode(entryId);
    if (target.isErr()) return err(target.error);
    const folded = foldIndexed(this.index, target.value);
    const copied: SessionEntry[] = [];
    let parentId: string | null = null;
    // Re-link along the path: entries skipped on the way (unknown types) are not copied.
    for (const id of folded.path) {
      const e = this.getEntry(id)!;
      copied.push({ ...e, parentId } as SessionEntry);
      parentId = id;
    }
    const stamp = now();
    const onPath = new Set(folded.path);
    for (const [targetId, label] of Object.entries(folded.labels)) {
      if (!onPath.has(targetId)) continue;
      copied.push({
        type: "label",
        id: newEntryId((i) => this.byId.has(i)),
        parentId,
        timestamp: stamp,
        targetId,
        label,
      });
    }
    const header: SessionHeader = {
      type: "session",
      version: SESSION_FORMAT_VERSION,
      id: randomUUID(),
      cwd: this.header.cwd,
      created: stamp,
      parentSession: { id: this.id, path: this.path, entryId: target.value },
      // A fork goes on with the same conversation: the same prompt, and its cached prefix.
      environment: this.environment,
    };
    return createFile(options.dir ?? dirname(this.path), header, copied, {
      fsync: options.fsync ?? this.policy,
      ...(options.fileSystem ? { fileSystem: options.fileSystem } : {}),
      ...(options.checkpointIntervalMs !== undefined
        ? { checkpointIntervalMs: options.checkpointIntervalMs }
        : {}),
    });
  }

  /**
   * Turn end: flushes (unless the policy is "never") and refreshes the listing sidecar.
   */
  async sync(): Out<void> {
    if (!this.writer || this.closed) return ok(undefined);
    if (this.policy !== "never") {
      const synced = await this.writer.sync();
      if (synced.isErr()) return err(this.fail(synced.error));
    }
    writeSidecar(this.info, this.fileSize);
    return ok(undefined);
  }

  /** Drops any pending checkpoint, flushes (policy permitting), writes the sidecar, releases the lock. */
  async close(): Out<void> {
    if (this.closed) return ok(undefined);
    this.coalescer.cancel();
    this.closed = true;
    if (!this.writer) return ok(undefined);
    const closed = await this.writer.close(this.policy !== "never");
    writeSidecar(this.info, this.fileSize);
    this.lock?.release();
    return closed;
  }
}
