// A fake GitHub REST API on 127.0.0.1: the endpoints the connector uses, over an in-memory
// repository (acme/web), answering with GitHub's shapes and its errors (401 bad credentials,
// 404, 422 validation failed). Tests read `requests` to check what was sent.
import { type FakeServer, type RecordedRequest, type Reply, startFakeServer } from "./http.js";

export const GITHUB_TOKEN = "ghp_fakeTokenForTests0123456789abcdef";

interface Issue {
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  state_reason: string | null;
  labels: { name: string }[];
  assignees: { login: string }[];
  user: { login: string };
  comments: number;
  pull_request?: { url: string };
}

export interface FakeGitHub extends FakeServer {
  issues: Map<number, Issue>;
  merged: number[];
}

const DIFF = `diff --git a/src/app.ts b/src/app.ts
--- a/src/app.ts
+++ b/src/app.ts
@@ -1 +1 @@
-export const port = 80;
+export const port = 8080;
`;

export async function startFakeGitHub(token = GITHUB_TOKEN): Promise<FakeGitHub> {
  const issues = new Map<number, Issue>();
  const merged: number[] = [];
  const seed = (n: number, title: string, extra: Partial<Issue> = {}) =>
    issues.set(n, {
      number: n,
      title,
      body: `Body of ${title}`,
      state: "open",
      state_reason: null,
      labels: [],
      assignees: [],
      user: { login: "octo" },
      comments: 0,
      ...extra,
    });
  seed(1, "Crash on start", { labels: [{ name: "bug" }], comments: 2 });
  seed(2, "Add dark mode", { labels: [{ name: "feature" }] });
  seed(3, "Bump port", { pull_request: { url: "pr" } });
  let nextNumber = 4;
  let base = "";

  const html = (n: number, kind = "issues") => `https://github.example/acme/web/${kind}/${n}`;
  const issueJson = (i: Issue) => ({
    ...i,
    html_url: html(i.number, i.pull_request ? "pull" : "issues"),
    id: 1000 + i.number,
  });
  const pullJson = (i: Issue) => ({
    ...issueJson(i),
    html_url: html(i.number, "pull"),
    head: { ref: "bump-port", sha: "abc123def4567890abc123def4567890abc12345" },
    base: { ref: "main" },
    draft: false,
    merged: merged.includes(i.number),
    mergeable: true,
    mergeable_state: "clean",
    additions: 1,
    deletions: 1,
    changed_files: 1,
  });
  const notFound: Reply = {
    status: 404,
    body: { message: "Not Found", documentation_url: "https://docs.github.com/rest" },
  };

  const handle = (r: RecordedRequest): Reply | undefined => {
    const auth = String(r.headers.authorization ?? "");
    if (auth !== `token ${token}` && auth !== `Bearer ${token}`)
      return {
        status: 401,
        body: { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" },
      };
    const route = `${r.method} ${r.path}`;
    if (route === "GET /user") return { status: 200, body: { login: "octo", id: 1 } };
    if (route.startsWith("GET /search/code"))
      return {
        status: 200,
        body: {
          total_count: 41,
          items: [
            {
              path: "src/app.ts",
              repository: { full_name: "acme/web" },
              html_url: "https://github.example/x",
            },
          ],
        },
      };
    if (route.startsWith("GET /search/issues"))
      return {
        status: 200,
        body: {
          total_count: 1,
          items: [{ ...issueJson(issues.get(1)!), repository_url: `${base}/repos/acme/web` }],
        },
      };
    const m = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(r.path);
    if (!m) return notFound;
    if (`${m[1]}/${m[2]}` !== "acme/web") return notFound;
    const rest = m[3] ?? "";
    const body = (r.body ?? {}) as Record<string, unknown>;
    let n: RegExpExecArray | null;
    if (r.method === "GET" && rest === "/issues") {
      const state = r.query.state ?? "open";
      const list = [...issues.values()].filter((i) => state === "all" || i.state === state).reverse();
      return { status: 200, body: list.map(issueJson) };
    }
    if (r.method === "POST" && rest === "/issues") {
      if (typeof body.title !== "string" || body.title.trim() === "")
        return {
          status: 422,
          body: {
            message: "Validation Failed",
            errors: [{ resource: "Issue", field: "title", code: "missing_field" }],
          },
        };
      const issue: Issue = {
        number: nextNumber++,
        title: body.title,
        body: (body.body as string | undefined) ?? null,
        state: "open",
        state_reason: null,
        labels: ((body.labels as string[] | undefined) ?? []).map((name) => ({ name })),
        assignees: ((body.assignees as string[] | undefined) ?? []).map((login) => ({ login })),
        user: { login: "octo" },
        comments: 0,
      };
      issues.set(issue.number, issue);
      return { status: 201, body: issueJson(issue) };
    }
    n = /^\/issues\/(\d+)$/.exec(rest);
    if (n) {
      const issue = issues.get(Number(n[1]));
      if (!issue) return notFound;
      if (r.method === "GET") return { status: 200, body: issueJson(issue) };
      if (r.method === "PATCH") {
        if (typeof body.title === "string") issue.title = body.title;
        if (typeof body.body === "string") issue.body = body.body;
        if (Array.isArray(body.labels)) issue.labels = (body.labels as string[]).map((name) => ({ name }));
        if (body.state === "closed") {
          issue.state = "closed";
          issue.state_reason = (body.state_reason as string | undefined) ?? "completed";
        }
        return { status: 200, body: issueJson(issue) };
      }
    }
    n = /^\/issues\/(\d+)\/comments$/.exec(rest);
    if (n && r.method === "POST") {
      const issue = issues.get(Number(n[1]));
      if (!issue) return notFound;
      issue.comments++;
      return {
        status: 201,
        body: {
          id: 5000 + issue.comments,
          html_url: `${html(issue.number)}#comment-${issue.comments}`,
          body: body.body,
        },
      };
    }
    if (r.method === "GET" && rest === "/pulls") {
      const list = [...issues.values()].filter((i) => i.pull_request);
      return { status: 200, body: list.map(pullJson) };
    }
    if (r.method === "POST" && rest === "/pulls") {
      if (body.head === body.base)
        return {
          status: 422,
          body: {
            message: "Validation Failed",
            errors: [
              { resource: "PullRequest", code: "custom", message: "No commits between main and main" },
            ],
          },
        };
      const pull: Issue = {
        number: nextNumber++,
        title: String(body.title),
        body: (body.body as string | undefined) ?? null,
        state: "open",
        state_reason: null,
        labels: [],
        assignees: [],
        user: { login: "octo" },
        comments: 0,
        pull_request: { url: "pr" },
      };
      issues.set(pull.number, pull);
      return { status: 201, body: pullJson(pull) };
    }
    n = /^\/pulls\/(\d+)$/.exec(rest);
    if (n && r.method === "GET") {
      const pull = issues.get(Number(n[1]));
      if (!pull?.pull_request) return notFound;
      if (String(r.headers.accept).includes("diff"))
        return { status: 200, text: { contentType: "text/x-diff", body: DIFF } };
      return { status: 200, body: pullJson(pull) };
    }
    n = /^\/pulls\/(\d+)\/comments$/.exec(rest);
    if (n && r.method === "POST") {
      if (!issues.get(Number(n[1]))?.pull_request) return notFound;
      return { status: 201, body: { id: 7001, html_url: `${html(Number(n[1]), "pull")}#discussion_r7001` } };
    }
    n = /^\/pulls\/(\d+)\/merge$/.exec(rest);
    if (n && r.method === "PUT") {
      const pull = issues.get(Number(n[1]));
      if (!pull?.pull_request) return notFound;
      if (merged.includes(pull.number))
        return { status: 405, body: { message: "Pull Request is not mergeable" } };
      merged.push(pull.number);
      pull.state = "closed";
      return {
        status: 200,
        body: {
          sha: "fedcba9876543210fedcba9876543210fedcba98",
          merged: true,
          message: "Pull Request successfully merged",
        },
      };
    }
    n = /^\/contents\/?(.*)$/.exec(rest);
    if (n && r.method === "GET") {
      const path = decodeURIComponent(n[1] ?? "");
      if (path === "" || path === "src")
        return {
          status: 200,
          body:
            path === ""
              ? [
                  { type: "dir", name: "src", path: "src" },
                  { type: "file", name: "README.md", path: "README.md", size: 12 },
                ]
              : [{ type: "file", name: "app.ts", path: "src/app.ts", size: 24 }],
        };
      if (path === "README.md")
        return {
          status: 200,
          body: {
            type: "file",
            name: "README.md",
            path: "README.md",
            size: 12,
            sha: "0123abcd",
            encoding: "base64",
            content: Buffer.from(`# web${r.query.ref ? ` at ${r.query.ref}` : ""}\n`).toString("base64"),
          },
        };
      return notFound;
    }
    return notFound;
  };

  const server = await startFakeServer(handle);
  base = server.url;
  return Object.assign(server, { issues, merged });
}
