// The one prompt-cache prefix check every package's cache tests use: it must pass a request
// sequence that only appends, and name the first pair that changes what was sent.
import { describe, expect, it } from "vitest";
import { prefixRetention, type RecordedRequest } from "../src/index.js";

type Json = Record<string, unknown>;

const marked = (text: string) => ({ type: "text", text, cache_control: { type: "ephemeral" } });
const plain = (text: string) => ({ type: "text", text });

function request(index: number, body: Json): RecordedRequest {
  const raw = JSON.stringify(body);
  return { index, raw, body: JSON.parse(raw) } as unknown as RecordedRequest;
}

const system = [marked("You are Keel.")];
const tools = [{ name: "Read", input_schema: {} }];
const user = (text: string, cached = false) => ({
  role: "user",
  content: [cached ? marked(text) : plain(text)],
});
const assistant = (text: string) => ({ role: "assistant", content: [plain(text)] });
const reminder = { role: "user", content: [plain("<system-reminder>todo: 1 open</system-reminder>")] };

describe("prefixRetention", () => {
  it("holds when each request only appends (a trailing one-request reminder dropped, markers moving on)", () => {
    const r0 = request(0, { system, tools, messages: [user("hi", true), reminder] });
    const r1 = request(1, { system, tools, messages: [user("hi"), assistant("hello"), user("more", true)] });
    const r2 = request(2, {
      system,
      tools,
      messages: [user("hi"), assistant("hello"), user("more", true), assistant("ok"), user("again", true)],
    });
    expect(prefixRetention([r0, r1, r2])).toEqual({ retention: 1 });
    expect(prefixRetention([r0])).toEqual({ retention: 1 });
  });

  it("names a changed system prompt or tool list", () => {
    const r0 = request(0, { system, tools, messages: [user("hi")] });
    const r1 = request(1, {
      system: [marked("You are Keel. Today is Tuesday.")],
      tools,
      messages: [user("hi")],
    });
    expect(prefixRetention([r0, r1])).toEqual({
      retention: 0,
      failure: "request 0 → 1: the system prompt or the tools changed",
    });
    const r2 = request(1, {
      system,
      tools: [...tools, { name: "Grep", input_schema: {} }],
      messages: [user("hi")],
    });
    expect(prefixRetention([r0, r2]).failure).toContain("the tools changed");
  });

  it("names the first message that changed, and counts the pairs that held", () => {
    const r0 = request(0, { system, tools, messages: [user("hi")] });
    const r1 = request(1, { system, tools, messages: [user("hi"), assistant("a"), user("b")] });
    const r2 = request(2, { system, tools, messages: [user("hi"), assistant("A (edited)"), user("b")] });
    const result = prefixRetention([r0, r1, r2]);
    expect(result.retention).toBe(0.5);
    expect(result.failure).toMatch(/^request 1 → 2: history changed at message 1: /);
  });

  it("catches a cache marker left on a block the next request does not keep", () => {
    // The reminder is dropped before comparing, so the history is a prefix; but the marker sat on
    // the reminder, and the cache entry it wrote is never read again.
    const markedReminder = {
      role: "user",
      content: [marked("<system-reminder>todo: 1 open</system-reminder>")],
    };
    const r0 = request(0, { system, tools, messages: [user("hi"), markedReminder] });
    const r1 = request(1, { system, tools, messages: [user("hi"), assistant("hello"), user("more", true)] });
    expect(prefixRetention([r0, r1])).toEqual({
      retention: 0,
      failure: "request 0 has a cache marker on its one-request reminder (never read back)",
    });
    // A marker on a block the next request rewrote, elsewhere than on the reminder.
    const r2 = request(0, { system, tools, messages: [user("hi", true), assistant("hello")] });
    const r3 = request(1, { system, tools, messages: [user("hi"), assistant("hello"), user("more", true)] });
    expect(prefixRetention([r2, { ...r3, raw: r3.raw.replace('"hi"', '"hi!"') }]).failure).toMatch(
      /history changed at message 0/,
    );
  });

  it("checks how many history markers each request carries, when asked", () => {
    const none = request(0, { system, tools, messages: [user("hi")] });
    const one = request(1, { system, tools, messages: [user("hi"), assistant("a"), user("b", true)] });
    expect(prefixRetention([none, one])).toEqual({ retention: 1 });
    expect(prefixRetention([none, one], { historyMarkers: [1, 2] }).failure).toBe(
      "request 0 carries 0 history markers (expected 1 to 2)",
    );
    expect(prefixRetention([one], { historyMarkers: [1, 2] })).toEqual({ retention: 1 });
  });
});
