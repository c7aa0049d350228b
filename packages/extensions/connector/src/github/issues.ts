// GitHub issue actions: list, get, create, update, comment, close. Closing is destructive: it
// changes what everyone watching the repository sees, and the policy never lets "always" cover it.
import { Type } from "@keel/extension-sdk";
import { fieldLines } from "../sdk/text.js";
import {
  action,
  type IssueLike,
  IssueNumber,
  issueLine,
  issueText,
  Limit,
  Repo,
  repoParts,
  requestOptions,
} from "./shape.js";

const issueData = (i: IssueLike) => ({ number: i.number, title: i.title, state: i.state, url: i.html_url });

/** The description, labels and assignees the model gave, and only those: creating or updating, an absent one is not sent. */
function givenFields(args: { body?: string; labels?: string[]; assignees?: string[] }) {
  return {
    ...(args.body === undefined ? {} : { body: args.body }),
    ...(args.labels ? { labels: args.labels } : {}),
    ...(args.assignees ? { assignees: args.assignees } : {}),
  };
}

export const listIssues = action({
  name: "list_issues",
  description:
    "List issues of a GitHub repository, most recently created first (pull requests are left out). Filter by state, labels or assignee.",
  effect: "read",
  parameters: Type.Object({
    repo: Repo,
    state: Type.Optional(Type.Union([Type.Literal("open"), Type.Literal("closed"), Type.Literal("all")])),
    labels: Type.Optional(Type.Array(Type.String(), { description: "Only issues with all of these labels" })),
    assignee: Type.Optional(Type.String({ description: "A login, `none` or `*`" })),
    limit: Limit,
  }),
  run: (args, { client, attempt, signal }) =>
    attempt(() =>
      client.issues.listForRepo({
        ...repoParts(args.repo),
        state: args.state ?? "open",
        ...(args.labels?.length ? { labels: args.labels.join(",") } : {}),
        ...(args.assignee ? { assignee: args.assignee } : {}),
        per_page: args.limit ?? 30,
        ...requestOptions(signal),
      }),
    ).map(({ data }) => {
      const issues = (data as IssueLike[]).filter((i) => !i.pull_request);
      const skipped = data.length - issues.length;
      const note =
        skipped > 0 ? `\n(${skipped} pull request(s) left out; use github__list_pull_requests.)` : "";
      const text =
        issues.length > 0
          ? issues.map(issueLine).join("\n")
          : `No ${args.state ?? "open"} issues in ${args.repo}.`;
      return { text: `${text}${note}`, data: { issues: issues.map(issueData) } };
    }),
});

export const getIssue = action({
  name: "get_issue",
  description: "Read one GitHub issue by number: title, state, labels, author and description.",
  effect: "read",
  parameters: Type.Object({ repo: Repo, number: IssueNumber }),
  run: (args, { client, attempt, signal }) =>
    attempt(() =>
      client.issues.get({ ...repoParts(args.repo), issue_number: args.number, ...requestOptions(signal) }),
    ).map(({ data }) => ({ text: issueText(data as IssueLike), data: issueData(data as IssueLike) })),
});

export const createIssue = action({
  name: "create_issue",
  description: "Open a new issue in a GitHub repository.",
  effect: "create",
  parameters: Type.Object({
    repo: Repo,
    title: Type.String({ minLength: 1 }),
    body: Type.Optional(Type.String({ description: "Markdown description" })),
    labels: Type.Optional(Type.Array(Type.String())),
    assignees: Type.Optional(Type.Array(Type.String({ description: "Logins" }))),
  }),
  preview: (args) => ({
    format: "text",
    text: `POST /repos/${args.repo}/issues\n${fieldLines({ title: args.title, labels: args.labels, assignees: args.assignees })}\n\n${args.body ?? "(no description)"}`,
  }),
  run: (args, { client, attempt, signal }) =>
    attempt(() =>
      client.issues.create({
        ...repoParts(args.repo),
        title: args.title,
        ...givenFields(args),
        ...requestOptions(signal),
      }),
    ).map(({ data }) => ({
      text: `Created issue #${data.number} "${data.title}": ${data.html_url}`,
      data: issueData(data as IssueLike),
    })),
});

export const updateIssue = action({
  name: "update_issue",
  description:
    "Change an issue's title, description, labels or assignees (given fields replace the old ones). To close one use github__close_issue.",
  effect: "update",
  parameters: Type.Object({
    repo: Repo,
    number: IssueNumber,
    title: Type.Optional(Type.String({ minLength: 1 })),
    body: Type.Optional(Type.String()),
    labels: Type.Optional(Type.Array(Type.String(), { description: "Replaces every label" })),
    assignees: Type.Optional(Type.Array(Type.String(), { description: "Replaces every assignee" })),
  }),
  preview: (args) => ({
    format: "text",
    text: `PATCH /repos/${args.repo}/issues/${args.number}\n${fieldLines({ title: args.title, labels: args.labels, assignees: args.assignees })}${args.body === undefined ? "" : `\n\n${args.body}`}`,
  }),
  run: (args, { client, attempt, signal }) =>
    attempt(() =>
      client.issues.update({
        ...repoParts(args.repo),
        issue_number: args.number,
        ...(args.title === undefined ? {} : { title: args.title }),
        ...givenFields(args),
        ...requestOptions(signal),
      }),
    ).map(({ data }) => ({
      text: `Updated #${data.number}: ${data.html_url}`,
      data: issueData(data as IssueLike),
    })),
});

export const commentIssue = action({
  name: "comment_issue",
  description: "Add a comment to an issue or pull request (its conversation, not a line of the diff).",
  effect: "create",
  parameters: Type.Object({ repo: Repo, number: IssueNumber, body: Type.String({ minLength: 1 }) }),
  preview: (args) => ({
    format: "text",
    text: `POST /repos/${args.repo}/issues/${args.number}/comments\n\n${args.body}`,
  }),
  run: (args, { client, attempt, signal }) =>
    attempt(() =>
      client.issues.createComment({
        ...repoParts(args.repo),
        issue_number: args.number,
        body: args.body,
        ...requestOptions(signal),
      }),
    ).map(({ data }) => ({
      text: `Commented on #${args.number}: ${data.html_url}`,
      data: { id: data.id, url: data.html_url },
    })),
});

export const closeIssue = action({
  name: "close_issue",
  description: "Close an issue as completed or not planned, optionally with a closing comment first.",
  effect: "destructive",
  parameters: Type.Object({
    repo: Repo,
    number: IssueNumber,
    reason: Type.Optional(Type.Union([Type.Literal("completed"), Type.Literal("not_planned")])),
    comment: Type.Optional(Type.String({ minLength: 1, description: "Posted before closing" })),
  }),
  preview: (args) => ({
    format: "text",
    text: `${args.comment === undefined ? "" : `POST /repos/${args.repo}/issues/${args.number}/comments\n\n${args.comment}\n\n`}PATCH /repos/${args.repo}/issues/${args.number}\nstate: closed\nreason: ${args.reason ?? "completed"}`,
  }),
  run: (args, { client, attempt, signal }) => {
    const where = { ...repoParts(args.repo), issue_number: args.number, ...requestOptions(signal) };
    const commented = args.comment
      ? attempt(() => client.issues.createComment({ ...where, body: args.comment! })).map(() => undefined)
      : attempt(async () => undefined);
    return commented
      .andThen(() =>
        attempt(() =>
          client.issues.update({ ...where, state: "closed", state_reason: args.reason ?? "completed" }),
        ),
      )
      .map(({ data }) => ({
        text: `Closed #${data.number} (${data.state_reason ?? args.reason ?? "completed"}): ${data.html_url}`,
        data: issueData(data as IssueLike),
      }));
  },
});
