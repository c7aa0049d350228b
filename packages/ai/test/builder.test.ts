// MessageBuilder on its own: a large tool argument streamed in small deltas keeps a growing
// partial and ends with exactly the arguments that were sent.
import { createAssistantMessageEventStream, MessageBuilder, type ToolCall } from "@keel/ai";
import { describe, expect, it } from "vitest";
import { claudeModel } from "./helpers.js";

function streamToolArgs(json: string, chunk: number) {
  const out = createAssistantMessageEventStream();
  const builder = new MessageBuilder(claudeModel(), out);
  builder.toolCallStart("k", { id: "t1", name: "Write" });
  // One snapshot per update of the partial (the builder replaces the object when it re-parses).
  const partialContents: string[] = [];
  let seen: unknown;
  for (let i = 0; i < json.length; i += chunk) {
    builder.toolCallArgs("k", json.slice(i, i + chunk));
    const { arguments: args } = builder.message.content[0] as ToolCall;
    if (args !== seen && typeof args.content === "string") partialContents.push(args.content);
    seen = args;
  }
  builder.endBlock("k");
  return { builder, partialContents };
}

describe("MessageBuilder tool arguments", () => {
  it("streams a 200 KB argument: partials only grow, the end is exact", () => {
    const content = Array.from({ length: 5_000 }, (_, i) => `line ${i}: ${'é"\\x'.repeat(8)}\n`).join("");
    const args = { path: "/repo/big.txt", content };
    const json = JSON.stringify(args);
    expect(json.length).toBeGreaterThan(200_000);
    const { builder, partialContents } = streamToolArgs(json, 16);

    expect(builder.message.content[0]).toEqual({
      type: "toolCall",
      id: "t1",
      name: "Write",
      arguments: args,
    });
    expect(builder.failure).toBeUndefined();
    // The partial was seen growing all the way, through prefixes of the final text.
    expect(new Set(partialContents).size).toBeGreaterThan(10);
    const growing = partialContents.every(
      (p, i) => content.startsWith(p) && p.length >= (partialContents[i - 1]?.length ?? 0),
    );
    expect(growing).toBe(true);
    expect(partialContents.at(-1)?.length).toBeGreaterThan(content.length * 0.8);
  });

  it("parses a small argument on every delta", () => {
    const { partialContents } = streamToolArgs(JSON.stringify({ content: "abcdefghij" }), 1);
    expect(partialContents).toEqual([
      "",
      "a",
      "ab",
      "abc",
      "abcd",
      "abcde",
      "abcdef",
      "abcdefg",
      "abcdefgh",
      "abcdefghi",
      "abcdefghij",
      "abcdefghij",
      "abcdefghij",
    ]);
  });

  it("reports damaged JSON at the end however much of it was skipped while streaming", () => {
    const json = `${JSON.stringify({ content: "y".repeat(100_000) }).slice(0, -1)},,}`;
    const { builder } = streamToolArgs(json, 16);
    expect(builder.failure).toMatchObject({
      type: "invalid_tool_arguments",
      toolCallId: "t1",
      toolName: "Write",
    });
  });
});
