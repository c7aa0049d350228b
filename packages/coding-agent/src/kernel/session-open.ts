// Opens the session a CodingAgent works in: new, the latest of this cwd, a named one, a fork,
// or an ephemeral one (journaled to a temporary directory that is removed on close).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import {
  createSession,
  currentPlatform,
  listSessions,
  openSession,
  type Session,
  type SessionError,
} from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import type { CodingAgentError, SessionChoice, SessionProblem } from "./types.js";

export interface OpenedSession {
  session: Session;
  reason: "new" | "resume" | "fork";
  /** Set for ephemeral sessions: remove on close. */
  temporaryDir?: string;
}

/** ~/.keel/sessions/<cwd as a safe folder name>. */
export function defaultSessionDir(home: string, cwd: string): string {
  const slug =
    resolve(cwd)
      .replace(/^[/\\]+/, "")
      .replace(/[/\\:]+/g, "-")
      .replace(/[^A-Za-z0-9._-]/g, "_") || "root";
  return join(home, "sessions", slug);
}

const sessionError = (message: string, problem?: SessionProblem): CodingAgentError => ({
  type: "session",
  message,
  ...(problem ? { problem } : {}),
});

/** The journal's own error, tagged with what a host can do about it. */
function openError(error: SessionError): CodingAgentError {
  if (error.type === "locked") return sessionError(error.message, "locked");
  if (error.type === "corrupt") return sessionError(error.message, "damaged");
  return sessionError(error.message);
}

async function openExisting(
  path: string,
  readOnly: boolean,
): Promise<Result<OpenedSession, CodingAgentError>> {
  const opened = await openSession(path, { readOnly });
  return opened.isErr() ? err(openError(opened.error)) : ok({ session: opened.value, reason: "resume" });
}

/**
 * The newest session of `dir` for --continue. A file that cannot be read but is newer than
 * every readable one is the session the user means: it is reported, never passed over for an
 * older one or for a silent new session.
 */
export function latestSessionFile(dir: string): Result<string | undefined, CodingAgentError> {
  const listed = listSessions(dir);
  if (listed.isErr()) return err(sessionError(listed.error.message));
  const latest = listed.value.sessions[0];
  const newer = listed.value.problems
    .filter((p) => !latest || (p.modified !== undefined && p.modified > latest.lastActivity))
    .sort((a, b) => ((a.modified ?? "") < (b.modified ?? "") ? 1 : -1))[0];
  if (newer) {
    return err(
      sessionError(
        `The most recent session file cannot be continued: ${newer.error.message} ` +
          "Nothing was opened. Move the file aside to continue the session before it, pick one with --resume, or start a new session.",
        "damaged",
      ),
    );
  }
  return ok(latest?.path);
}

/** Where the child agents of the sessions in `dir` keep their journals. */
export function childSessionDir(dir: string): string {
  return join(dir, "children");
}

/**
 * A session given by id (or id prefix) in `dir`, or by path; then a child agent's session by id
 * (`child`: it is shown, not continued — its run belongs to its parent).
 */
function findSessionPath(
  dir: string,
  ref: string,
): Result<{ path: string; child: boolean }, CodingAgentError> {
  if (isAbsolute(ref) || ref.endsWith(".jsonl")) {
    const path = resolve(ref);
    return ok({ path, child: resolve(path, "..") === resolve(childSessionDir(dir)) });
  }
  for (const [where, child] of [
    [dir, false],
    [childSessionDir(dir), true],
  ] as const) {
    const listed = listSessions(where);
    if (listed.isErr()) return err(sessionError(listed.error.message));
    const matches = listed.value.sessions.filter((s) => s.id === ref || s.id.startsWith(ref));
    if (matches.length === 1) return ok({ path: matches[0]!.path, child });
    if (matches.length > 1)
      return err(sessionError(`"${ref}" matches ${matches.length} sessions; give more of the id.`));
  }
  return err(sessionError(`No session "${ref}" in ${dir}. List them with keel --resume.`));
}

export async function openChosenSession(
  choice: SessionChoice,
  dir: string,
  cwd: string,
): Promise<Result<OpenedSession, CodingAgentError>> {
  // The date and platform the system prompt gives, fixed for the session's life (journaled).
  const environment = { date: new Date().toISOString().slice(0, 10), platform: currentPlatform() };
  const create = async (at: string) => {
    const created = await createSession({ dir: at, cwd, environment });
    return created.isErr() ? err(sessionError(created.error.message)) : ok(created.value);
  };
  if (choice.mode === "ephemeral") {
    const temporaryDir = mkdtempSync(join(tmpdir(), "keel-ephemeral-"));
    const created = await createSession({ dir: temporaryDir, cwd, fsync: "never", environment });
    if (created.isErr()) return err(sessionError(created.error.message));
    return ok({ session: created.value, reason: "new", temporaryDir });
  }
  if (choice.mode === "new")
    return (await create(dir)).map((session) => ({ session, reason: "new" as const }));
  if (choice.mode === "continue") {
    const latest = latestSessionFile(dir);
    if (latest.isErr()) return err(latest.error);
    if (latest.value) return openExisting(latest.value, choice.readOnly === true);
    if (choice.readOnly) return err(sessionError(`There is no session in ${dir} to open.`));
    return (await create(dir)).map((session) => ({ session, reason: "new" as const }));
  }
  const found = findSessionPath(dir, choice.session);
  if (found.isErr()) return err(found.error);
  const path = found.value.path;
  if (choice.mode === "resume") return openExisting(path, choice.readOnly === true || found.value.child);
  const source = await openSession(path, { readOnly: true });
  if (source.isErr()) return err(openError(source.error));
  const forked = await source.value.fork(choice.entryId ?? source.value.headId, { dir });
  await source.value.close();
  return forked.isErr()
    ? err(sessionError(forked.error.message))
    : ok({ session: forked.value, reason: "fork" });
}
