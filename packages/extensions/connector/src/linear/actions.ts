// Linear actions over GraphQL: teams, issues (list, search, get), create, comment, update and
// archive. Issues are named by identifier (`ENG-123`) or id; teams by key (`ENG`).
import { Type } from "@keel/extension-sdk";
import { actionsFor } from "../sdk/connector.js";
import { fieldLines, truncate } from "../sdk/text.js";
import { type LinearConnection, LinearNotFound } from "./client.js";

const action = actionsFor<LinearConnection>();

const IssueRef = Type.String({ minLength: 1, description: "The issue's identifier (ENG-123) or id" });
const TeamKey = Type.String({ pattern: "^[A-Za-z0-9]{1,10}$", description: "The team's key (ENG)" });
const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: "How many (default 25)" }));
const Priority = Type.Integer({
  minimum: 0,
  maximum: 4,
  description: "0 none, 1 urgent, 2 high, 3 medium, 4 low",
});

const ISSUE_FIELDS = "id identifier title url priority state { name } assignee { name } team { key }";

interface IssueNode {
  id: string;
  identifier: string;
  title: string;
  url: string;
  priority?: number;
  state?: { name: string } | null;
  assignee?: { name: string } | null;
  team?: { key: string } | null;
  description?: string | null;
  labels?: { nodes: { name: string }[] };
  comments?: { nodes: { body: string; user?: { name: string } | null; createdAt: string }[] };
}

const PRIORITY = ["none", "urgent", "high", "medium", "low"];

function issueLine(i: IssueNode): string {
  const who = i.assignee?.name ? ` → ${i.assignee.name}` : "";
  const priority = i.priority ? ` (${PRIORITY[i.priority] ?? i.priority})` : "";
  return `${i.identifier} [${i.state?.name ?? "?"}] ${i.title}${priority}${who}`;
}

const issueData = (i: IssueNode) => ({
  id: i.id,
  identifier: i.identifier,
  title: i.title,
  state: i.state?.name,
  url: i.url,
});

function found<T>(value: T | null | undefined, what: string): T {
  // Thrown inside `attempt`, so it becomes a not_found result like any other service answer.
  if (value === null || value === undefined) throw new LinearNotFound(what);
  return value;
}

export const listTeams = action({
  name: "list_teams",
  description: "List the Linear teams the token can see, with their keys (used to create and filter issues).",
  effect: "read",
  parameters: Type.Object({}),
  run: (_args, { client, attempt }) =>
    attempt(() =>
      client.request<{ teams: { nodes: { id: string; key: string; name: string }[] } }>(
        "query KeelTeams { teams(first: 100) { nodes { id key name } } }",
      ),
    ).map(({ teams }) => ({
      text: teams.nodes.length > 0 ? teams.nodes.map((t) => `${t.key}  ${t.name}`).join("\n") : "No teams.",
      data: { teams: teams.nodes },
    })),
});

export const listIssues = action({
  name: "list_issues",
  description:
    "List Linear issues, most recently updated first. Filter by team key, state name or assignee (`me`).",
  effect: "read",
  parameters: Type.Object({
    team: Type.Optional(TeamKey),
    state: Type.Optional(Type.String({ description: "A workflow state name (In Progress)" })),
    assignee: Type.Optional(Type.Literal("me")),
    limit: Limit,
  }),
  run: (args, { client, attempt }) => {
    const filter: Record<string, unknown> = {
      ...(args.team ? { team: { key: { eq: args.team } } } : {}),
      ...(args.state ? { state: { name: { eqIgnoreCase: args.state } } } : {}),
      ...(args.assignee === "me" ? { assignee: { isMe: { eq: true } } } : {}),
    };
    return attempt(() =>
      client.request<{ issues: { nodes: IssueNode[] } }>(
        `query KeelIssues($first: Int!, $filter: IssueFilter) { issues(first: $first, filter: $filter, orderBy: updatedAt) { nodes { ${ISSUE_FIELDS} } } }`,
        { first: args.limit ?? 25, filter },
      ),
    ).map(({ issues }) => ({
      text: issues.nodes.length > 0 ? issues.nodes.map(issueLine).join("\n") : "No issues match.",
      data: { issues: issues.nodes.map(issueData) },
    }));
  },
});

export const searchIssues = action({
  name: "search_issues",
  description: "Full-text search over Linear issues (titles, descriptions, comments).",
  effect: "read",
  parameters: Type.Object({ query: Type.String({ minLength: 1 }), limit: Limit }),
  run: (args, { client, attempt }) =>
    attempt(() =>
      client.request<{ searchIssues: { nodes: IssueNode[]; totalCount: number } }>(
        `query KeelSearch($term: String!, $first: Int!) { searchIssues(term: $term, first: $first) { totalCount nodes { ${ISSUE_FIELDS} } } }`,
        { term: args.query, first: args.limit ?? 25 },
      ),
    ).map(({ searchIssues: hits }) => ({
      text:
        hits.nodes.length > 0
          ? `${hits.nodes.map(issueLine).join("\n")}${hits.totalCount > hits.nodes.length ? `\n(${hits.totalCount} matches in all)` : ""}`
          : `Nothing matches ${args.query}.`,
      data: { total: hits.totalCount, issues: hits.nodes.map(issueData) },
    })),
});

export const getIssue = action({
  name: "get_issue",
  description:
    "Read one Linear issue: title, state, priority, assignee, labels, description and recent comments.",
  effect: "read",
  parameters: Type.Object({ issue: IssueRef }),
  run: (args, { client, attempt }) =>
    attempt(async () => {
      const { issue } = await client.request<{ issue: IssueNode | null }>(
        `query KeelIssue($id: String!) { issue(id: $id) { ${ISSUE_FIELDS} description labels { nodes { name } } comments(first: 20) { nodes { body createdAt user { name } } } } }`,
        { id: args.issue },
      );
      return found(issue, `Issue ${args.issue}`);
    }).map((issue) => {
      const labels = issue.labels?.nodes.map((l) => l.name) ?? [];
      const comments = (issue.comments?.nodes ?? []).map(
        (c) => `— ${c.user?.name ?? "someone"} (${c.createdAt}): ${c.body}`,
      );
      const text = [
        `${issue.identifier} ${issue.title}`,
        fieldLines({
          state: issue.state?.name,
          priority: issue.priority ? PRIORITY[issue.priority] : undefined,
          assignee: issue.assignee?.name,
          labels,
          url: issue.url,
        }),
        "",
        truncate(issue.description?.trim() || "(no description)", 20_000, "the description is longer"),
        ...(comments.length > 0 ? ["", "Comments:", ...comments] : []),
      ].join("\n");
      return { text, data: issueData(issue) };
    }),
});

export const createIssue = action({
  name: "create_issue",
  description: "Create a Linear issue in a team (by key).",
  effect: "create",
  parameters: Type.Object({
    team: TeamKey,
    title: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String({ description: "Markdown" })),
    priority: Type.Optional(Priority),
  }),
  preview: (args) => ({
    format: "text",
    text: `mutation issueCreate (team ${args.team})\n${fieldLines({ title: args.title, priority: args.priority === undefined ? undefined : PRIORITY[args.priority] })}\n\n${args.description ?? "(no description)"}`,
  }),
  run: (args, { client, attempt }) =>
    attempt(async () => {
      const { teams } = await client.request<{ teams: { nodes: { id: string }[] } }>(
        "query KeelTeamByKey($key: String!) { teams(filter: { key: { eq: $key } }) { nodes { id } } }",
        { key: args.team },
      );
      const team = found(teams.nodes[0], `Team ${args.team}`);
      const { issueCreate } = await client.request<{
        issueCreate: { success: boolean; issue: IssueNode | null };
      }>(
        `mutation KeelCreateIssue($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { ${ISSUE_FIELDS} } } }`,
        {
          input: {
            teamId: team.id,
            title: args.title,
            ...(args.description === undefined ? {} : { description: args.description }),
            ...(args.priority === undefined ? {} : { priority: args.priority }),
          },
        },
      );
      return found(issueCreate.issue, "The created issue");
    }).map((issue) => ({
      text: `Created ${issue.identifier} "${issue.title}": ${issue.url}`,
      data: issueData(issue),
    })),
});

export const commentIssue = action({
  name: "comment_issue",
  description: "Add a comment to a Linear issue.",
  effect: "create",
  parameters: Type.Object({ issue: IssueRef, body: Type.String({ minLength: 1 }) }),
  preview: (args) => ({
    format: "text",
    text: `mutation commentCreate (issue ${args.issue})\n\n${args.body}`,
  }),
  run: (args, { client, attempt }) =>
    attempt(() =>
      client.request<{ commentCreate: { success: boolean; comment: { id: string; url: string } | null } }>(
        "mutation KeelComment($input: CommentCreateInput!) { commentCreate(input: $input) { success comment { id url } } }",
        { input: { issueId: args.issue, body: args.body } },
      ),
    ).map(({ commentCreate }) => ({
      text: `Commented on ${args.issue}${commentCreate.comment ? `: ${commentCreate.comment.url}` : "."}`,
      data: { id: commentCreate.comment?.id, url: commentCreate.comment?.url },
    })),
});

export const updateIssue = action({
  name: "update_issue",
  description: "Change a Linear issue's title, description, priority or workflow state (by name, e.g. Done).",
  effect: "update",
  parameters: Type.Object({
    issue: IssueRef,
    title: Type.Optional(Type.String({ minLength: 1 })),
    description: Type.Optional(Type.String()),
    priority: Type.Optional(Priority),
    state: Type.Optional(Type.String({ minLength: 1, description: "The new workflow state's name" })),
  }),
  preview: (args) => ({
    format: "text",
    text: `mutation issueUpdate (issue ${args.issue})\n${fieldLines({ title: args.title, priority: args.priority === undefined ? undefined : PRIORITY[args.priority], state: args.state })}${args.description === undefined ? "" : `\n\n${args.description}`}`,
  }),
  run: (args, { client, attempt }) =>
    attempt(async () => {
      let stateId: string | undefined;
      if (args.state) {
        const { issue } = await client.request<{
          issue: { team: { states: { nodes: { id: string; name: string }[] } } } | null;
        }>("query KeelStates($id: String!) { issue(id: $id) { team { states { nodes { id name } } } } }", {
          id: args.issue,
        });
        const states = found(issue, `Issue ${args.issue}`).team.states.nodes;
        const wanted = args.state.toLowerCase();
        stateId = found(
          states.find((s) => s.name.toLowerCase() === wanted),
          `The state "${args.state}" (the team has: ${states.map((s) => s.name).join(", ")})`,
        ).id;
      }
      const { issueUpdate } = await client.request<{
        issueUpdate: { success: boolean; issue: IssueNode | null };
      }>(
        `mutation KeelUpdateIssue($id: String!, $input: IssueUpdateInput!) { issueUpdate(id: $id, input: $input) { success issue { ${ISSUE_FIELDS} } } }`,
        {
          id: args.issue,
          input: {
            ...(args.title === undefined ? {} : { title: args.title }),
            ...(args.description === undefined ? {} : { description: args.description }),
            ...(args.priority === undefined ? {} : { priority: args.priority }),
            ...(stateId === undefined ? {} : { stateId }),
          },
        },
      );
      return found(issueUpdate.issue, `Issue ${args.issue}`);
    }).map((issue) => ({ text: `Updated ${issue.identifier}: ${issueLine(issue)}`, data: issueData(issue) })),
});

export const archiveIssue = action({
  name: "archive_issue",
  description: "Archive a Linear issue (it disappears from every view until restored).",
  effect: "destructive",
  parameters: Type.Object({ issue: IssueRef }),
  preview: (args) => ({ format: "text", text: `mutation issueArchive (issue ${args.issue})` }),
  run: (args, { client, attempt }) =>
    attempt(() =>
      client.request<{ issueArchive: { success: boolean } }>(
        "mutation KeelArchive($id: String!) { issueArchive(id: $id) { success } }",
        { id: args.issue },
      ),
    ).map(({ issueArchive }) => ({
      text: issueArchive.success ? `Archived ${args.issue}.` : `Linear did not archive ${args.issue}.`,
      data: { archived: issueArchive.success },
    })),
});
