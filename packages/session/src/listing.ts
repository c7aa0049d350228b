// Session listing without reading whole files: each writer keeps `<file>.meta.json` (rewritten
// atomically at turn end and on close) stamped with the file size it describes; a stale
// sidecar is topped up from the bytes appended since; listers cache it all in a dir index.
import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { emptyUsage, type Usage } from "@keel/protocol";
import { err, ok, type Result } from "neverthrow";
import { parseJournal, toEntry } from "./codec.js";
import { ioError } from "./errors.js";
import { isUnknownEntry, type SessionEntry, type SessionError, type SessionHeader } from "./types.js";

export interface SessionInfo {
  path: string;
  id: string;
  name: string | null;
  cwd: string;
  /** ISO 8601. */
  created: string;
  /** ISO 8601 timestamp of the last entry (the creation time for an empty session). */
  lastActivity: string;
  /** The first user prompt, cut to 200 characters. */
  firstPrompt: string | null;
  entryCount: number;
  /** User prompts and assistant replies journaled, on every branch. */
  messageCount: number;
  /** What the session's own model calls used, on every branch (a rewind does not refund). */
  usage: Usage;
  /** What its child agents used, as their journaled outcomes say. */
  childUsage: Usage;
  parentSessionId: string | null;
}

/** Version 2 added messageCount, usage and childUsage: an older sidecar is rebuilt. */
const SIDECAR_VERSION = 2;

interface Sidecar extends Omit<SessionInfo, "path"> {
  version: typeof SIDECAR_VERSION;
  /** Size of the session file this sidecar describes. */
  fileSize: number;
}

const PROMPT_CHARS = 200;

export function sidecarPath(sessionPath: string): string {
  return `${sessionPath}.meta.json`;
}

export function emptyInfo(path: string, header: SessionHeader): SessionInfo {
  return {
    path,
    id: header.id,
    name: null,
    cwd: header.cwd,
    created: header.created,
    lastActivity: header.created,
    firstPrompt: null,
    entryCount: 0,
    messageCount: 0,
    usage: emptyUsage(),
    childUsage: emptyUsage(),
    parentSessionId: header.parentSession?.id ?? null,
  };
}

/** Adds `more` into `sum` (in place); missing fields of an old or foreign entry count as 0. */
function addInto(sum: Usage, more: Partial<Usage> | undefined): void {
  if (!more) return;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  sum.input += n(more.input);
  sum.output += n(more.output);
  sum.cacheRead += n(more.cacheRead);
  sum.cacheWrite += n(more.cacheWrite);
  sum.reasoning += n(more.reasoning);
  sum.totalTokens += n(more.totalTokens);
  const c = more.cost;
  if (!c) return;
  sum.cost.input += n(c.input);
  sum.cost.output += n(c.output);
  sum.cost.cacheRead += n(c.cacheRead);
  sum.cost.cacheWrite += n(c.cacheWrite);
  sum.cost.total += n(c.total);
}

/** Folds one more entry into the listing info (in place). */
export function noteEntry(info: SessionInfo, entry: SessionEntry): void {
  info.entryCount++;
  if (entry.timestamp) info.lastActivity = entry.timestamp;
  if (isUnknownEntry(entry)) return;
  if (entry.type === "info" && entry.name !== undefined) info.name = entry.name;
  if (entry.type === "message") {
    const { role } = entry.message;
    if (role === "user" || role === "assistant") info.messageCount++;
    if (role === "assistant") addInto(info.usage, entry.message.usage);
  }
  if (entry.type === "agent_run" && entry.phase === "end") addInto(info.childUsage, entry.outcome?.usage);
  if (info.firstPrompt === null && entry.type === "message" && entry.message.role === "user") {
    const c = entry.message.content;
    const text = typeof c === "string" ? c : c.find((b) => b.type === "text")?.text;
    if (text !== undefined) info.firstPrompt = text.slice(0, PROMPT_CHARS);
  }
}

/** Best effort: a sidecar is a cache, and a failure to write it costs only speed. */
export function writeSidecar(info: SessionInfo, fileSize: number): void {
  const { path, ...rest } = info;
  const data: Sidecar = { version: SIDECAR_VERSION, ...rest, fileSize };
  const target = sidecarPath(path);
  const tmp = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify(data));
    renameSync(tmp, target);
  } catch {
    // The sidecar is a cache: without it, listing reads the session's head and tail instead.
  }
}

function readSidecar(path: string): Sidecar | null {
  try {
    const v = JSON.parse(readFileSync(sidecarPath(path), "utf8")) as Sidecar;
    return v.version === SIDECAR_VERSION && typeof v.fileSize === "number" ? v : null;
  } catch {
    return null;
  }
}

function readRange(path: string, start: number, end: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.allocUnsafe(end - start);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, start + off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

/** Applies the complete lines of `buf` (bytes appended after a sidecar was written). */
function applyDelta(info: SessionInfo, buf: Buffer): void {
  let pos = 0;
  for (let nl = buf.indexOf(10, pos); nl !== -1; nl = buf.indexOf(10, pos)) {
    const text = buf.toString("utf8", pos, nl);
    pos = nl + 1;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue; // a torn or damaged line: opening the session reports and repairs it
    }
    const entry =
      typeof value === "object" && value !== null ? toEntry(value as Record<string, unknown>) : null;
    if (entry) noteEntry(info, entry);
  }
}

/** Listing info for one session file: from its sidecar, topped up or rebuilt as needed. */
export function sessionInfo(path: string): Result<SessionInfo, SessionError> {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (e) {
    return err(ioError("stat", path, e));
  }
  return infoForSize(path, size);
}

function infoForSize(path: string, size: number): Result<SessionInfo, SessionError> {
  const side = readSidecar(path);
  try {
    if (side && side.fileSize <= size) {
      const { version: _v, fileSize, ...rest } = side;
      const info: SessionInfo = { path, ...rest };
      if (fileSize < size) applyDelta(info, readRange(path, fileSize, size));
      return ok(info);
    }
    // No sidecar (or one from before a repair truncated the file): one full pass.
    const parsed = parseJournal(readFileSync(path), path);
    if (parsed.isErr()) return err(parsed.error);
    const info = emptyInfo(path, parsed.value.header);
    for (const e of parsed.value.entries) noteEntry(info, e);
    return ok(info);
  } catch (e) {
    return err(ioError("read", path, e));
  }
}

export interface SessionListing {
  /** Most recent activity first. */
  sessions: SessionInfo[];
  /** Files that look like sessions but could not be read; `modified` (ISO 8601) when known. */
  problems: { path: string; error: SessionError; modified?: string }[];
}

/**
 * The directory index caches every session's info keyed by file name, size and mtime, so a
 * warm listing is one read plus one stat per session. Only listers write it (atomically);
 * writers keep to their own sidecars, so no two processes contend for one file.
 */
const INDEX_FILE = ".keel-sessions-index.json";

interface IndexRow {
  size: number;
  mtimeMs: number;
  info: Omit<SessionInfo, "path">;
}

interface DirIndex {
  version: typeof SIDECAR_VERSION;
  sessions: Record<string, IndexRow>;
}

function readIndex(dir: string): DirIndex {
  try {
    const v = JSON.parse(readFileSync(join(dir, INDEX_FILE), "utf8")) as DirIndex;
    if (v.version === SIDECAR_VERSION && typeof v.sessions === "object" && v.sessions !== null) return v;
  } catch {
    // Missing or damaged index: start empty, every session is read again and the index rebuilt.
  }
  return { version: SIDECAR_VERSION, sessions: {} };
}

function writeIndex(dir: string, index: DirIndex): void {
  const tmp = join(dir, `${INDEX_FILE}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, JSON.stringify(index));
    renameSync(tmp, join(dir, INDEX_FILE));
  } catch {
    // A read-only directory lists fine, just without the cache.
  }
}

export function listSessions(dir: string): Result<SessionListing, SessionError> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return ok({ sessions: [], problems: [] });
    return err(ioError("list", dir, e));
  }
  const cached = readIndex(dir);
  const fresh: DirIndex = { version: SIDECAR_VERSION, sessions: {} };
  let changed = false;
  const sessions: SessionInfo[] = [];
  const problems: SessionListing["problems"] = [];
  for (const name of names) {
    if (!name.endsWith(".jsonl") || name.startsWith(".")) continue;
    const path = join(dir, name);
    let size: number;
    let mtimeMs: number;
    try {
      ({ size, mtimeMs } = statSync(path));
    } catch (e) {
      problems.push({ path, error: ioError("stat", path, e) });
      continue;
    }
    const row = cached.sessions[name];
    if (row && row.size === size && row.mtimeMs === mtimeMs) {
      fresh.sessions[name] = row;
      sessions.push({ path, ...row.info });
      continue;
    }
    const info = infoForSize(path, size);
    if (info.isErr()) {
      problems.push({ path, error: info.error, modified: new Date(mtimeMs).toISOString() });
      continue;
    }
    const { path: _p, ...rest } = info.value;
    fresh.sessions[name] = { size, mtimeMs, info: rest };
    sessions.push(info.value);
    changed = true;
  }
  if (changed || Object.keys(cached.sessions).length !== Object.keys(fresh.sessions).length)
    writeIndex(dir, fresh);
  sessions.sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0));
  return ok({ sessions, problems });
}
