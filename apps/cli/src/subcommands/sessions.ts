// keel sessions: the sessions of this directory (or of every project with --all), newest first,
// without opening any: id, last activity, messages, cost, first prompt or name, forks marked with
// their parent. Read from the listing sidecars, so it is fast and takes no lock.
import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { defaultSessionDir } from "@keel/coding-agent";
import { listSessions, type SessionInfo, type SessionListing } from "@keel/session";
import { err, ok, type Result } from "neverthrow";
import { EXIT } from "../exit-codes.js";
import { formatCost, formatStamp, oneLine } from "../format.js";
import type { SubcommandIO } from "./index.js";

const USAGE = `keel sessions [--all] [--json] [--cwd DIR]
  The sessions of this directory, newest first: id, last activity, messages, cost, first
  prompt (or name); forks are marked with their parent. --all: every project's. Resume one
  with keel -r <id>.
`;

const OPTIONS = {
  all: { type: "boolean" },
  json: { type: "boolean" },
  cwd: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export function sessionLine(s: SessionInfo): string {
  const cost = s.usage.cost.total + s.childUsage.cost.total;
  const title = s.name ?? s.firstPrompt ?? "(no prompt yet)";
  const fork = s.parentSessionId ? `↳ fork of ${s.parentSessionId.slice(0, 8)}: ` : "";
  return `${s.id.slice(0, 8)}  ${formatStamp(s.lastActivity)}  ${String(s.messageCount).padStart(4)} msgs  ${formatCost(cost).padStart(8)}  ${fork}${oneLine(title, 70)}`;
}

/**
 * The sessions a person started in `cwd` (or in every project's folder when `cwd` is undefined),
 * newest first, from the listing sidecars: no session is opened or locked. Children of subagents
 * live in folders of their own and are not listed. Files that cannot be read come back as problems.
 */
export function projectSessions(
  keelHome: string,
  cwd: string | undefined,
): Result<
  { sessions: SessionInfo[]; problems: SessionListing["problems"] },
  { type: "unreadable"; message: string }
> {
  const own = defaultSessionDir(keelHome, cwd ?? keelHome);
  let dirs = [own];
  if (cwd === undefined) {
    // Every project's folder sits beside this directory's, in the kernel's layout.
    const root = dirname(own);
    try {
      dirs = readdirSync(root, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => join(root, d.name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT")
        return err({ type: "unreadable", message: `${root} cannot be read (${(e as Error).message})` });
      dirs = [];
    }
  }
  const sessions: SessionInfo[] = [];
  const problems: SessionListing["problems"] = [];
  for (const dir of dirs) {
    const listed = listSessions(dir);
    if (listed.isErr()) return err({ type: "unreadable", message: listed.error.message });
    sessions.push(...listed.value.sessions);
    problems.push(...listed.value.problems);
  }
  sessions.sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0));
  return ok({ sessions, problems });
}

export async function sessionsCommand(argv: string[], io: SubcommandIO): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    io.stderr(`keel sessions: ${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  if (positionals.length > 0) {
    io.stderr(`keel sessions takes no arguments (got "${positionals.join(" ")}").\n${USAGE}`);
    return EXIT.usage;
  }
  const cwd = resolve(io.cwd, values.cwd ?? ".");
  const listed = projectSessions(io.keelHome, values.all ? undefined : cwd);
  if (listed.isErr()) {
    io.stderr(`keel sessions: ${listed.error.message}\n`);
    return EXIT.failed;
  }
  const { sessions, problems } = listed.value;
  for (const problem of problems)
    io.stderr(`keel: ${problem.path} cannot be read: ${problem.error.message}\n`);
  if (values.json) {
    io.stdout(
      `${JSON.stringify({
        type: "sessions",
        ...(values.all ? {} : { cwd }),
        sessions: sessions.map((s) => ({
          id: s.id,
          path: s.path,
          cwd: s.cwd,
          name: s.name,
          created: s.created,
          lastActivity: s.lastActivity,
          firstPrompt: s.firstPrompt,
          messageCount: s.messageCount,
          cost: s.usage.cost.total + s.childUsage.cost.total,
          parentSessionId: s.parentSessionId,
        })),
      })}\n`,
    );
    return EXIT.ok;
  }
  if (sessions.length === 0) {
    io.stdout(values.all ? "No sessions yet.\n" : `No sessions in ${cwd} yet.\n`);
    return EXIT.ok;
  }
  const header = values.all ? `${sessions.length} sessions:` : `${sessions.length} sessions in ${cwd}:`;
  const lines = sessions.map((s) => `  ${sessionLine(s)}${values.all ? `  (${s.cwd})` : ""}`);
  io.stdout(`${header}\n${lines.join("\n")}\nResume one with: keel -r <id>\n`);
  return EXIT.ok;
}
