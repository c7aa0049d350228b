// GitHub pull request actions: list, get, diff, create, review comment, merge. Merging is
// destructive (it changes the base branch for everyone); the preview says exactly how.
import { Type } from "@keel/extension-sdk";
import { okAsync } from "neverthrow";
import { fieldLines, truncate } from "../sdk/text.js";
import {
  action,
  IssueNumber,
  Limit,
  type PullLike,
  pullLine,
  pullText,
  Repo,
  repoParts,
  requestOptions,
} from "./shape.js";

export const DIFF_LIMIT = 60_000;

const pullData = (p: PullLike) => ({
  number: p.number,
  title: p.title,
  state: p.merged ? "merged" : p.state,
  head: p.head.ref,
  base: p.base.ref,
  url: p.html_url,
});

export const listPullRequests = action({
  name: "list_pull_requests",
  description:
    "List pull requests of a GitHub repository. Filter by state, base branch or head (`owner:branch`).",
  effect: "read",
  parameters: Type.Object({
    repo: Repo,
    state: Type.Optional(Type.Union([Type.Literal("open"), Type.Literal("closed"), Type.Literal("all")])),
    base: Type.Optional(Type.String()),
    head: Type.Optional(Type.String({ description: "owner:branch" })),
    limit: Limit,
  }),
  run: (args, { client, attempt, signal }) =>
    attempt(() =>
      client.pulls.list({
        ...repoParts(args.repo),
        state: args.state ?? "open",
        ...(args.base ? { base: args.base } : {}),
        ...(args.head ? { head: args.head } : {}),
        per_page: args.limit ?? 30,
        ...requestOptions(signal),
      }),
    ).map(({ data }) => {
      const pulls = data as unknown as PullLike[];
      return {
        text:
          pulls.length > 0
            ? pulls.map(pullLine).join("\n")
            : `No ${args.state ?? "open"} pull requests in ${args.repo}.`,
        data: { pullRequests: pulls.map(pullData) },
      };
    }),
});

export const getPullRequest = action({
  name: "get_pull_request",
  description:
    "Read one pull request: title, state, branches, mergeability, size and description. For the changes use github__get_pull_request_diff.",
  effect: "read",
  parameters: Type.Object({ repo: Repo, number: IssueNumber }),
  run: (args, { client, attempt, signal }) =>
    attempt(() =>
      client.pulls.get({ ...repoParts(args.repo), pull_number: args.number, ...requestOptions(signal) }),
    ).map(({ data }) => ({ text: pullText(data as PullLike), data: pullData(data as PullLike) })),
});

export const getPullRequestDiff = action({
  name: "get_pull_request_diff",
  description: `The unified diff of a pull request (at most ${DIFF_LIMIT} characters; longer diffs are cut and say so).`,
  effect: "read",
  parameters: Type.Object({ repo: Repo, number: IssueNumber }),
  run: (args, { client, attempt, signal }) =>
    attempt(() =>
      client.pulls.get({
        ...repoParts(args.repo),
        pull_number: args.number,
        mediaType: { format: "diff" },
        ...requestOptions(signal),
      }),
    ).map(({ data }) => {
      // With the diff media type GitHub answers text, which Octokit passes through as a string.
      const diff = String(data as unknown);
      return {
        text: diff.trim()
          ? truncate(diff, DIFF_LIMIT, "read single files with github__get_contents")
          : "(empty diff)",
        data: { characters: diff.length, truncated: diff.length > DIFF_LIMIT },
      };
    }),
});

export const createPullRequest = action({
  name: "create_pull_request",
  description: "Open a pull request from a pushed branch (`head`) into `base`.",
  effect: "create",
  parameters: Type.Object({
    repo: Repo,
    title: Type.String({ minLength: 1 }),
    head: Type.String({
      minLength: 1,
      description: "The branch with the changes (`owner:branch` across forks)",
    }),
    base: Type.String({ minLength: 1, description: "The branch to merge into" }),
    body: Type.Optional(Type.String()),
    draft: Type.Optional(Type.Boolean()),
  }),
  preview: (args) => ({
    format: "text",
    text: `POST /repos/${args.repo}/pulls\n${fieldLines({ title: args.title, head: args.head, base: args.base, draft: args.draft })}\n\n${args.body ?? "(no description)"}`,
  }),
  run: (args, { client, attempt, signal }) =>
    attempt(() =>
      client.pulls.create({
        ...repoParts(args.repo),
        title: args.title,
        head: args.head,
        base: args.base,
        ...(args.body === undefined ? {} : { body: args.body }),
        ...(args.draft === undefined ? {} : { draft: args.draft }),
        ...requestOptions(signal),
      }),
    ).map(({ data }) => ({
      text: `Opened pull request #${data.number} "${data.title}" (${args.head} → ${args.base}): ${data.html_url}`,
      data: pullData(data as PullLike),
    })),
});

export const createReviewComment = action({
  name: "create_review_comment",
  description:
    "Comment on a line of a pull request's diff. `line` is the line number in the file (the new version unless side is LEFT). Without commit_id the pull request's head commit is used.",
  effect: "create",
  parameters: Type.Object({
    repo: Repo,
    number: IssueNumber,
    path: Type.String({ minLength: 1, description: "The file, relative to the repository root" }),
    line: Type.Integer({ minimum: 1 }),
    body: Type.String({ minLength: 1 }),
    side: Type.Optional(Type.Union([Type.Literal("LEFT"), Type.Literal("RIGHT")])),
    commit_id: Type.Optional(Type.String({ pattern: "^[0-9a-f]{7,40}$" })),
  }),
  preview: (args) => ({
    format: "text",
    text: `POST /repos/${args.repo}/pulls/${args.number}/comments\n${fieldLines({ path: args.path, line: args.line, side: args.side ?? "RIGHT", commit: args.commit_id ?? "the pull request's head" })}\n\n${args.body}`,
  }),
  run: (args, { client, attempt, signal }) => {
    const where = { ...repoParts(args.repo), pull_number: args.number, ...requestOptions(signal) };
    const commit = args.commit_id
      ? okAsync<string, never>(args.commit_id)
      : attempt(() => client.pulls.get(where)).map(({ data }) => data.head.sha);
    return commit
      .andThen((commit_id) =>
        attempt(() =>
          client.pulls.createReviewComment({
            ...where,
            commit_id,
            path: args.path,
            line: args.line,
            side: args.side ?? "RIGHT",
            body: args.body,
          }),
        ),
      )
      .map(({ data }) => ({
        text: `Commented on ${args.path}:${args.line} of #${args.number}: ${data.html_url}`,
        data: { id: data.id, url: data.html_url },
      }));
  },
});

export const mergePullRequest = action({
  name: "merge_pull_request",
  description:
    "Merge a pull request into its base branch (merge, squash or rebase). Pass `sha` to merge only if the head is still that commit.",
  effect: "destructive",
  parameters: Type.Object({
    repo: Repo,
    number: IssueNumber,
    method: Type.Optional(
      Type.Union([Type.Literal("merge"), Type.Literal("squash"), Type.Literal("rebase")]),
    ),
    commit_title: Type.Optional(Type.String()),
    commit_message: Type.Optional(Type.String()),
    sha: Type.Optional(Type.String({ pattern: "^[0-9a-f]{7,40}$", description: "Expected head commit" })),
  }),
  preview: (args) => ({
    format: "text",
    text: `PUT /repos/${args.repo}/pulls/${args.number}/merge\n${fieldLines({ method: args.method ?? "merge", "commit title": args.commit_title, "expected head": args.sha })}${args.commit_message === undefined ? "" : `\n\n${args.commit_message}`}`,
  }),
  run: (args, { client, attempt, signal }) =>
    attempt(() =>
      client.pulls.merge({
        ...repoParts(args.repo),
        pull_number: args.number,
        merge_method: args.method ?? "merge",
        ...(args.commit_title === undefined ? {} : { commit_title: args.commit_title }),
        ...(args.commit_message === undefined ? {} : { commit_message: args.commit_message }),
        ...(args.sha === undefined ? {} : { sha: args.sha }),
        ...requestOptions(signal),
      }),
    ).map(({ data }) => ({
      text: `Merged #${args.number} (${args.method ?? "merge"}) as ${data.sha.slice(0, 12)}: ${data.message}`,
      data: { merged: data.merged, sha: data.sha },
    })),
});
