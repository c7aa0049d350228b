// Child agents that start from the parent's cached prefix: a child on the parent's model with no
// allow list (shareParentPrefix) sends the parent's exact system prompt and tool list, its
// instructions open its first message, the tools it may not use are refused (listed, never run),
// and OpenAI routes it by the parent's cache key. A narrowed tool list or another model cannot
// share: that child builds its own prompt.
import {
  defineExtension,
  type ExtensionDefinition,
  type RunAgentOptions,
  Type,
  textResult,
} from "@keel/extension-sdk";
import { cacheLines, type RecordedRequest, type ScenarioTurn, type WireApi } from "@keel/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

type Json = Record<string, unknown>;

function spawner(options: Partial<RunAgentOptions>) {
  return defineExtension({
    id: "spawner",
    tools: (tool) => [
      tool({
        name: "Spawn",
        description: "Run a child agent on a task.",
        parameters: Type.Object({ task: Type.String() }),
        async execute(args, ctx) {
          const started = await ctx.runAgent({ prompt: `CHILD: ${args.task}`, title: args.task, ...options });
          if (!started.ok) return textResult(`not started: ${started.error.message}`, undefined, true);
          const result = await started.run.result;
          return textResult(
            `${started.run.sharesParentPrefix ? "shared" : "own"} ${result.status}: ${result.text}`,
          );
        },
      }),
      tool({
        name: "Secret",
        description: "Only the parent may call this.",
        parameters: Type.Object({}),
        execute: async () => textResult("the secret ran"),
      }),
    ],
  }) as ExtensionDefinition;
}

const texts = (r: RecordedRequest) => JSON.stringify(r.body);
const isChild = (r: RecordedRequest) => texts(r).includes("CHILD: ");

async function start(api: WireApi, options: Partial<RunAgentOptions>, child: ScenarioTurn[]) {
  box = sandbox();
  let c = 0;
  let p = 0;
  const parent: ScenarioTurn[] = [
    { toolCalls: [{ name: "Spawn", arguments: { task: "look around" } }] },
    { text: "parent done" },
  ];
  const f = faux(
    {
      turns: [],
      fallback: (r) => (isChild(r) ? (child[c++] ?? { text: "child done" }) : (parent[p++] ?? { text: "?" })),
    },
    api === "anthropic-messages" ? {} : { api, provider: "openai", baseUrl: "http://faux.keel.invalid/v1" },
  );
  const agent = (
    await createCodingAgent({
      cwd: box.workspace,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
      permissionMode: "bypassPermissions",
      extensions: [spawner(options)],
      discoverExtensions: false,
    })
  )._unsafeUnwrap();
  const summary = (await agent.prompt("Spawn a child."))._unsafeUnwrap();
  const sessionId = agent.sessionId;
  await agent.close();
  const requests = f.requests as RecordedRequest[];
  return {
    summary,
    sessionId,
    parentFirst: requests.find((r) => !isChild(r))!,
    parentLast: requests.filter((r) => !isChild(r)).at(-1)!,
    children: requests.filter(isChild),
  };
}

describe("a child sharing the parent's prefix", () => {
  it("sends the parent's system prompt and tools byte for byte, its instructions first in its message", async () => {
    const { summary, parentFirst, parentLast, children } = await start(
      "anthropic-messages",
      { shareParentPrefix: true, instructions: "Report briefly.", tools: { exclude: ["Spawn", "Secret"] } },
      [{ toolCalls: [{ name: "Secret", arguments: {} }] }, { text: "looked" }],
    );
    const [first, second] = children as [RecordedRequest, RecordedRequest];
    // System and tools: the first line of the cache view, identical to the parent's.
    expect(cacheLines(first)[0]).toBe(cacheLines(parentFirst)[0]);
    const opening = (first.body.messages as { content: Json[] }[])[0]!.content[0]!.text as string;
    expect(opening).toBe(
      "<agent-instructions>\nReport briefly.\n</agent-instructions>\n\nCHILD: look around",
    );
    // The excluded tool is listed but refused: it never ran.
    expect(texts(second)).toContain("Secret is not available to this sub-agent");
    expect(texts(second)).not.toContain("the secret ran");
    expect(summary.text).toBe("parent done");
    expect(texts(parentLast)).toContain("shared completed: looked");
  });

  it("routes OpenAI's cache by the parent's key", async () => {
    const { sessionId, parentFirst, children } = await start(
      "openai-responses",
      { shareParentPrefix: true, tools: { exclude: ["Spawn"] } },
      [{ text: "looked" }],
    );
    const child = children[0]!;
    expect(child.body.prompt_cache_key).toBe(sessionId);
    expect([child.body.instructions, child.body.tools]).toEqual([
      parentFirst.body.instructions,
      parentFirst.body.tools,
    ]);
  });

  it("cannot share with a narrowed tool list: the child's own prompt and tools", async () => {
    const { parentFirst, parentLast, children } = await start(
      "anthropic-messages",
      { shareParentPrefix: true, tools: { allow: ["Read", "Grep"] } },
      [{ text: "looked" }],
    );
    const child = children[0]!;
    expect((child.body.tools as { name: string }[]).map((t) => t.name)).toEqual(["Read", "Grep"]);
    expect(cacheLines(child)[0]).not.toBe(cacheLines(parentFirst)[0]);
    expect(texts(parentLast)).toContain("own completed: looked");
  });
});
