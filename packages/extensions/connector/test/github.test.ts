// The GitHub connector against a fake GitHub API on 127.0.0.1 (Octokit's baseUrl pointed at it):
// each action's request and the text the model reads, GitHub's errors as clear tool errors, and
// the token in none of what comes back.
import { testToolContext } from "@keel/extension-sdk/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { githubConnector } from "../src/index.js";
import { type FakeGitHub, GITHUB_TOKEN, startFakeGitHub } from "./fakes/github.js";
import { ALLOW_ALL, activate, closedPort, type Harness, textOf } from "./harness.js";

let fake: FakeGitHub;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeGitHub();
  h = await activate({
    connectors: [githubConnector],
    env: { GITHUB_TOKEN },
    config: { ...ALLOW_ALL, connectors: { github: { baseUrl: fake.url } } },
  });
});
afterAll(async () => {
  await fake.close();
  h.cleanup();
});
beforeEach(() => {
  fake.requests.length = 0;
});

const last = () => fake.requests.at(-1)!;

describe("github actions", () => {
  it("lists fifteen actions, each in group github with its class", async () => {
    const entries = await h.entries("github");
    expect(entries.map((e) => e.name)).toEqual([
      "github__list_issues",
      "github__get_issue",
      "github__create_issue",
      "github__update_issue",
      "github__comment_issue",
      "github__close_issue",
      "github__list_pull_requests",
      "github__get_pull_request",
      "github__get_pull_request_diff",
      "github__create_pull_request",
      "github__create_review_comment",
      "github__merge_pull_request",
      "github__get_contents",
      "github__search_code",
      "github__search_issues",
    ]);
    const byName = Object.fromEntries(entries.map((e) => [e.name, e]));
    expect(byName.github__merge_pull_request!.description).toContain("destructive");
    expect(byName.github__close_issue!.description).toContain("destructive");
    expect(byName.github__list_issues!.access).toBe("read");
    expect(byName.github__create_issue!.access).toBe("write");
    expect(entries.every((e) => e.approval === "extension")).toBe(true);
  });

  it("list_issues sends the filters and leaves pull requests out", async () => {
    const result = await h.call("github__list_issues", {
      repo: "acme/web",
      labels: ["bug", "ui"],
      assignee: "octo",
      limit: 5,
    });
    expect(last()).toMatchObject({
      method: "GET",
      path: "/repos/acme/web/issues",
      query: { state: "open", labels: "bug,ui", assignee: "octo", per_page: "5" },
    });
    expect(last().headers.authorization).toBe(`token ${GITHUB_TOKEN}`);
    expect(textOf(result)).toBe(
      '#2 open "Add dark mode" [feature] by octo\n#1 open "Crash on start" [bug] by octo, 2 comment(s)\n(1 pull request(s) left out; use github__list_pull_requests.)',
    );
    expect(result.isError).toBeUndefined();
  });

  it("get_issue reads one issue", async () => {
    const result = await h.call("github__get_issue", { repo: "acme/web", number: 1 });
    expect(last()).toMatchObject({ method: "GET", path: "/repos/acme/web/issues/1" });
    expect(textOf(result)).toContain("#1 Crash on start\nstate: open\nauthor: octo\nlabels: bug");
    // The header, an empty line, then the description.
    expect(textOf(result)).toMatch(/\nurl: https:\/\/\S+\/issues\/1\n\nBody of Crash on start$/);
  });

  it("create_issue posts title, body, labels and assignees", async () => {
    const result = await h.call("github__create_issue", {
      repo: "acme/web",
      title: "Login fails",
      body: "Steps: …",
      labels: ["bug"],
      assignees: ["octo"],
    });
    expect(last()).toMatchObject({
      method: "POST",
      path: "/repos/acme/web/issues",
      body: { title: "Login fails", body: "Steps: …", labels: ["bug"], assignees: ["octo"] },
    });
    expect(textOf(result)).toMatch(
      /^Created issue #\d+ "Login fails": https:\/\/github\.example\/acme\/web\/issues\/\d+$/,
    );
  });

  it("update_issue patches only the given fields", async () => {
    await h.call("github__update_issue", { repo: "acme/web", number: 2, title: "Dark mode", labels: [] });
    expect(last()).toMatchObject({
      method: "PATCH",
      path: "/repos/acme/web/issues/2",
      body: { title: "Dark mode", labels: [] },
    });
    expect(last().body).not.toHaveProperty("body");
  });

  it("comment_issue posts to the conversation", async () => {
    const result = await h.call("github__comment_issue", {
      repo: "acme/web",
      number: 1,
      body: "Seen on 2.1 too.",
    });
    expect(last()).toMatchObject({
      method: "POST",
      path: "/repos/acme/web/issues/1/comments",
      body: { body: "Seen on 2.1 too." },
    });
    expect(textOf(result)).toMatch(
      /^Commented on #1: https:\/\/github\.example\/acme\/web\/issues\/1#comment-\d+$/,
    );
  });

  it("close_issue comments first, then closes with the reason", async () => {
    const result = await h.call("github__close_issue", {
      repo: "acme/web",
      number: 2,
      reason: "not_planned",
      comment: "Out of scope.",
    });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /repos/acme/web/issues/2/comments",
      "PATCH /repos/acme/web/issues/2",
    ]);
    expect(last().body).toEqual({ state: "closed", state_reason: "not_planned" });
    expect(textOf(result)).toBe("Closed #2 (not_planned): https://github.example/acme/web/issues/2");
  });

  it("list_pull_requests, get_pull_request and the diff", async () => {
    const list = await h.call("github__list_pull_requests", { repo: "acme/web", base: "main" });
    expect(last()).toMatchObject({
      path: "/repos/acme/web/pulls",
      query: { state: "open", base: "main", per_page: "30" },
    });
    expect(textOf(list)).toBe('#3 open "Bump port" bump-port → main by octo');

    const one = await h.call("github__get_pull_request", { repo: "acme/web", number: 3 });
    expect(textOf(one)).toContain("branches: bump-port → main (head abc123def456)");
    expect(textOf(one)).toContain("mergeable: yes (clean)");
    expect(textOf(one)).toMatch(/\nurl: https:\/\/\S+\/pull\/3\n\nBody of .+$/);

    const diff = await h.call("github__get_pull_request_diff", { repo: "acme/web", number: 3 });
    expect(last().headers.accept).toBe("application/vnd.github.v3.diff");
    expect(textOf(diff)).toContain("+export const port = 8080;");
  });

  it("create_pull_request and create_review_comment (head commit looked up when not given)", async () => {
    const opened = await h.call("github__create_pull_request", {
      repo: "acme/web",
      title: "Faster start",
      head: "fast",
      base: "main",
      draft: true,
    });
    expect(last()).toMatchObject({
      method: "POST",
      path: "/repos/acme/web/pulls",
      body: { title: "Faster start", head: "fast", base: "main", draft: true },
    });
    expect(textOf(opened)).toMatch(/^Opened pull request #\d+ "Faster start" \(fast → main\)/);

    fake.requests.length = 0;
    await h.call("github__create_review_comment", {
      repo: "acme/web",
      number: 3,
      path: "src/app.ts",
      line: 1,
      body: "Why 8080?",
    });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /repos/acme/web/pulls/3",
      "POST /repos/acme/web/pulls/3/comments",
    ]);
    expect(last().body).toEqual({
      commit_id: "abc123def4567890abc123def4567890abc12345",
      path: "src/app.ts",
      line: 1,
      side: "RIGHT",
      body: "Why 8080?",
    });
  });

  it("merge_pull_request sends the method and expected head", async () => {
    const result = await h.call("github__merge_pull_request", {
      repo: "acme/web",
      number: 3,
      method: "squash",
      sha: "abc123def4567890",
    });
    expect(last()).toMatchObject({
      method: "PUT",
      path: "/repos/acme/web/pulls/3/merge",
      body: { merge_method: "squash", sha: "abc123def4567890" },
    });
    expect(textOf(result)).toBe("Merged #3 (squash) as fedcba987654: Pull Request successfully merged");
    expect(fake.merged).toEqual([3]);
  });

  it("get_contents decodes a file and lists a folder", async () => {
    const file = await h.call("github__get_contents", { repo: "acme/web", path: "README.md", ref: "v1" });
    expect(last()).toMatchObject({ path: "/repos/acme/web/contents/README.md", query: { ref: "v1" } });
    expect(textOf(file)).toBe("# web at v1\n");
    const dir = await h.call("github__get_contents", { repo: "acme/web", path: "" });
    expect(textOf(dir)).toBe("dir  src\nfile README.md (12 B)");
  });

  it("search_code and search_issues pass the query through", async () => {
    const code = await h.call("github__search_code", { query: "port repo:acme/web", limit: 1 });
    expect(last()).toMatchObject({ path: "/search/code", query: { q: "port repo:acme/web", per_page: "1" } });
    expect(textOf(code)).toBe("acme/web/src/app.ts\n(41 matches in all)");
    const issues = await h.call("github__search_issues", { query: "repo:acme/web crash" });
    expect(last()).toMatchObject({ path: "/search/issues", query: { q: "repo:acme/web crash" } });
    expect(textOf(issues)).toContain('acme/web #1 open "Crash on start"');
  });
});

describe("github errors", () => {
  it("404 says what to check", async () => {
    const result = await h.call("github__get_issue", { repo: "acme/nope", number: 1 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("GitHub not found (HTTP 404): Not Found");
    expect(textOf(result)).toContain("Check the names and numbers");
  });

  it("422 carries GitHub's validation details", async () => {
    const result = await h.call("github__create_issue", { repo: "acme/web", title: " " });
    expect(textOf(result)).toContain(
      "GitHub invalid (HTTP 422): Validation Failed: Issue title missing_field",
    );
  });

  it("403 without a limit is forbidden; with x-ratelimit-remaining 0 it is a rate limit with the wait", async () => {
    fake.failNext({ status: 403, body: { message: "Resource not accessible by personal access token" } });
    const forbidden = await h.call("github__get_issue", { repo: "acme/web", number: 1 });
    expect(textOf(forbidden)).toContain(
      "GitHub forbidden (HTTP 403): Resource not accessible by personal access token",
    );

    const reset = Math.floor(Date.now() / 1000) + 120;
    fake.failNext({
      status: 403,
      body: { message: "API rate limit exceeded for user ID 1." },
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) },
    });
    const limited = await h.call("github__get_issue", { repo: "acme/web", number: 1 });
    expect(textOf(limited)).toContain("GitHub rate limited (HTTP 403): API rate limit exceeded");
    expect(textOf(limited)).toMatch(/accepted again in about 1[12]\d s/);
    expect(limited.details).toMatchObject({ error: { type: "rate_limited" } });

    fake.failNext({
      status: 429,
      body: { message: "You have exceeded a secondary rate limit." },
      headers: { "retry-after": "30" },
    });
    const secondary = await h.call("github__list_issues", { repo: "acme/web" });
    expect(textOf(secondary)).toContain("accepted again in about 30 s");
  });

  it("401 names the variable and the login command, never the token", async () => {
    const other = await activate({
      connectors: [githubConnector],
      env: { GITHUB_TOKEN: "ghp_wrongWrongWrong" },
      config: { ...ALLOW_ALL, connectors: { github: { baseUrl: fake.url } } },
    });
    const result = await other.call("github__get_issue", { repo: "acme/web", number: 1 });
    expect(textOf(result)).toContain("GitHub unauthorized (HTTP 401): Bad credentials");
    expect(textOf(result)).toContain("$GITHUB_TOKEN or run `keel connector login github`");
    expect(JSON.stringify(result)).not.toContain("ghp_wrongWrongWrong");
    other.cleanup();
  });

  it("a refused connection is a network error naming the base URL", async () => {
    const closed = await closedPort();
    const dead = await activate({
      connectors: [githubConnector],
      env: { GITHUB_TOKEN },
      config: { ...ALLOW_ALL, connectors: { github: { baseUrl: `http://127.0.0.1:${closed}` } } },
    });
    const result = await dead.call("github__get_issue", { repo: "acme/web", number: 1 });
    expect(textOf(result)).toContain("GitHub network: The GitHub API could not be reached.");
    expect(textOf(result)).toContain(`http://127.0.0.1:${closed} could not be reached`);
    dead.cleanup();
  });

  it("plain http to another host is refused before the token is sent", async () => {
    const remote = await activate({
      connectors: [githubConnector],
      env: { GITHUB_TOKEN },
      config: { ...ALLOW_ALL, connectors: { github: { baseUrl: "http://ghe.example.com/api/v3" } } },
    });
    const result = await remote.call("github__get_issue", { repo: "acme/web", number: 1 });
    expect(textOf(result)).toContain("would send the token unencrypted");
    remote.cleanup();
  });

  it("a token gone since the actions were listed (logged out meanwhile) is said, and nothing is sent", async () => {
    const env: Record<string, string | undefined> = { GITHUB_TOKEN };
    const gone = await activate({
      connectors: [githubConnector],
      env,
      config: { ...ALLOW_ALL, connectors: { github: { baseUrl: fake.url } } },
    });
    const entry = (await gone.entries("github")).find((e) => e.name === "github__get_issue")!;
    delete env.GITHUB_TOKEN;
    const result = await entry.execute({ repo: "acme/web", number: 1 } as never, testToolContext());
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "GitHub is not connected any more (no $GITHUB_TOKEN and no stored login); github__get_issue was not run. " +
        "The user can connect it with `keel connector login github`.",
    );
    expect(fake.requests).toEqual([]);
    gone.cleanup();
  });

  it("the token appears in no result, decision or error of this file's calls", () => {
    expect(JSON.stringify(h.decisions)).not.toContain(GITHUB_TOKEN);
    expect(h.decisions.length).toBeGreaterThan(15);
  });

  it("a token the service echoes back is scrubbed from the result", async () => {
    fake.failNext({
      status: 422,
      body: { message: `Validation Failed: token ${GITHUB_TOKEN} is not allowed here` },
    });
    const result = await h.call("github__create_issue", { repo: "acme/web", title: "x" });
    expect(JSON.stringify(result)).not.toContain(GITHUB_TOKEN);
    expect(textOf(result)).toContain("token [redacted] is not allowed");
  });
});
