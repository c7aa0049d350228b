// The policy matrix in the real kernel: each side-effect class × allow / ask / deny, for a session
// with an approval dialog, a headless one (print mode's host: no dialog), and a subagent whose
// question reaches the parent's dialog. The rule decides the same way in all three.
import type { ApprovalAnswer } from "@keel/coding-agent";
import { defineExtension, Type, textResult } from "@keel/extension-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectorExtension, githubConnector } from "../src/index.js";
import { type FakeGitHub, GITHUB_TOKEN, startFakeGitHub } from "./fakes/github.js";
import { box, dialog, execute, provider, start, toolResultTexts } from "./kernel-harness.js";

let fake: FakeGitHub;
beforeAll(async () => {
  fake = await startFakeGitHub();
});
afterAll(() => fake.close());

const CALLS = {
  read: ["github:github__get_issue", { repo: "acme/web", number: 1 }],
  create: ["github:github__comment_issue", { repo: "acme/web", number: 1, body: "hi" }],
  update: ["github:github__update_issue", { repo: "acme/web", number: 1, title: "Crash on start" }],
  destructive: ["github:github__close_issue", { repo: "acme/web", number: 2 }],
} as const;

/** A tool that runs one child agent with the GitHub group and returns its final text. */
const delegator = defineExtension({
  id: "delegator",
  tools: (tool) => [
    tool({
      name: "Delegate",
      description: "Run a child agent on a task.",
      parameters: Type.Object({ task: Type.String() }),
      // Spawning touches nothing: the child's calls are judged (and asked) one by one.
      access: "none",
      async execute(args, context) {
        const started = await context.runAgent({
          prompt: args.task,
          title: "helper",
          tools: { allow: ["github"] },
        });
        if (!started.ok) return textResult(`not started: ${started.error.message}`, undefined, true);
        return textResult((await started.run.result).text);
      },
    }),
  ],
});

type Host = "dialog" | "headless" | "subagent";

async function run(effect: keyof typeof CALLS, rule: "allow" | "ask" | "deny", host: Host) {
  const b = box({ connectors: { github: { baseUrl: fake.url } }, policy: { classes: { [effect]: rule } } });
  fake.requests.length = 0;
  const [toolRef, args] = CALLS[effect];
  const call = execute(toolRef, { ...args });
  const turns =
    host === "subagent"
      ? [
          {
            toolCalls: [
              { id: `toolu_delegate_${effect}_${rule}`, name: "Delegate", arguments: { task: "do it" } },
            ],
          },
          call,
          { text: "child done" },
          { text: "parent done" },
        ]
      : [call, { text: "done" }];
  const model = provider({ turns });
  const answer = dialog((): ApprovalAnswer => ({ decision: "allow_once" }));
  const agent = await start({
    cwd: b.workspace,
    home: b.home,
    model: model.model,
    streamOptions: model.streamOptions,
    extensions: [connectorExtension({ connectors: [githubConnector], env: { GITHUB_TOKEN } }), delegator],
    ...(host === "headless" ? {} : { ui: answer.ui }),
  });
  await agent.prompt("go");
  await agent.close();
  // The tool result the model read: in the child's request after its call, or the parent's.
  const result = toolResultTexts(model.requests[host === "subagent" ? 2 : 1]).at(-1) ?? "";
  b.cleanup();
  return { asked: answer.asked, sent: fake.requests.length, result };
}

describe("class × rule × host", () => {
  for (const host of ["dialog", "headless", "subagent"] as const)
    for (const effect of ["read", "create", "update", "destructive"] as const)
      for (const rule of ["allow", "ask", "deny"] as const) {
        it(`${host}: ${effect} with ${rule}`, async () => {
          const { asked, sent, result } = await run(effect, rule, host);
          const question = rule === "ask" && host !== "headless";
          expect(asked.length).toBe(question ? 1 : 0);
          if (question) {
            expect(asked[0]).toMatchObject({
              kind: "extension",
              toolName: CALLS[effect][0],
              offersAlways: effect !== "destructive",
            });
            if (host === "subagent") expect(asked[0]!.agent).toMatchObject({ title: "helper" });
            else expect(asked[0]!.agent).toBeUndefined();
          }
          const runs = rule === "allow" || question;
          expect(sent).toBe(runs ? 1 : 0);
          if (rule === "deny") expect(result).toContain("denied by the user's connector policy");
          if (rule === "ask" && host === "headless")
            expect(result).toContain("nobody can answer in this session");
        });
      }
});

describe("a subagent's answers", () => {
  it("an 'always' given to a child's question holds for the parent and is saved once", async () => {
    const b = box({ connectors: { github: { baseUrl: fake.url } } });
    fake.requests.length = 0;
    const comment = (body: string) =>
      execute("github:github__comment_issue", { repo: "acme/web", number: 1, body });
    const model = provider({
      turns: [
        { toolCalls: [{ id: "toolu_delegate_always", name: "Delegate", arguments: { task: "comment" } }] },
        comment("from the child"),
        { text: "child done" },
        comment("from the parent"),
        { text: "parent done" },
      ],
    });
    const answer = dialog((): ApprovalAnswer => ({ decision: "allow_always" }));
    const agent = await start({
      cwd: b.workspace,
      home: b.home,
      model: model.model,
      streamOptions: model.streamOptions,
      extensions: [connectorExtension({ connectors: [githubConnector], env: { GITHUB_TOKEN } }), delegator],
      ui: answer.ui,
    });
    await agent.prompt("go");
    await agent.close();
    expect(answer.asked.map((a) => a.agent?.title)).toEqual(["helper"]);
    expect(fake.requests.map((r) => (r.body as { body: string }).body)).toEqual([
      "from the child",
      "from the parent",
    ]);
    b.cleanup();
  });
});
