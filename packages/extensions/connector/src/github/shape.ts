// How GitHub's JSON becomes what the model reads: one line per item in lists, a short header and
// a bounded body for single items. Shared argument schemas for the GitHub actions.
import { Type } from "@keel/extension-sdk";
import { actionsFor } from "../sdk/connector.js";
import { splitRepo, truncate } from "../sdk/text.js";
import type { GitHubClient } from "./client.js";

export const action = actionsFor<GitHubClient>();

export const Repo = Type.String({
  pattern: "^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$",
  description: "The repository as owner/name",
});
export const IssueNumber = Type.Integer({ minimum: 1, description: "The issue or pull request number" });
export const Limit = Type.Optional(
  Type.Integer({ minimum: 1, maximum: 100, description: "How many (default 30)" }),
);

export const BODY_LIMIT = 20_000;

/** The schema guarantees the shape; this only splits it. */
export function repoParts(repo: string): { owner: string; repo: string } {
  const parts = splitRepo(repo);
  if (!parts) throw new Error(`repo "${repo}" passed validation but is not owner/name`);
  return parts;
}

/** Per-request Octokit options: the call's abort signal. */
export function requestOptions(signal: AbortSignal): { request: { signal: AbortSignal } } {
  return { request: { signal } };
}

interface Named {
  login?: string;
  name?: string;
}

export interface IssueLike {
  number: number;
  title: string;
  state: string;
  html_url: string;
  body?: string | null;
  user?: Named | null;
  labels?: (string | Named)[];
  assignees?: Named[] | null;
  comments?: number;
  created_at?: string;
  updated_at?: string;
  closed_at?: string | null;
  state_reason?: string | null;
  pull_request?: unknown;
}

export interface PullLike extends IssueLike {
  head: { ref: string; sha: string; label?: string };
  base: { ref: string; label?: string };
  draft?: boolean;
  merged?: boolean;
  mergeable?: boolean | null;
  mergeable_state?: string;
  additions?: number;
  deletions?: number;
  changed_files?: number;
}

function labelNames(labels: IssueLike["labels"]): string[] {
  return (labels ?? []).map((l) => (typeof l === "string" ? l : (l.name ?? ""))).filter(Boolean);
}

export function issueLine(issue: IssueLike): string {
  const labels = labelNames(issue.labels);
  const by = issue.user?.login ? ` by ${issue.user.login}` : "";
  const tags = labels.length > 0 ? ` [${labels.join(", ")}]` : "";
  const comments = issue.comments ? `, ${issue.comments} comment(s)` : "";
  return `#${issue.number} ${issue.state} "${issue.title}"${tags}${by}${comments}`;
}

/** A single item's text: the header lines it has, then its description, bounded (or "(no description)"). */
function withBody(header: (string | undefined)[], body: string | null | undefined): string {
  const lines = header.filter((l): l is string => l !== undefined);
  const description = body?.trim() ? truncate(body, BODY_LIMIT, "the body is longer") : "(no description)";
  return `${lines.join("\n")}\n\n${description}`;
}

export function issueText(issue: IssueLike): string {
  const labels = labelNames(issue.labels);
  const assignees = (issue.assignees ?? []).map((a) => a.login).filter(Boolean);
  const head = [
    `#${issue.number} ${issue.title}`,
    `state: ${issue.state}${issue.state_reason ? ` (${issue.state_reason})` : ""}`,
    issue.user?.login ? `author: ${issue.user.login}` : undefined,
    labels.length > 0 ? `labels: ${labels.join(", ")}` : undefined,
    assignees.length > 0 ? `assignees: ${assignees.join(", ")}` : undefined,
    issue.created_at ? `created: ${issue.created_at}` : undefined,
    `url: ${issue.html_url}`,
  ];
  return withBody(head, issue.body);
}

export function pullLine(pull: PullLike): string {
  const draft = pull.draft ? " draft" : "";
  const by = pull.user?.login ? ` by ${pull.user.login}` : "";
  return `#${pull.number} ${pull.state}${draft} "${pull.title}" ${pull.head.ref} → ${pull.base.ref}${by}`;
}

export function pullText(pull: PullLike): string {
  const state = pull.merged ? "merged" : pull.state;
  const lines = [
    `#${pull.number} ${pull.title}`,
    `state: ${state}${pull.draft ? " (draft)" : ""}`,
    `branches: ${pull.head.ref} → ${pull.base.ref} (head ${pull.head.sha.slice(0, 12)})`,
    pull.user?.login ? `author: ${pull.user.login}` : undefined,
    pull.mergeable === undefined || pull.mergeable === null
      ? undefined
      : `mergeable: ${pull.mergeable ? "yes" : "no"}${pull.mergeable_state ? ` (${pull.mergeable_state})` : ""}`,
    pull.changed_files === undefined
      ? undefined
      : `changes: ${pull.changed_files} file(s), +${pull.additions ?? 0} −${pull.deletions ?? 0}`,
    `url: ${pull.html_url}`,
  ];
  return withBody(lines, pull.body);
}
