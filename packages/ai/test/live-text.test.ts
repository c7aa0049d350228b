// Streamed text and thinking: the partial each event carries reads as the text so far (however
// it is read), and the finished message holds plain string properties.
import { type AssistantMessage, createAssistantMessageEventStream, MessageBuilder } from "@keel/ai";
import { describe, expect, it } from "vitest";
import { claudeModel } from "./helpers.js";

function builder() {
  const out = createAssistantMessageEventStream();
  return { out, builder: new MessageBuilder(claudeModel(), out) };
}

// Enough deltas that the accumulated text is folded several times on the way.
const deltas = Array.from({ length: 3000 }, (_, i) => `delta ${i} of the reply; `);

describe("MessageBuilder streamed text", () => {
  it("gives every text_delta a partial whose text is exactly the text so far", async () => {
    const { out, builder: b } = builder();
    const seen: string[] = [];
    const consumed = (async () => {
      for await (const e of out)
        if (e.type === "text_delta") seen.push((e.partial.content[0] as { text: string }).text);
    })();
    for (const d of deltas) {
      b.text("0", d);
      // Let the consumer read this delta's event before the next one is built.
      await new Promise((resolve) => setImmediate(resolve));
    }
    b.finish("stop");
    b.complete();
    await consumed;
    let expected = "";
    const wrong = seen.findIndex((text, i) => {
      expected += deltas[i];
      return text !== expected;
    });
    expect(seen).toHaveLength(deltas.length);
    expect(wrong).toBe(-1);
  });

  it("shows the text so far to JSON, spreads and structuredClone mid-stream", () => {
    const { builder: b } = builder();
    b.thinking("0", "let me ");
    b.thinking("0", "think");
    b.text("1", "Hel");
    b.text("1", "lo");
    const [thinking, text] = b.message.content;
    expect(JSON.parse(JSON.stringify(b.message.content))).toEqual([
      {
        type: "thinking",
        thinking: "let me think",
        source: { provider: "anthropic", api: "anthropic-messages" },
      },
      { type: "text", text: "Hello" },
    ]);
    expect({ ...text }).toEqual({ type: "text", text: "Hello" });
    expect(structuredClone(thinking)).toMatchObject({ thinking: "let me think" });
    // Keys keep their order; a later delta still shows up after a read.
    expect(Object.keys(text ?? {})).toEqual(["type", "text"]);
    b.text("1", ", world");
    expect(text).toEqual({ type: "text", text: "Hello, world" });
  });

  it("lets a consumer replace the text while it streams", () => {
    const { builder: b } = builder();
    b.text("0", "draft");
    (b.message.content[0] as { text: string }).text = "edited";
    b.text("0", " more");
    expect(b.message.content[0]).toEqual({ type: "text", text: "edited more" });
  });

  it("ends with plain data properties, on done and on a failure mid-block", async () => {
    const plain = (message: AssistantMessage, index: number, key: string) =>
      Object.getOwnPropertyDescriptor(message.content[index], key);

    const done = builder();
    done.builder.text("0", "finished");
    done.builder.finish("stop");
    done.builder.complete();
    const final = await done.out.result();
    expect(plain(final, 0, "text")).toEqual({
      value: "finished",
      writable: true,
      enumerable: true,
      configurable: true,
    });

    const failed = builder();
    failed.builder.thinking("0", "half a ");
    failed.builder.thinking("0", "thought");
    failed.builder.fail({ type: "network", reason: "reset", message: "dropped" });
    failed.builder.complete();
    const partial = await failed.out.result();
    expect(partial.stopReason).toBe("error");
    expect(plain(partial, 0, "thinking")?.value).toBe("half a thought");
  });
});
