// Every blocked tool call is reported: a permission_denied event as it happens and an entry of
// RunSummary.permissionDenials, whoever blocked it (a deny rule, the mode, nobody to ask, the
// user, an extension's policy).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineExtension, Type, textResult } from "@keel/extension-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type CodingAgentEvent, type CodingAgentOptions, createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

async function run(turns: Parameters<typeof faux>[0]["turns"], options: Partial<CodingAgentOptions> = {}) {
  const f = faux({ turns });
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    ...options,
  });
  if (created.isErr()) throw new Error(created.error.message);
  const agent = created.value;
  const events: CodingAgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  const summary = (await agent.prompt("go"))._unsafeUnwrap();
  await agent.close();
  return { summary, denied: events.filter((e) => e.type === "permission_denied"), f };
}

describe("permission denials", () => {
  it("headless asks, deny rules and extension policies each leave one event and one summary entry", async () => {
    box = sandbox();
    mkdirSync(box.home, { recursive: true });
    writeFileSync(
      join(box.home, "config.json"),
      JSON.stringify({ permissions: { deny: ["Bash(git push:*)"] } }),
    );
    const guard = defineExtension({
      id: "guard",
      hooks: {
        beforeToolCall: (event) =>
          event.toolName === "Read" && String(event.args.path).endsWith(".env")
            ? { action: "block", reason: "guard: .env files stay closed" }
            : undefined,
      },
    });
    const { summary, denied, f } = await run(
      [
        {
          toolCalls: [
            // A new file: an Edit of a file never read would fail before anyone is asked.
            { id: "e1", name: "Write", arguments: { path: "README.md", content: "b" } },
            { id: "b1", name: "Bash", arguments: { command: "git push origin main" } },
            { id: "r1", name: "Read", arguments: { path: ".env" } },
            { id: "ok", name: "Bash", arguments: { command: "echo fine" } },
          ],
        },
        { text: "Done what I could." },
      ],
      { extensions: [guard] },
    );
    expect(summary.permissionDenials).toEqual([
      {
        toolCallId: "e1",
        toolName: "Write",
        input: "README.md",
        reason: expect.stringContaining("needs the user's approval and nobody can approve it"),
        by: "headless",
      },
      {
        toolCallId: "b1",
        toolName: "Bash",
        input: "git push origin main",
        reason: expect.stringContaining("denied by rule Bash(git push:*)"),
        by: "rule",
      },
      {
        toolCallId: "r1",
        toolName: "Read",
        input: ".env",
        reason: "guard: .env files stay closed",
        by: "policy",
      },
    ]);
    expect(denied.map(({ type: _, ...d }) => d)).toEqual(summary.permissionDenials);
    // The model was told each reason; the allowed call ran.
    const sent = JSON.stringify(f.requests[1]?.body.messages);
    expect(sent).toContain("guard: .env files stay closed");
    expect(sent).toContain("fine");
  });

  it("plan mode's refusals are the mode's; a run without denials has an empty list", async () => {
    box = sandbox();
    const planned = await run(
      [
        { toolCalls: [{ id: "w", name: "Write", arguments: { path: "x.txt", content: "x" } }] },
        { text: "ok" },
      ],
      { permissionMode: "plan" },
    );
    expect(planned.summary.permissionDenials).toEqual([
      {
        toolCallId: "w",
        toolName: "Write",
        input: "x.txt",
        reason: expect.stringMatching(/^plan mode/),
        by: "mode",
      },
    ]);
    const clean = await run([{ text: "nothing to do" }]);
    expect(clean.summary.permissionDenials).toEqual([]);
    expect(clean.denied).toEqual([]);
  });

  it("a user's no is the user's, with their words", async () => {
    box = sandbox();
    const { summary } = await run(
      [{ toolCalls: [{ id: "t", name: "Bash", arguments: { command: "npm publish" } }] }, { text: "ok" }],
      { ui: { approve: async () => ({ decision: "deny", reason: "not today" }) } },
    );
    expect(summary.permissionDenials).toEqual([
      {
        toolCallId: "t",
        toolName: "Bash",
        input: "npm publish",
        reason: "the user denied Bash and said: not today",
        by: "user",
      },
    ]);
  });

  it("keeps the input summary to one line of at most 200 characters", async () => {
    box = sandbox();
    const command = `printf '%s\\n' ${"y".repeat(400)} > out.txt`;
    const { summary } = await run([
      { toolCalls: [{ id: "t", name: "Bash", arguments: { command } }] },
      { text: "ok" },
    ]);
    expect(summary.permissionDenials[0]!.input).toHaveLength(200);
    expect(summary.permissionDenials[0]!.input.endsWith("…")).toBe(true);
  });

  it("a tool that asks the user itself and is refused reports its denial like the gate's", async () => {
    box = sandbox();
    const asking = defineExtension({
      id: "asking",
      tools: (tool) => [
        tool({
          name: "Publish",
          description: "Publishes, after asking.",
          parameters: Type.Object({ target: Type.String() }),
          sideEffects: true,
          approval: "extension",
          async execute(args, ctx) {
            const answer = await ctx.approve({ title: `Publish to ${args.target}?` });
            if (answer.status === "allowed") return textResult("published");
            const reason = `Not published: ${answer.status === "denied" ? (answer.reason ?? "denied") : "nobody could approve it"}`;
            return { ...textResult(reason, undefined, true), denial: { reason } };
          },
        }),
      ],
    });
    const { summary, denied } = await run(
      [{ toolCalls: [{ id: "p1", name: "Publish", arguments: { target: "prod" } }] }, { text: "ok" }],
      { extensions: [asking], discoverExtensions: false },
    );
    expect(summary.permissionDenials).toEqual([
      {
        toolCallId: "p1",
        toolName: "Publish",
        input: '{"target":"prod"}',
        reason: "Not published: nobody could approve it",
        by: "policy",
      },
    ]);
    expect(denied).toHaveLength(1);
  });
});
