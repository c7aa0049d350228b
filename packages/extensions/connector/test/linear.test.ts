// The Linear connector against a fake Linear GraphQL API on 127.0.0.1 (the SDK's apiUrl pointed
// at it): each action's operation and variables, the text the model reads, Linear's errors as
// clear tool errors, and the key in none of what comes back.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { linearConnector } from "../src/index.js";
import { type FakeLinear, graphqlError, LINEAR_KEY, startFakeLinear } from "./fakes/linear.js";
import { ALLOW_ALL, activate, type Harness, textOf } from "./harness.js";

let fake: FakeLinear;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeLinear();
  h = await activate({
    connectors: [linearConnector],
    env: { LINEAR_API_KEY: LINEAR_KEY },
    config: { ...ALLOW_ALL, connectors: { linear: { baseUrl: `${fake.url}/graphql` } } },
  });
});
afterAll(async () => {
  await fake.close();
  h.cleanup();
});
beforeEach(() => {
  fake.requests.length = 0;
});

const vars = () => (fake.requests.at(-1)!.body as { variables: Record<string, unknown> }).variables;

describe("linear actions", () => {
  it("lists its eight actions in group linear", async () => {
    expect((await h.entries("linear")).map((e) => e.name)).toEqual([
      "linear__list_teams",
      "linear__list_issues",
      "linear__search_issues",
      "linear__get_issue",
      "linear__create_issue",
      "linear__comment_issue",
      "linear__update_issue",
      "linear__archive_issue",
    ]);
  });

  it("sends the key as Linear expects and lists teams", async () => {
    const result = await h.call("linear__list_teams", {});
    expect(fake.requests[0]!.headers.authorization).toBe(LINEAR_KEY);
    expect(fake.requests[0]!.headers["content-type"]).toContain("application/json");
    expect(textOf(result)).toBe("ENG  Engineering");
  });

  it("list_issues builds the filter; search_issues passes the term", async () => {
    const listed = await h.call("linear__list_issues", {
      team: "ENG",
      state: "todo",
      assignee: "me",
      limit: 10,
    });
    expect(fake.operations()).toEqual(["KeelIssues"]);
    expect(vars()).toEqual({
      first: 10,
      filter: {
        team: { key: { eq: "ENG" } },
        state: { name: { eqIgnoreCase: "todo" } },
        assignee: { isMe: { eq: true } },
      },
    });
    expect(textOf(listed)).toBe("ENG-1 [Todo] Flaky login test (high) → Ada");

    const found = await h.call("linear__search_issues", { query: "dark" });
    expect(vars()).toEqual({ term: "dark", first: 25 });
    expect(textOf(found)).toBe("ENG-2 [In Progress] Ship dark mode");
  });

  it("get_issue shows description, labels and comments", async () => {
    const result = await h.call("linear__get_issue", { issue: "ENG-1" });
    expect(vars()).toEqual({ id: "ENG-1" });
    expect(textOf(result)).toContain(
      "ENG-1 Flaky login test\nstate: Todo\npriority: high\nassignee: Ada\nlabels: bug",
    );
    expect(textOf(result)).toContain("Fails 1 in 10");
    expect(textOf(result)).toContain("— Ada (2026-01-02): Seen on CI");
  });

  it("create_issue resolves the team key, then creates", async () => {
    const result = await h.call("linear__create_issue", {
      team: "ENG",
      title: "Cache warmup",
      description: "Before deploys",
      priority: 3,
    });
    expect(fake.operations()).toEqual(["KeelTeamByKey", "KeelCreateIssue"]);
    expect(vars()).toEqual({
      input: { teamId: "team-eng", title: "Cache warmup", description: "Before deploys", priority: 3 },
    });
    expect(textOf(result)).toMatch(
      /^Created ENG-\d "Cache warmup": https:\/\/linear\.example\/eng\/issue\/ENG-\d$/,
    );
  });

  it("create_issue in an unknown team is not found, and nothing is created", async () => {
    const before = fake.issues.length;
    const result = await h.call("linear__create_issue", { team: "OPS", title: "x" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("Linear not found: Team OPS was not found.");
    expect(fake.operations()).toEqual(["KeelTeamByKey"]);
    expect(fake.issues.length).toBe(before);
  });

  it("comment_issue, update_issue (state by name) and archive_issue", async () => {
    const commented = await h.call("linear__comment_issue", { issue: "ENG-2", body: "Design is ready." });
    expect(vars()).toEqual({ input: { issueId: "ENG-2", body: "Design is ready." } });
    expect(textOf(commented)).toMatch(/^Commented on ENG-2: https:\/\/linear\.example\/c\/\d+$/);

    fake.requests.length = 0;
    const updated = await h.call("linear__update_issue", { issue: "ENG-2", state: "done", priority: 1 });
    expect(fake.operations()).toEqual(["KeelStates", "KeelUpdateIssue"]);
    expect(vars()).toEqual({ id: "ENG-2", input: { priority: 1, stateId: "st-done" } });
    expect(textOf(updated)).toBe("Updated ENG-2: ENG-2 [Done] Ship dark mode (urgent)");

    const badState = await h.call("linear__update_issue", { issue: "ENG-2", state: "Shipped" });
    expect(textOf(badState)).toContain(
      'The state "Shipped" (the team has: Todo, In Progress, Done) was not found.',
    );

    const archived = await h.call("linear__archive_issue", { issue: "ENG-2" });
    expect(vars()).toEqual({ id: "ENG-2" });
    expect(textOf(archived)).toBe("Archived ENG-2.");
  });
});

describe("linear errors", () => {
  it("an unknown issue is Linear's invalid-input error, worded", async () => {
    const result = await h.call("linear__get_issue", { issue: "ENG-99" });
    expect(textOf(result)).toContain("Linear invalid (HTTP 400): Entity not found: Issue");
  });

  it("a bad key is unauthorized and names the variable", async () => {
    const other = await activate({
      connectors: [linearConnector],
      env: { LINEAR_API_KEY: "lin_api_wrongwrongwrong" },
      config: { ...ALLOW_ALL, connectors: { linear: { baseUrl: `${fake.url}/graphql` } } },
    });
    const result = await other.call("linear__list_teams", {});
    expect(textOf(result)).toContain(
      "Linear unauthorized (HTTP 401): Authentication required, not authenticated",
    );
    expect(textOf(result)).toContain("$LINEAR_API_KEY or run `keel connector login linear`");
    expect(JSON.stringify(result)).not.toContain("lin_api_wrongwrongwrong");
    other.cleanup();
  });

  it("forbidden, invalid input and rate limits", async () => {
    fake.failNext(graphqlError("forbidden", "You don't have access to this team", 403));
    expect(textOf(await h.call("linear__list_teams", {}))).toContain(
      "Linear forbidden (HTTP 403): You don't have access to this team",
    );

    const invalid = await h.call("linear__create_issue", { team: "ENG", title: " " });
    expect(textOf(invalid)).toContain(
      "Linear invalid (HTTP 400): Argument Validation Error: title should not be empty",
    );

    fake.failNext({
      ...graphqlError("ratelimited", "Rate limit exceeded", 429),
      headers: { "retry-after": "42" },
    });
    const limited = await h.call("linear__list_issues", {});
    expect(textOf(limited)).toContain("Linear rate limited (HTTP 429): Rate limit exceeded");
    expect(textOf(limited)).toContain("accepted again in about 42 s");
  });

  it("the key appears in no result or decision", () => {
    expect(JSON.stringify(h.decisions)).not.toContain(LINEAR_KEY);
    expect(h.decisions.length).toBeGreaterThan(8);
  });
});
