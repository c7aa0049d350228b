// Opens the session a CodingAgent works in: new, the latest of this cwd, a named one, a fork,
// or an ephemeral one (journaled to a temporary directory that is removed on close).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { createSession, listSessions, openSession, type Session } from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import type { CodingAgentError, SessionChoice } from "./types.js";

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

const sessionError = (message: string): CodingAgentError => ({ type: "session", message });

/** A session given by id (or id prefix) in `dir`, or by path. */
function findSessionPath(dir: string, ref: string): Result<string, CodingAgentError> {
  if (isAbsolute(ref) || ref.endsWith(".jsonl")) return ok(resolve(ref));
  const listed = listSessions(dir);
  if (listed.isErr()) return err(sessionError(listed.error.message));
  const matches = listed.value.sessions.filter((s) => s.id === ref || s.id.startsWith(ref));
  if (matches.length === 1) return ok(matches[0]!.path);
  if (matches.length === 0)
    return err(sessionError(`No session "${ref}" in ${dir}. List them with keel --resume.`));
  return err(sessionError(`"${ref}" matches ${matches.length} sessions; give more of the id.`));
}

export async function openChosenSession(
  choice: SessionChoice,
  dir: string,
  cwd: string,
): Promise<Result<OpenedSession, CodingAgentError>> {
  const create = async (at: string) => {
    const created = await createSession({ dir: at, cwd });
    return created.isErr() ? err(sessionError(created.error.message)) : ok(created.value);
  };
  if (choice.mode === "ephemeral") {
    const temporaryDir = mkdtempSync(join(tmpdir(), "keel-ephemeral-"));
    const created = await createSession({ dir: temporaryDir, cwd, fsync: "never" });
    if (created.isErr()) return err(sessionError(created.error.message));
    return ok({ session: created.value, reason: "new", temporaryDir });
  }
  if (choice.mode === "new")
    return (await create(dir)).map((session) => ({ session, reason: "new" as const }));
  if (choice.mode === "continue") {
    const listed = listSessions(dir);
    const latest = listed.isOk() ? listed.value.sessions[0] : undefined;
    if (!latest) return (await create(dir)).map((session) => ({ session, reason: "new" as const }));
    const opened = await openSession(latest.path);
    return opened.isErr()
      ? err(sessionError(opened.error.message))
      : ok({ session: opened.value, reason: "resume" });
  }
  const path = findSessionPath(dir, choice.session);
  if (path.isErr()) return err(path.error);
  if (choice.mode === "resume") {
    const opened = await openSession(path.value);
    return opened.isErr()
      ? err(sessionError(opened.error.message))
      : ok({ session: opened.value, reason: "resume" });
  }
  const source = await openSession(path.value, { readOnly: true });
  if (source.isErr()) return err(sessionError(source.error.message));
  const forked = await source.value.fork(choice.entryId ?? source.value.headId, { dir });
  await source.value.close();
  return forked.isErr()
    ? err(sessionError(forked.error.message))
    : ok({ session: forked.value, reason: "fork" });
}
