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

  it("marks damaged JSON on that call at the end however much was skipped while streaming, and the message stands", () => {
    const json = `${JSON.stringify({ content: "y".repeat(100_000) }).slice(0, -1)},,}`;
    const { builder } = streamToolArgs(json, 16);
    expect(builder.failure).toBeUndefined();
    const call = builder.message.content[0] as ToolCall;
    expect(call).toMatchObject({ type: "toolCall", id: "t1", name: "Write", arguments: {} });
    expect(call.argumentsError).toMatch(/JSON/);
    expect(call.argumentsError).toContain(`the arguments began: {"content":"yyy`);
    expect(call.argumentsError).toContain(`(${json.length} characters)`);
    expect(call.argumentsError!.length).toBeLessThan(400);
  });

  it("a JSON value that is not an object is damage too", () => {
    const { builder } = streamToolArgs("[1, 2]", 2);
    expect((builder.message.content[0] as ToolCall).argumentsError).toBe(
      "arguments must be a JSON object; the arguments began: [1, 2]",
    );
  });
});

describe("MessageBuilder reply bound", () => {
  it("fails the reply once its characters pass the bound, and takes nothing more", () => {
    const out = createAssistantMessageEventStream();
    const builder = new MessageBuilder(claudeModel(), out, { maxChars: 10 });
    builder.text("k", "éé"); // 2
    builder.thinking("t", "abcd"); // 6
    builder.toolCallStart("c", { id: "t1", name: "Write" });
    builder.toolCallArgs("c", '{"a"'); // 10: at the bound, still fine
    expect(builder.failure).toBeUndefined();
    builder.toolCallArgs("c", ":"); // 11: past it
    expect(builder.failure).toEqual({
      type: "reply_too_large",
      limitChars: 10,
      message: expect.stringContaining("bound of 10 characters"),
    });
    builder.text("k", "more");
    builder.complete();
    expect(builder.message.stopReason).toBe("error");
    expect(builder.message.content[0]).toEqual({ type: "text", text: "éé" });
  });
});
