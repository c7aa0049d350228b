// A fake Linear GraphQL API on 127.0.0.1: answers the connector's operations by name over an
// in-memory workspace (team ENG), with Linear's error envelope (extensions.type) for bad keys,
// missing entities, invalid input and rate limits.
import { type FakeServer, type RecordedRequest, type Reply, startFakeServer } from "./http.js";

export const LINEAR_KEY = "lin_api_fakeKeyForTests0123456789";

interface Issue {
  id: string;
  identifier: string;
  title: string;
  description: string | null;
  priority: number;
  state: string;
  archived: boolean;
  comments: { body: string; createdAt: string; user: { name: string } }[];
}

export interface FakeLinear extends FakeServer {
  issues: Issue[];
  /** The operation name of each request, in order. */
  operations(): string[];
}

interface Vars {
  key?: string;
  id?: string;
  term?: string;
  first?: number;
  filter?: { state?: { name?: { eqIgnoreCase?: string } } };
  input?: Record<string, unknown>;
}

export function graphqlError(type: string, message: string, status = 400): Reply {
  return { status, body: { errors: [{ message, extensions: { type, userPresentableMessage: message } }] } };
}

export async function startFakeLinear(key = LINEAR_KEY): Promise<FakeLinear> {
  const states = [
    { id: "st-todo", name: "Todo" },
    { id: "st-prog", name: "In Progress" },
    { id: "st-done", name: "Done" },
  ];
  const team = { id: "team-eng", key: "ENG", name: "Engineering" };
  const issues: Issue[] = [
    {
      id: "i-1",
      identifier: "ENG-1",
      title: "Flaky login test",
      description: "Fails 1 in 10",
      priority: 2,
      state: "Todo",
      archived: false,
      comments: [{ body: "Seen on CI", createdAt: "2026-01-02", user: { name: "Ada" } }],
    },
    {
      id: "i-2",
      identifier: "ENG-2",
      title: "Ship dark mode",
      description: null,
      priority: 0,
      state: "In Progress",
      archived: false,
      comments: [],
    },
  ];
  const node = (i: Issue) => ({
    id: i.id,
    identifier: i.identifier,
    title: i.title,
    url: `https://linear.example/eng/issue/${i.identifier}`,
    priority: i.priority,
    state: { name: i.state },
    assignee: i.identifier === "ENG-1" ? { name: "Ada" } : null,
    team: { key: "ENG" },
  });
  const find = (ref: unknown) => issues.find((i) => !i.archived && (i.id === ref || i.identifier === ref));
  const notFound = graphqlError("invalid input", "Entity not found: Issue");

  const opName = (r: RecordedRequest) =>
    /^\s*(?:query|mutation)\s+(\w+)/.exec(String((r.body as { query?: string })?.query))?.[1] ?? "";

  const handle = (r: RecordedRequest): Reply | undefined => {
    if (r.method !== "POST" || r.path !== "/graphql")
      return { status: 404, text: { contentType: "text/plain", body: "not found" } };
    if (r.headers.authorization !== key)
      return graphqlError("authentication error", "Authentication required, not authenticated", 401);
    const vars = ((r.body as { variables?: Vars }).variables ?? {}) as Vars;
    const data = (d: unknown): Reply => ({ status: 200, body: { data: d } });
    switch (opName(r)) {
      case "KeelViewer":
        return data({ viewer: { name: "Ada", email: "ada@example.com" } });
      case "KeelTeams":
        return data({ teams: { nodes: [team] } });
      case "KeelTeamByKey":
        return data({ teams: { nodes: vars.key === "ENG" ? [{ id: team.id }] : [] } });
      case "KeelIssues": {
        const stateName = vars.filter?.state?.name?.eqIgnoreCase;
        const list = issues.filter(
          (i) => !i.archived && (!stateName || i.state.toLowerCase() === stateName.toLowerCase()),
        );
        return data({ issues: { nodes: list.slice(0, vars.first ?? 25).map(node) } });
      }
      case "KeelSearch": {
        const hits = issues.filter(
          (i) => !i.archived && i.title.toLowerCase().includes(String(vars.term).toLowerCase()),
        );
        return data({ searchIssues: { totalCount: hits.length, nodes: hits.map(node) } });
      }
      case "KeelIssue": {
        const issue = find(vars.id);
        if (!issue) return notFound;
        return data({
          issue: {
            ...node(issue),
            description: issue.description,
            labels: { nodes: [{ name: "bug" }] },
            comments: { nodes: issue.comments },
          },
        });
      }
      case "KeelCreateIssue": {
        const input = vars.input as {
          teamId: string;
          title: string;
          description?: string;
          priority?: number;
        };
        if (!input.title.trim())
          return graphqlError("invalid input", "Argument Validation Error: title should not be empty");
        const issue: Issue = {
          id: `i-${issues.length + 1}`,
          identifier: `ENG-${issues.length + 1}`,
          title: input.title,
          description: input.description ?? null,
          priority: input.priority ?? 0,
          state: "Todo",
          archived: false,
          comments: [],
        };
        issues.push(issue);
        return data({ issueCreate: { success: true, issue: node(issue) } });
      }
      case "KeelComment": {
        const issue = find(vars.input?.issueId);
        if (!issue) return notFound;
        issue.comments.push({
          body: String(vars.input?.body),
          createdAt: "2026-02-01",
          user: { name: "Ada" },
        });
        return data({
          commentCreate: {
            success: true,
            comment: {
              id: `c-${issue.comments.length}`,
              url: `https://linear.example/c/${issue.comments.length}`,
            },
          },
        });
      }
      case "KeelStates": {
        const issue = find(vars.id);
        if (!issue) return notFound;
        return data({ issue: { team: { states: { nodes: states } } } });
      }
      case "KeelUpdateIssue": {
        const issue = find(vars.id);
        if (!issue) return notFound;
        const input = vars.input as {
          title?: string;
          description?: string;
          priority?: number;
          stateId?: string;
        };
        if (input.title !== undefined) issue.title = input.title;
        if (input.description !== undefined) issue.description = input.description;
        if (input.priority !== undefined) issue.priority = input.priority;
        if (input.stateId) issue.state = states.find((s) => s.id === input.stateId)!.name;
        return data({ issueUpdate: { success: true, issue: node(issue) } });
      }
      case "KeelArchive": {
        const issue = find(vars.id);
        if (!issue) return notFound;
        issue.archived = true;
        return data({ issueArchive: { success: true } });
      }
      default:
        return graphqlError("graphql error", `Unknown operation ${opName(r)}`);
    }
  };
  const server = await startFakeServer(handle);
  return Object.assign(server, {
    issues,
    operations: () => server.requests.map(opName),
  });
}
