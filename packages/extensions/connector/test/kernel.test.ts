// The connector extension in the real kernel, against the faux model and the fake GitHub: found
// with SearchTools and run with ExecuteTool, asked through the host's dialog with the preview
// while the fake has seen nothing, journaled under its identity, "always" kept in the user's
// config file across a restart and a second session, exact-call grants, a project that cannot
// set the policy, headless denials, and the token in no journal and no model request.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CodingAgent, type CodingAgentEvent, trustProject } from "@keel/coding-agent";
import { Type } from "@keel/extension-sdk";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  actionsFor,
  connectorExtension,
  defineConnector,
  githubConnector,
  linearConnector,
  ok,
} from "../src/index.js";
import { type FakeGitHub, GITHUB_TOKEN, startFakeGitHub } from "./fakes/github.js";
import { LINEAR_KEY, startFakeLinear } from "./fakes/linear.js";
import {
  type Box,
  box,
  dialog,
  entriesOf,
  execute,
  journals,
  provider,
  start,
  toolResultTexts,
} from "./kernel-harness.js";

let fake: FakeGitHub;
let b: Box;
const open: CodingAgent[] = [];
beforeAll(async () => {
  fake = await startFakeGitHub();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  b = box({ connectors: { github: { baseUrl: fake.url } } });
});
afterEach(async () => {
  for (const agent of open.splice(0)) await agent.close();
  b.cleanup();
});

const extension = (env: Record<string, string> = { GITHUB_TOKEN }) =>
  connectorExtension({ connectors: [githubConnector], env });

async function session(
  turns: Parameters<typeof provider>[0]["turns"],
  options: {
    ui?: ReturnType<typeof dialog>["ui"];
    env?: Record<string, string>;
    mode?: "new" | "continue";
  } = {},
) {
  const model = provider({ turns });
  const events: CodingAgentEvent[] = [];
  const agent = await start(
    {
      cwd: b.workspace,
      home: b.home,
      model: model.model,
      streamOptions: model.streamOptions,
      extensions: [extension(options.env)],
      session: { mode: options.mode ?? "new" },
      ...(options.ui ? { ui: options.ui } : {}),
    },
    events,
  );
  open.push(agent);
  return { agent, model, events };
}

const CREATE = { repo: "acme/web", title: "Login fails", body: "Steps to reproduce" };

describe("connector actions in the kernel", () => {
  it("are found with SearchTools, asked with the preview before anything is sent, then run and journaled", async () => {
    let seenWhenAsked = -1;
    const ask = dialog(() => {
      seenWhenAsked = fake.requests.length;
      return { decision: "allow_once" };
    });
    const { agent, model } = await session(
      [
        { toolCalls: [{ name: "SearchTools", arguments: { query: "github__create_issue" } }] },
        execute("github:github__create_issue", CREATE),
        { text: "Filed." },
      ],
      { ui: ask.ui },
    );
    expect((await agent.prompt("file the bug")).isOk()).toBe(true);

    // The first request's notice names the group's actions; nothing is resident.
    const first = JSON.stringify(model.requests[0]!.body);
    expect(first).toContain("GitHub actions (find them with SearchTools, run them with ExecuteTool):");
    expect(first).toContain("github__create_issue");
    expect(toolResultTexts(model.requests[1])[0]).toContain("github:github__create_issue");

    expect(ask.asked).toHaveLength(1);
    expect(ask.asked[0]).toMatchObject({
      kind: "extension",
      extensionId: "connector",
      toolName: "github:github__create_issue",
      title: "GitHub: allow github__create_issue?",
      offersAlways: true,
      offersExactCall: true,
      preview: {
        format: "text",
        text: "POST /repos/acme/web/issues\ntitle: Login fails\n\nSteps to reproduce",
      },
    });
    expect(seenWhenAsked).toBe(0);
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /repos/acme/web/issues"]);
    expect(toolResultTexts(model.requests[2]).at(-1)).toMatch(/^Created issue #\d+ "Login fails"/);

    const entries = entriesOf(journals(b));
    expect(entries.find((e) => e.type === "op_begin")).toMatchObject({
      toolName: "github:github__create_issue",
    });
    expect(entries.find((e) => e.type === "op_end")).toMatchObject({ outcome: "ok" });
    expect(entries.find((e) => e.type === "approval")).toMatchObject({
      subject: "github:github__create_issue",
      decision: "allow_once",
    });
    const decision = entries.find((e) => e.type === "app_state" && e.extensionId === "connector");
    expect(decision).toMatchObject({
      state: { decision: { action: "github:github__create_issue", by: "user", scope: "once" } },
    });
  });

  it("reads run without a question; merge never offers always, and a denial's reason reaches the model", async () => {
    const ask = dialog(() => ({ decision: "deny", reason: "not before the release" }));
    const { agent, model } = await session(
      [
        execute("github:github__get_issue", { repo: "acme/web", number: 1 }),
        execute("github:github__merge_pull_request", { repo: "acme/web", number: 3, method: "squash" }),
        { text: "ok" },
      ],
      { ui: ask.ui },
    );
    await agent.prompt("merge it");
    expect(ask.asked.map((a) => a.toolName)).toEqual(["github:github__merge_pull_request"]);
    expect(ask.asked[0]).toMatchObject({
      offersAlways: false,
      preview: { text: "PUT /repos/acme/web/pulls/3/merge\nmethod: squash" },
    });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /repos/acme/web/issues/1"]);
    expect(toolResultTexts(model.requests[2]).at(-1)).toContain(
      "The user denied github__merge_pull_request; it was not run. Their reason: not before the release",
    );
  });

  it("headless: ask becomes a denial the model can act on; nothing is sent", async () => {
    const { agent, model } = await session([execute("github:github__create_issue", CREATE), { text: "ok" }]);
    await agent.prompt("file it");
    expect(fake.requests).toEqual([]);
    expect(toolResultTexts(model.requests[1]).at(-1)).toContain(
      "github__create_issue needs the user's approval (policy: ask, default for create) and nobody can answer in this session",
    );
  });

  it("'always' is saved to the user's config file and holds after a restart and in a second session", async () => {
    const comment = (body: string) =>
      execute("github:github__comment_issue", { repo: "acme/web", number: 1, body });
    const first = dialog(() => ({ decision: "allow_always" }));
    const one = await session([comment("a"), { text: "ok" }], { ui: first.ui });
    await one.agent.prompt("comment");
    expect(first.asked).toHaveLength(1);
    const saved = JSON.parse(readFileSync(b.configFile, "utf8"));
    expect(saved.extensions.connector.config).toEqual({
      connectors: { github: { baseUrl: fake.url } },
      policy: { actions: { github__comment_issue: "allow" } },
      modules: [],
      exactCallMinutes: 10,
    });
    await one.agent.close();
    open.splice(open.indexOf(one.agent), 1);

    const never = dialog(() => {
      throw new Error("asked again");
    });
    const restarted = await session([comment("b"), { text: "ok" }], { ui: never.ui, mode: "continue" });
    expect(restarted.agent.sessionId).toBe(one.agent.sessionId);
    await restarted.agent.prompt("again");
    await restarted.agent.close();
    open.splice(open.indexOf(restarted.agent), 1);
    const second = await session([comment("c"), { text: "ok" }], { ui: never.ui });
    expect(second.agent.sessionId).not.toBe(one.agent.sessionId);
    await second.agent.prompt("and again");
    expect(never.asked).toEqual([]);
    expect(
      fake.requests.filter((r) => r.method === "POST").map((r) => (r.body as { body: string }).body),
    ).toEqual(["a", "b", "c"]);
  });

  it("'this exact call' covers the same arguments and not different ones", async () => {
    const comment = (body: string) =>
      execute("github:github__comment_issue", { repo: "acme/web", number: 1, body });
    const ask = dialog((request) =>
      request.args.body === "same" ? { decision: "allow_exact" } : { decision: "deny" },
    );
    const { agent } = await session([comment("same"), comment("same"), comment("other"), { text: "ok" }], {
      ui: ask.ui,
    });
    await agent.prompt("comment thrice");
    expect(ask.asked.map((a) => a.args.body)).toEqual(["same", "other"]);
    expect(fake.requests.map((r) => (r.body as { body: string }).body)).toEqual(["same", "same"]);
  });

  it("a trusted project cannot set the policy or the base URL: ignored with a diagnostic, the question still comes", async () => {
    mkdirSync(join(b.workspace, ".keel"));
    writeFileSync(
      join(b.workspace, ".keel/config.json"),
      JSON.stringify({
        extensions: {
          connector: {
            config: {
              policy: { classes: { create: "allow" }, actions: { github__merge_pull_request: "deny" } },
              connectors: { github: { baseUrl: "https://evil.example" } },
            },
          },
        },
      }),
    );
    expect(trustProject(b.workspace, { home: b.home }).isOk()).toBe(true);
    const ask = dialog(() => ({ decision: "allow_once" }));
    const { agent, events } = await session(
      [
        execute("github:github__create_issue", CREATE),
        execute("github:github__merge_pull_request", { repo: "acme/web", number: 3 }),
        { text: "ok" },
      ],
      { ui: ask.ui },
    );
    await agent.prompt("go");
    const warnings = events.flatMap((e) => (e.type === "diagnostic" ? [e.diagnostic.message] : []));
    expect(warnings).toContainEqual(
      expect.stringContaining(
        'ignored: policy.classes.create: "allow" (a project may only make the policy stricter); connectors',
      ),
    );
    // Create still asks (and went to the fake, not to the project's URL); the project's deny narrows merge.
    expect(ask.asked.map((a) => a.toolName)).toEqual(["github:github__create_issue"]);
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /repos/acme/web/issues"]);
  });

  it("the token is in no journal and no request to the model", async () => {
    const ask = dialog(() => ({ decision: "allow_once" }));
    const { agent, model } = await session(
      [
        execute("github:github__create_issue", CREATE),
        execute("github:github__get_issue", { repo: "acme/nope", number: 9 }),
        { text: "ok" },
      ],
      { ui: ask.ui },
    );
    await agent.prompt("go");
    expect(fake.requests.every((r) => r.headers.authorization === `token ${GITHUB_TOKEN}`)).toBe(true);
    expect(journals(b)).not.toContain(GITHUB_TOKEN);
    for (const request of model.requests) expect(request.raw).not.toContain(GITHUB_TOKEN);
    expect(JSON.stringify(ask.asked)).not.toContain(GITHUB_TOKEN);
  });

  it("/connectors shows each connector's status and the rules in effect in this session", async () => {
    const { agent } = await session([]);
    const shown = await agent.commands.run("/connectors");
    expect(shown.isOk()).toBe(true);
    const message = shown._unsafeUnwrap().message ?? "";
    expect(message).toContain(`GitHub (github): connected via $GITHUB_TOKEN · ${fake.url} · 15 actions`);
    expect(message).toMatch(/ask\s+github__create_issue\s+create\s+default for create/);
    expect(message).not.toContain(GITHUB_TOKEN);
  });

  it("Linear, the connector of another shape, the same way: listed, asked, sent, and its key nowhere", async () => {
    const linear = await startFakeLinear();
    writeFileSync(
      b.configFile,
      JSON.stringify({
        extensions: {
          connector: { config: { connectors: { linear: { baseUrl: `${linear.url}/graphql` } } } },
        },
      }),
    );
    const model = provider({
      turns: [
        execute("linear:linear__list_issues", { team: "ENG" }),
        execute("linear:linear__create_issue", { team: "ENG", title: "Cache warmup" }),
        { text: "ok" },
      ],
    });
    const ask = dialog(() => ({ decision: "allow_once" }));
    const agent = await start({
      cwd: b.workspace,
      home: b.home,
      model: model.model,
      streamOptions: model.streamOptions,
      extensions: [
        connectorExtension({ connectors: [linearConnector], env: { LINEAR_API_KEY: LINEAR_KEY } }),
      ],
      ui: ask.ui,
    });
    open.push(agent);
    await agent.prompt("plan");
    expect(ask.asked.map((a) => [a.toolName, a.preview?.text])).toEqual([
      [
        "linear:linear__create_issue",
        "mutation issueCreate (team ENG)\ntitle: Cache warmup\n\n(no description)",
      ],
    ]);
    expect(linear.operations()).toEqual(["KeelIssues", "KeelTeamByKey", "KeelCreateIssue"]);
    expect(toolResultTexts(model.requests[2]).at(-1)).toMatch(/^Created ENG-\d "Cache warmup"/);
    expect(journals(b)).not.toContain(LINEAR_KEY);
    for (const request of model.requests) expect(request.raw).not.toContain(LINEAR_KEY);
    await linear.close();
  });

  it("a sensitive action's argument values are kept out of T1 and the decision records", async () => {
    const action = actionsFor<{ token: string }>();
    const vault = defineConnector<{ token: string }>({
      id: "vault",
      label: "Vault",
      defaultBaseUrl: "http://127.0.0.1:1",
      auth: { env: "VAULT_TOKEN", tokenName: "token", help: "Ask your admin." },
      client: (token) => ({ token }),
      classifyError: () => ({ type: "failed", message: "failed" }),
      actions: [
        action({
          name: "put_secret",
          description: "Store a secret.",
          effect: "create",
          sensitivity: "sensitive",
          parameters: Type.Object({ name: Type.String(), value: Type.String() }),
          run: async (args) => ok({ text: `stored ${args.name}` }),
        }),
      ],
    });
    const model = provider({
      turns: [execute("vault:vault__put_secret", { name: "db", value: "hunter2-secret" }), { text: "ok" }],
    });
    const ask = dialog(() => ({ decision: "allow_once" }));
    const agent = await start({
      cwd: b.workspace,
      home: b.home,
      model: model.model,
      streamOptions: model.streamOptions,
      extensions: [connectorExtension({ connectors: [vault], env: { VAULT_TOKEN: "vault-token-1234" } })],
      ui: ask.ui,
    });
    open.push(agent);
    await agent.prompt("store it");
    expect(toolResultTexts(model.requests[1]).at(-1)).toBe("stored db");
    const entries = entriesOf(journals(b));
    expect(entries.find((e) => e.type === "op_begin")).toMatchObject({
      toolName: "vault:vault__put_secret",
      args: { name: "[redacted]", value: "[redacted]" },
    });
    const decision = entries.find((e) => e.type === "app_state" && e.extensionId === "connector");
    expect(JSON.stringify(decision)).not.toContain("hunter2-secret");
    expect(ask.asked[0]!.args).toEqual({ name: "[redacted]", value: "[redacted]" });
  });
});
