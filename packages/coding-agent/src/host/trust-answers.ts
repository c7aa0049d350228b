// What active extensions answer about trusting the project: what each would read or run from it
// (trustPreview, shown before the user decides) and what each would honour that widens what runs
// unasked (trustApprovals, recorded with the trust). One deadline per extension.
import { withDeadline } from "./deadline.js";
import type { Active } from "./extension-host.js";

export interface ProjectPlace {
  cwd: string;
  projectRoot: string;
}

/** Each extension's trustPreview lines; a failing one says so instead of its lines. */
export async function trustPreviews(
  active: readonly Active[],
  project: ProjectPlace,
  deadlineMs: number,
): Promise<{ extensionId: string; lines: string[] }[]> {
  const out: { extensionId: string; lines: string[] }[] = [];
  for (const { extensionId, outcome } of await ask(active, "trustPreview", project, deadlineMs)) {
    const lines = outcome.isOk()
      ? (Array.isArray(outcome.value) ? outcome.value : []).filter((l): l is string => typeof l === "string")
      : [`(could not be listed: ${outcome.error.message})`];
    if (lines.length > 0) out.push({ extensionId, lines });
  }
  return out;
}

/** Each extension's trustApprovals by extension id; one that fails contributes nothing, so nothing of it is approved. */
export async function trustApprovals(
  active: readonly Active[],
  project: ProjectPlace,
  deadlineMs: number,
): Promise<Record<string, Record<string, string>>> {
  const out: Record<string, Record<string, string>> = {};
  for (const { extensionId, outcome } of await ask(active, "trustApprovals", project, deadlineMs)) {
    if (outcome.isErr() || typeof outcome.value !== "object" || outcome.value === null) continue;
    const entries = Object.entries(outcome.value).filter(
      (e): e is [string, string] => typeof e[1] === "string",
    );
    if (entries.length > 0) out[extensionId] = Object.fromEntries(entries);
  }
  return out;
}

/** Asks each extension that answers `question`, in load order, each under its own deadline. */
async function ask(
  active: readonly Active[],
  question: "trustPreview" | "trustApprovals",
  project: ProjectPlace,
  deadlineMs: number,
) {
  const answers = [];
  for (const a of active) {
    const answer: ((p: ProjectPlace, c: { signal: AbortSignal }) => unknown) | undefined =
      a.definition[question];
    if (!answer) continue;
    const outcome = await withDeadline(
      (signal) => answer.call(a.definition, project, { signal }),
      deadlineMs,
    );
    answers.push({ extensionId: a.definition.id, outcome });
  }
  return answers;
}
