// The Claude 5 family as the mock plays it, through the real SDK: requests the API rejects, the
// shapes Sonnet 5.5 answers in (notes between tool calls as thinking blocks, display omitted by
// default), and thinking blocks bound to the model and to the conversation before them.
import type Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import type { ReplyTurn } from "../src/index.js";
import { openTransport, rejection, TRANSPORTS, type Transport } from "./transports.js";

const SONNET = "claude-sonnet-5-5";
const user = (content: string) => ({ role: "user" as const, content });
const base = (model: string) => ({ model, max_tokens: 1024, messages: [user("hello")] });

const TOOL_TURN: ReplyTurn = {
  thinking: "Plan: read the file.",
  text: "I'll read the file first.",
  toolCalls: [{ id: "toolu_1", name: "read", arguments: { path: "a.ts" } }],
};

async function status(call: () => Promise<unknown>): Promise<{ status?: number; message: string }> {
  const e = (await rejection(call)) as { status?: number; error?: { error?: { message?: string } } };
  return { status: e.status, message: e.error?.error?.message ?? "" };
}

describe.each(TRANSPORTS)("Claude 5 rules over %s", (kind) => {
  let t: Transport;
  afterEach(() => t.close());

  it("rejects sampling parameters, manual budgets, forced tools and (on Sonnet 5.5) disabled thinking", async () => {
    t = await openTransport(kind, { turns: [{ text: "never sent" }] });
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [
        "claude-opus-5-5",
        { temperature: 0.2 },
        /^temperature: sampling parameters are not supported on claude-opus-5-5/,
      ],
      ["claude-opus-5-5", { top_p: 0.9 }, /^top_p: /],
      [
        "claude-sonnet-5",
        { thinking: { type: "enabled", budget_tokens: 2048 } },
        /manual thinking with budget_tokens/,
      ],
      [SONNET, { thinking: { type: "disabled" } }, /send \{"type": "between_tools"\}/],
      [
        SONNET,
        { thinking: { type: "between_tools" }, output_config: { effort: "max" } },
        /cannot be combined with thinking.type "between_tools"/,
      ],
      [
        SONNET,
        { tools: [{ name: "read", input_schema: { type: "object" } }], tool_choice: { type: "any" } },
        /forced tool use \("any"\)/,
      ],
      [
        "claude-fable-5-2",
        {
          tools: [{ name: "read", input_schema: { type: "object" } }],
          tool_choice: { type: "tool", name: "read" },
        },
        /forced tool use \("tool"\)/,
      ],
    ];
    for (const [model, extra, message] of cases) {
      const answer = await status(() =>
        t.anthropic.messages.create({
          ...base(model),
          ...extra,
        } as Anthropic.MessageCreateParamsNonStreaming),
      );
      expect(answer.status, `${model} ${JSON.stringify(extra)}`).toBe(400);
      expect(answer.message).toMatch(message);
    }
    // Rejected requests are recorded and consume no turn; older models take what Claude 4 took.
    expect(t.requests).toHaveLength(cases.length);
    const ok = await t.anthropic.messages.create({
      ...base("claude-sonnet-4-6"),
      temperature: 0.2,
    } as Anthropic.MessageCreateParamsNonStreaming);
    expect(ok.content).toEqual([expect.objectContaining({ text: "never sent" })]);
  });

  it("answers Sonnet 5.5 with empty thinking and the notes before a tool call in a thinking block by default", async () => {
    t = await openTransport(kind, { turns: [TOOL_TURN] });
    const message = await t.anthropic.messages.stream(base(SONNET)).finalMessage();
    expect(message.content.map((b) => b.type)).toEqual(["thinking", "thinking", "tool_use"]);
    expect(message.content[0]).toMatchObject({
      type: "thinking",
      thinking: "",
      signature: `sig_${SONNET}_0000_0`,
    });
    expect(message.content[1]).toMatchObject({
      type: "thinking",
      thinking: "",
      signature: `sig_${SONNET}_0000_1`,
    });
  });

  it("returns the thinking text and the notes when the request asks for a summarized display", async () => {
    t = await openTransport(kind, { turns: [TOOL_TURN, TOOL_TURN] });
    const summarized = await t.anthropic.messages
      .stream({ ...base(SONNET), thinking: { type: "adaptive", display: "summarized" } })
      .finalMessage();
    expect(summarized.content.slice(0, 2)).toMatchObject([
      { type: "thinking", thinking: "Plan: read the file." },
      { type: "thinking", thinking: "I'll read the file first." },
    ]);
    // between_tools: no up-front thinking; the notes still come back, with their text.
    const between = await t.anthropic.messages.create({
      ...base(SONNET),
      thinking: { type: "between_tools" },
    });
    expect(between.content.map((b) => (b.type === "thinking" ? `thinking:${b.thinking}` : b.type))).toEqual([
      "thinking:I'll read the file first.",
      "tool_use",
    ]);
  });

  it("rejects a thinking block another model signed on Sonnet 5.5, and drops it silently on Opus 5.5", async () => {
    t = await openTransport(kind, { turns: [{ thinking: "hm", text: "hi" }, { text: "x" }, { text: "y" }] });
    const first = await t.anthropic.messages.create({
      ...base("claude-opus-5-5"),
      thinking: { type: "adaptive" },
    });
    const history = [user("hello"), { role: "assistant" as const, content: first.content }, user("go on")];
    const onSonnet = await status(() => t.anthropic.messages.create({ ...base(SONNET), messages: history }));
    expect(onSonnet).toEqual({
      status: 400,
      message: `messages.1.content.0: this thinking block was produced by claude-opus-5-5 and cannot be used with ${SONNET}; remove it.`,
    });
    const onFable = await t.anthropic.messages.create({ ...base("claude-fable-5-2"), messages: history });
    expect(onFable.content).toEqual([expect.objectContaining({ text: "x" })]);
  });

  it("checks the conversation before a block, unless the request asks to drop stale blocks", async () => {
    t = await openTransport(kind, { turns: [{ thinking: "plan", text: "a" }, { text: "b" }, { text: "c" }] });
    const system = [{ type: "text" as const, text: "rules" }];
    const first = await t.anthropic.messages.create({
      ...base(SONNET),
      system,
      messages: [user("hello"), user("<system-reminder>one request only</system-reminder>")],
    });
    // The same history, but the one-request reminder before the block is gone.
    const later = {
      ...base(SONNET),
      system,
      messages: [user("hello"), { role: "assistant" as const, content: first.content }, user("next")],
    };
    const stale = await status(() => t.anthropic.messages.create(later));
    expect(stale.status).toBe(400);
    expect(stale.message).toContain("The block is bound to a different conversation.");
    const dropped = await t.anthropic.messages.create({
      ...later,
      thinking: { type: "adaptive", block_binding: { prefix_mismatch_behavior: "drop_block" } },
    } as Anthropic.MessageCreateParamsNonStreaming);
    expect(dropped.content).toEqual([expect.objectContaining({ text: "b" })]);
    // Unchanged history passes without asking (cache markers moving is no change).
    const kept = [user("hello"), user("<system-reminder>one request only</system-reminder>")];
    const withMarker = {
      ...base(SONNET),
      system: [{ type: "text" as const, text: "rules", cache_control: { type: "ephemeral" as const } }],
      messages: [...kept, { role: "assistant" as const, content: first.content }, user("next")],
    };
    const accepted = await t.anthropic.messages.create(withMarker);
    expect(accepted.content).toEqual([expect.objectContaining({ text: "c" })]);
  });
});
