// Every call through the approval gate, against the fake GitHub: the class × rule matrix, the
// answers (once, always, this exact call, deny with a reason, nobody to ask), the preview shown
// while the fake has seen nothing, subagent calls, and sensitive arguments kept out of records.
import type { ApprovalDecision, ApprovalRequest } from "@keel/extension-sdk";
import { Type } from "@keel/extension-sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { actionsFor, type ConnectorConfig, defineConnector, githubConnector, ok } from "../src/index.js";
import { type FakeGitHub, GITHUB_TOKEN, startFakeGitHub } from "./fakes/github.js";
import { activate, textOf } from "./harness.js";

let fake: FakeGitHub;
beforeAll(async () => {
  fake = await startFakeGitHub();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const github = (config: Partial<ConnectorConfig> = {}, now?: () => number) =>
  activate({
    connectors: [githubConnector],
    env: { GITHUB_TOKEN },
    config: { ...config, connectors: { github: { baseUrl: fake.url } } },
    ...(now ? { now } : {}),
  });

const once: ApprovalDecision = { status: "allowed", scope: "once" };
const CALLS = {
  read: ["github__get_issue", { repo: "acme/web", number: 1 }],
  create: ["github__comment_issue", { repo: "acme/web", number: 1, body: "hi" }],
  update: ["github__update_issue", { repo: "acme/web", number: 1, title: "Crash on start" }],
  destructive: ["github__close_issue", { repo: "acme/web", number: 1 }],
} as const;

describe("class × rule", () => {
  for (const effect of ["read", "create", "update", "destructive"] as const) {
    for (const rule of ["allow", "ask", "deny"] as const) {
      it(`${effect} with ${rule}`, async () => {
        const h = await github({ policy: { classes: { [effect]: rule } } });
        const [name, args] = CALLS[effect];
        const result = await h.call(name, { ...args }, () => once);
        expect(h.questions.length).toBe(rule === "ask" ? 1 : 0);
        expect(fake.requests.length > 0).toBe(rule !== "deny");
        expect(result.isError ?? false).toBe(rule === "deny");
        if (rule === "deny") {
          expect(textOf(result)).toContain(
            `denied by the user's connector policy (policy.classes.${effect})`,
          );
          expect(result.denial).toEqual({
            reason: `denied by the connector policy (policy.classes.${effect})`,
          });
        } else expect(result.denial).toBeUndefined();
        expect(h.decisions).toEqual([
          expect.objectContaining({
            action: `github:${name}`,
            effect,
            rule,
            outcome: rule === "deny" ? "denied" : "allowed",
            by: rule === "ask" ? "user" : "policy",
          }),
        ]);
        h.cleanup();
        fake.requests.length = 0;
      });
    }
  }
});

describe("the question", () => {
  it("create_issue: the preview is shown before anything is sent", async () => {
    const h = await github();
    let seenAtQuestion = -1;
    await h.call(
      "github__create_issue",
      { repo: "acme/web", title: "Login fails", body: "Steps to reproduce", labels: ["bug"] },
      () => {
        seenAtQuestion = fake.requests.length;
        return once;
      },
    );
    expect(seenAtQuestion).toBe(0);
    expect(fake.requests.length).toBe(1);
    const [question] = h.questions;
    expect(question).toMatchObject({
      title: "GitHub: allow github__create_issue?",
      subject: "github:github__create_issue",
      offerAlways: true,
      offerExactCall: true,
      preview: {
        format: "text",
        text: "POST /repos/acme/web/issues\ntitle: Login fails\nlabels: bug\n\nSteps to reproduce",
      },
    });
    expect(question!.message).toBe("A create action. Policy: ask (default for create).");
    h.cleanup();
  });

  it("merge_pull_request: preview first, destructive, never offers always", async () => {
    const h = await github();
    let seenAtQuestion = -1;
    const result = await h.call(
      "github__merge_pull_request",
      { repo: "acme/web", number: 3, method: "squash" },
      () => {
        seenAtQuestion = fake.requests.length;
        return { status: "denied" };
      },
    );
    expect(seenAtQuestion).toBe(0);
    expect(fake.requests.length).toBe(0);
    expect(h.questions[0]).toMatchObject({
      offerAlways: false,
      preview: { text: "PUT /repos/acme/web/pulls/3/merge\nmethod: squash" },
    });
    expect(h.questions[0]!.message).toContain('"always" is not offered');
    expect(textOf(result)).toBe(
      "The user denied github__merge_pull_request; it was not run. Ask them before trying it again.",
    );
    h.cleanup();
  });

  it("an 'always' for a destructive action counts once and is not saved", async () => {
    const h = await github();
    await h.call("github__close_issue", { repo: "acme/web", number: 2 }, () => ({
      status: "allowed",
      scope: "always",
    }));
    expect(fake.requests.length).toBe(1);
    expect(h.configWrites).toEqual([]);
    expect(h.decisions[0]).toMatchObject({ outcome: "allowed", scope: "once" });
    await h.call("github__close_issue", { repo: "acme/web", number: 2 }, () => ({ status: "denied" }));
    expect(h.questions.length).toBe(2);
    h.cleanup();
  });

  it("an 'always' the config could not keep runs once, and the record says why", async () => {
    const h = await github();
    (h.runtime as { updateConfig: typeof h.runtime.updateConfig }).updateConfig = () => ({
      ok: false,
      message: "config.json is read-only",
    });
    const result = await h.call("github__comment_issue", { repo: "acme/web", number: 1, body: "a" }, () => ({
      status: "allowed",
      scope: "always",
    }));
    expect(result.isError ?? false).toBe(false);
    expect(fake.requests.length).toBe(1);
    expect(h.decisions[0]).toMatchObject({
      outcome: "allowed",
      by: "user",
      scope: "once",
      reason: '"always" not saved: config.json is read-only',
    });
    h.cleanup();
  });

  it("'always' is saved to the user's config at once and stops the questions, also after a restart", async () => {
    const h = await github();
    await h.call("github__comment_issue", { repo: "acme/web", number: 1, body: "a" }, () => ({
      status: "allowed",
      scope: "always",
    }));
    expect(h.configWrites.at(-1)!.policy).toEqual({ actions: { github__comment_issue: "allow" } });
    await h.call("github__comment_issue", { repo: "acme/web", number: 1, body: "b" }, () => ({
      status: "denied",
    }));
    expect(h.questions.length).toBe(1);
    expect(h.decisions.at(-1)).toMatchObject({
      outcome: "allowed",
      by: "policy",
      source: "policy.actions.github__comment_issue",
    });

    // A new session starts from the config as written.
    const { fromProject: _none, ...written } = h.configWrites.at(-1)!;
    const restarted = await activate({
      connectors: [githubConnector],
      env: { GITHUB_TOKEN },
      config: written,
    });
    await restarted.call("github__comment_issue", { repo: "acme/web", number: 1, body: "c" }, () => ({
      status: "denied",
    }));
    expect(restarted.questions).toEqual([]);
    h.cleanup();
    restarted.cleanup();
  });

  it("'always' is not offered where a project's rule is what asks", async () => {
    const h = await github({
      policy: { classes: { create: "allow" } },
      fromProject: { policy: { classes: { create: "ask" } }, ignored: [] },
    });
    await h.call("github__comment_issue", { repo: "acme/web", number: 1, body: "a" }, () => once);
    expect(h.questions[0]).toMatchObject({ offerAlways: false });
    expect(h.questions[0]!.message).toContain("project policy.classes.create");
    h.cleanup();
  });

  it("'this exact call' covers the same arguments until it expires, and no other", async () => {
    let clock = 0;
    const h = await github({ exactCallMinutes: 1 }, () => clock);
    const args = { repo: "acme/web", number: 1, body: "same" };
    await h.call("github__comment_issue", { ...args }, () => ({ status: "allowed", scope: "exact" }));
    await h.call("github__comment_issue", { body: "same", number: 1, repo: "acme/web" }, () => ({
      status: "denied",
    }));
    expect(h.questions.length).toBe(1);
    expect(h.decisions.at(-1)).toMatchObject({ outcome: "allowed", by: "exact_grant", scope: "exact" });

    const other = await h.call("github__comment_issue", { ...args, body: "different" }, () => ({
      status: "denied",
    }));
    expect(h.questions.length).toBe(2);
    expect(other.isError).toBe(true);

    clock = 60_000;
    await h.call("github__comment_issue", { ...args }, () => ({ status: "denied" }));
    expect(h.questions.length).toBe(3);
    expect(fake.requests.length).toBe(2);
    h.cleanup();
  });

  it("a denial's reason reaches the model", async () => {
    const h = await github();
    const result = await h.call("github__create_issue", { repo: "acme/web", title: "x" }, () => ({
      status: "denied",
      reason: "file it in Linear instead",
    }));
    expect(textOf(result)).toBe(
      "The user denied github__create_issue; it was not run. Their reason: file it in Linear instead",
    );
    expect(result.denial).toEqual({ reason: "the user denied it: file it in Linear instead" });
    expect(h.decisions[0]).toMatchObject({
      outcome: "denied",
      by: "user",
      reason: "file it in Linear instead",
    });
    expect(fake.requests.length).toBe(0);
    h.cleanup();
  });

  it("headless: nobody to ask is a denial that says how to allow it", async () => {
    const h = await github();
    const result = await h.call("github__create_issue", { repo: "acme/web", title: "x" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      "needs the user's approval (policy: ask, default for create) and nobody can answer",
    );
    expect(textOf(result)).toContain('"github__create_issue": "allow"');
    expect(h.decisions[0]).toMatchObject({ outcome: "denied", by: "no_one_to_ask" });
    expect(result.denial).toEqual({
      reason: "needs approval (default for create) and nobody could be asked",
    });
    expect(fake.requests.length).toBe(0);
    h.cleanup();
  });

  it("a subagent's call is asked the same way, says who asks, and is recorded with the agent", async () => {
    const h = await github();
    await h.call("github__create_issue", { repo: "acme/web", title: "x" }, () => once, {
      agent: { agentId: "a1", title: "triager" },
    });
    expect(h.questions[0]!.message).toContain('(asked by the agent "triager")');
    expect(h.decisions[0]).toMatchObject({ agent: "a1", outcome: "allowed" });
    h.cleanup();
  });

  it("a cancelled question runs nothing", async () => {
    const h = await github();
    const result = await h.call("github__create_issue", { repo: "acme/web", title: "x" }, () => ({
      status: "cancelled",
    }));
    expect(textOf(result)).toBe("The approval for github__create_issue was cancelled; it was not run.");
    expect(fake.requests.length).toBe(0);
    h.cleanup();
  });
});

describe("sensitive actions", () => {
  const action = actionsFor<{ base: string; token: string }>();
  const vault = defineConnector<{ base: string; token: string }>({
    id: "vault",
    label: "Vault",
    defaultBaseUrl: "http://127.0.0.1:1",
    auth: { env: "VAULT_TOKEN", tokenName: "token", help: "Ask your admin." },
    client: (token, settings) => ({ base: settings.baseUrl, token }),
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

  it("records and questions keep argument names only; the entry tells the kernel how to redact", async () => {
    const h = await activate({ connectors: [vault], env: { VAULT_TOKEN: "vault-token-123" } });
    const [entry] = await h.entries("vault");
    expect(entry!.redact?.({ name: "db", value: "hunter2" })).toEqual({
      name: "[redacted]",
      value: "[redacted]",
    });
    let shown: ApprovalRequest | undefined;
    const result = await h.call("vault__put_secret", { name: "db", value: "hunter2" }, (request) => {
      shown = request;
      return once;
    });
    expect(textOf(result)).toBe("stored db");
    expect(shown!.args).toEqual({ name: "[redacted]", value: "[redacted]" });
    expect(JSON.stringify(h.decisions)).not.toContain("hunter2");
    h.cleanup();
  });

  it("a client the connector cannot make is one clear result, and nobody is asked", async () => {
    const broken = { ...vault, client: () => Promise.reject(new Error("bad settings for vault-token-123")) };
    const h = await activate({ connectors: [broken], env: { VAULT_TOKEN: "vault-token-123" } });
    const result = await h.call("vault__put_secret", { name: "db", value: "hunter2" }, () => once);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "Vault: the client could not be created (bad settings for vault-token-123). vault__put_secret was not run.",
    );
    expect(h.questions).toEqual([]);
    h.cleanup();
  });
});
