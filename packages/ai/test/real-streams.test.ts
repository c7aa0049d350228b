// Every recorded real provider stream, replayed through the real vendor SDKs from a local server:
// Keel's events and final message must say what a correct client reads from the recording (text,
// thinking with byte-exact signatures, tool calls, server-side blocks, usage, how it ended), and
// the follow-up request Keel then builds must have the shape the provider documents. Recordings
// whose follow-up needs a client-side tool type Keel never declares are checked for their events
// only; malformed ones must end in one clean error. Every event and message must also match
// @keel/protocol's schemas. Counts per API and origin are printed.
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  type Context,
  CUSTOM_COMPAT_DEFAULTS,
  defaultModelFor,
  getModel,
  type Model,
  modelForUnknownId,
  stream,
} from "@keel/ai";
import { AssistantMessageEventSchema, AssistantMessageSchema } from "@keel/protocol";
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drain } from "./helpers.js";
import { loadRecordings, type Recording, typeOf } from "./real-streams/recordings.js";
import { CLIENT_ITEMS, type Expected, type ExpectedBlock, expectFor } from "./real-streams/reference.js";
import { type ReplayServer, startReplayServer } from "./real-streams/serve.js";
import { checkAnthropic, checkChat, checkResponses, type ShapeFacts } from "./real-streams/shapes.js";

const { dir, recordings, skipped, files } = loadRecordings();
let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

type Kind = "full" | "events" | "unusable";
interface Verdict {
  kind: Kind;
  why?: string;
}

function payloadsParse(rec: Recording): boolean {
  return rec.responses.every((r) =>
    r.every((p) => {
      try {
        JSON.parse(p);
        return true;
      } catch {
        return false;
      }
    }),
  );
}

/** Whether Keel can take a recording's follow-up at all, and why not. */
function verdictOf(rec: Recording): Verdict {
  if (!payloadsParse(rec))
    return { kind: "unusable", why: "hand-written with payloads that are not JSON (no server sent it)" };
  const all = rec.responses.flat().map((p) => JSON.parse(p) as Record<string, unknown>);
  if (rec.api === "openai-responses") {
    const client = all.flatMap((e) => {
      const item = e.item as { type?: string } | undefined;
      return e.type === "response.output_item.done" && item?.type && CLIENT_ITEMS.has(item.type)
        ? [item.type]
        : [];
    });
    if (client.length > 0)
      return {
        kind: "events",
        why: `its reply calls ${[...new Set(client)].join(", ")}: a client-side tool type Keel never declares, so no follow-up Keel builds can answer it`,
      };
    if (all.some((e) => (e.item as { type?: string } | undefined)?.type === "program"))
      return {
        kind: "events",
        why: "programmatic tool calling (a program item) needs a follow-up Keel never makes",
      };
  }
  if (rec.api === "anthropic-messages") {
    const text = rec.responses.flat().join("\n");
    if (text.includes('"caller":{"type":"code_execution'))
      return {
        kind: "events",
        why: "programmatic tool calling (tool calls made from code execution) needs the container and caller Keel never sends",
      };
  }
  return { kind: "full" };
}

const NOTE_PROVIDER: [RegExp, string][] = [
  [/^grok/, "xai"],
  [/^mistral/, "mistral"],
  [/^claude/, "anthropic-compat"],
];

function modelFor(rec: Recording): Model {
  const id = rec.model ?? "unnamed-deployment";
  if (rec.api === "anthropic-messages") {
    const known = getModel("anthropic", id);
    const model = known.isOk() ? known.value : modelForUnknownId(defaultModelFor("anthropic")!, id);
    return { ...model, baseUrl: server.anthropicBaseUrl };
  }
  const openai = defaultModelFor("openai")!;
  const compatible = rec.id.includes("/openai-compatible/");
  const provider = compatible ? (NOTE_PROVIDER.find(([re]) => re.test(id))?.[1] ?? "compatible") : "openai";
  const known = compatible ? undefined : getModel("openai", id);
  const base = known?.isOk() ? known.value : modelForUnknownId(openai, id);
  return {
    ...base,
    provider,
    api: rec.api,
    baseUrl: server.openaiBaseUrl,
    ...(rec.api === "openai-completions" && compatible
      ? {
          compat: {
            ...CUSTOM_COMPAT_DEFAULTS,
            ...(provider === "xai" ? { reasoningField: "reasoning_content" as const } : {}),
          },
        }
      : {}),
  };
}

/** What the test compares: Keel's block in the reference's terms. */
function comparable(block: AssistantMessage["content"][number], api: Recording["api"]): ExpectedBlock {
  switch (block.type) {
    case "text": {
      const urls = (block.citations ?? []).flatMap((c) => (c.url ? [c.url] : []));
      return {
        type: "text",
        text: block.text,
        ...(urls.length > 0 ? { citations: urls } : {}),
        ...(block.phase ? { phase: block.phase } : {}),
      };
    }
    case "thinking": {
      if (api === "openai-responses") {
        const item = block.signature ? (JSON.parse(block.signature) as { id?: string }) : {};
        return { type: "thinking", thinking: block.thinking, ...(item.id ? { itemId: item.id } : {}) };
      }
      return {
        type: "thinking",
        thinking: block.thinking,
        ...(block.signature ? { signature: block.signature } : {}),
        ...(block.redacted ? { redacted: true } : {}),
      };
    }
    case "toolCall":
      return { type: "toolCall", id: block.id, name: block.name, arguments: block.arguments };
    case "serverTool":
      return { type: "serverTool", name: block.name, id: block.id };
  }
}

/** Two segments of a paused turn make one message: blocks in a row, usage summed. */
function merge(a: Expected, b: Expected): Expected {
  const usage =
    a.usage && b.usage
      ? {
          input: a.usage.input + b.usage.input,
          output: a.usage.output + b.usage.output,
          cacheRead: a.usage.cacheRead + b.usage.cacheRead,
          cacheWrite: a.usage.cacheWrite + b.usage.cacheWrite,
        }
      : (b.usage ?? a.usage);
  const webSearch = (a.serverToolUse?.webSearch ?? 0) + (b.serverToolUse?.webSearch ?? 0);
  const webFetch = (a.serverToolUse?.webFetch ?? 0) + (b.serverToolUse?.webFetch ?? 0);
  const serverToolUse =
    webSearch || webFetch
      ? { ...(webSearch ? { webSearch } : {}), ...(webFetch ? { webFetch } : {}) }
      : undefined;
  return {
    blocks: [...a.blocks, ...b.blocks],
    ...(usage ? { usage } : {}),
    ...(serverToolUse ? { serverToolUse } : {}),
    end: b.end,
  };
}

/** What @keel/protocol's schema finds wrong with a value, one line a problem. */
const schemaProblems = (
  schema: typeof AssistantMessageSchema | typeof AssistantMessageEventSchema,
  value: unknown,
) => [...Value.Errors(schema, value)].map((e) => `${e.path}: ${e.message}`);

function checkEvents(events: AssistantMessageEvent[], message: AssistantMessage): void {
  expect(events[0]?.type).toBe("start");
  // Every event and the message are what the protocol says, whatever the provider sent.
  for (const [i, e] of events.entries())
    expect(schemaProblems(AssistantMessageEventSchema, e), `event ${i} (${e.type})`).toEqual([]);
  expect(schemaProblems(AssistantMessageSchema, message)).toEqual([]);
  const terminal = events.filter((e) => e.type === "done" || e.type === "error");
  expect(terminal).toHaveLength(1);
  expect(events.at(-1)).toBe(terminal[0]);
  // Deltas add up to the final text of each block.
  const streamed = new Map<number, string>();
  for (const e of events)
    if (e.type === "text_delta" || e.type === "thinking_delta")
      streamed.set(e.contentIndex, (streamed.get(e.contentIndex) ?? "") + e.delta);
  for (const [index, text] of streamed) {
    const block = message.content[index];
    expect(
      block?.type === "text" ? block.text : block?.type === "thinking" ? block.thinking : undefined,
    ).toBe(text);
  }
  if (terminal[0]?.type === "done") {
    for (const e of events)
      if (e.type === "toolcall_start")
        expect(events.some((x) => x.type === "toolcall_end" && x.contentIndex === e.contentIndex)).toBe(true);
  }
}

function endOf(message: AssistantMessage): Expected["end"] {
  if (message.stopReason === "error" || message.stopReason === "aborted")
    return {
      kind: "error",
      error: message.error?.type === "refusal" ? "refusal" : (message.error?.type ?? "error"),
    };
  if (message.stopReason === "context_overflow") return { kind: "error", error: "context_overflow" };
  return { kind: "done", reason: message.stopReason };
}

/** How Keel names an expected error: protocol errors and in-band HTTP-like errors alike are "error". */
function normaliseEnd(end: Expected["end"]): Expected["end"] {
  if (end.kind !== "error") return end;
  if (end.error === "refusal" || end.error === "context_overflow") return end;
  return { kind: "error", error: "error" };
}

function facts(responses: string[][]): ShapeFacts {
  const reasoningBefore = new Map<string, string>();
  const phases = new Map<string, string>();
  let reasons = false;
  for (const response of responses) {
    let lastReasoning: string | undefined;
    for (const payload of response) {
      const e = JSON.parse(payload) as { type?: string; item?: Record<string, unknown> };
      if (e.type !== "response.output_item.done" || !e.item) continue;
      const item = e.item;
      if (item.type === "reasoning") {
        reasons = true;
        lastReasoning = String(item.id);
      } else if (item.type === "function_call" && lastReasoning && typeof item.id === "string")
        reasoningBefore.set(item.id, lastReasoning);
      else if (item.type === "message" && typeof item.phase === "string") {
        const text = ((item.content as { text?: string }[]) ?? []).map((p) => p.text ?? "").join("");
        phases.set(text, item.phase);
      }
    }
  }
  return { reasoningBefore, phases, reasons };
}

const RANK: Record<Kind, number> = { full: 0, events: 1, unusable: 2 };
function worst(verdicts: Verdict[]): Verdict {
  return verdicts.reduce((a, b) => (RANK[b.kind] > RANK[a.kind] ? b : a));
}

/**
 * Recordings numbered as steps of one conversation (`x.1`, `x.2`; `x-step-1`, `x-step-2`) are
 * replayed as that conversation: a later step answers what an earlier one asked.
 */
function conversations(list: Recording[]): Recording[][] {
  const stem = (id: string) => id.replace(/(\.|-step-)\d+$/, "");
  const byStem = new Map<string, Recording[]>();
  for (const rec of list) {
    const key = /(\.|-step-)\d+$/.test(rec.id) ? `${rec.api} ${stem(rec.id)}` : `${rec.api} ${rec.id}`;
    byStem.set(key, [...(byStem.get(key) ?? []), rec]);
  }
  const step = (id: string) => Number(/(\d+)$/.exec(id)?.[1] ?? 0);
  return [...byStem.values()].map((g) => g.sort((a, b) => step(a.id) - step(b.id)));
}
const groups = conversations(recordings);

interface Row {
  rec: Recording;
  verdict: Verdict;
  requests: number;
}
const rows: Row[] = [];

describe("recorded real provider streams", () => {
  it("finds every published recording and Keel's derived ones", () => {
    const published = recordings.filter((r) => r.origin !== "derived");
    expect(published.length, `recordings in ${dir}`).toBe(files);
    expect(recordings.some((r) => r.origin === "derived")).toBe(true);
  });

  groups.forEach((members, n) => {
    const rec = members[0]!;
    const verdict = worst(members.map(verdictOf));
    const name = members.length === 1 ? rec.id : `${members.map((m) => m.id).join(" → ")}`;
    it(`${name} (${rec.api}, ${rec.origin}${verdict.kind === "full" ? "" : `, ${verdict.kind}`})`, async () => {
      const model = modelFor(rec);
      const responses = members.flatMap((m) => m.responses);
      server.play(rec.api, responses, n + 1);
      const expectations = responses.map((r) => expectFor(rec.api, r));
      const toolNames = new Set(
        expectations.flatMap((e) => e.blocks.flatMap((b) => (b.type === "toolCall" ? [b.name] : []))),
      );
      const context: Context = {
        systemPrompt: "You are replaying a recorded conversation.",
        messages: [{ role: "user", content: "Go.", timestamp: 1 }],
        tools: [...toolNames].map((name) => ({
          name,
          description: `The recording's ${name} tool.`,
          parameters: Type.Object({}, { additionalProperties: true }),
        })),
      };
      const options = {
        apiKey: "test",
        retry: { maxRetries: 0 },
        idleTimeoutMs: 10_000,
        sessionId: "replay",
      };
      const done = () => {
        members.forEach((m, k) => {
          const own = verdictOf(m);
          const row =
            RANK[own.kind] >= RANK[verdict.kind]
              ? own
              : {
                  kind: verdict.kind,
                  why: `a step of the conversation ${name}, whose other step: ${verdict.why}`,
                };
          rows.push({ rec: m, verdict: row, requests: k === 0 ? server.requests.length : 0 });
        });
      };

      if (verdict.kind === "unusable") {
        const { events, message } = await drain(stream(model, context, options));
        checkEvents(events, message);
        expect(message.stopReason).toBe("error");
        done();
        return;
      }

      for (let i = 0; i < expectations.length; i++) {
        let expected = expectations[i]!;
        // A paused turn is continued by Keel with the next response: both make one message.
        while (expected.end.kind === "pause" && i + 1 < expectations.length)
          expected = merge(expected, expectations[++i]!);
        const { events, message } = await drain(stream(model, context, options));
        checkEvents(events, message);
        const label = `${name} response ${i + 1}`;
        expect(
          message.content.map((b) => comparable(b, rec.api)),
          label,
        ).toEqual(expected.blocks);
        expect(normaliseEnd(endOf(message)), label).toEqual(normaliseEnd(expected.end));
        if (expected.usage)
          expect(
            {
              input: message.usage.input,
              output: message.usage.output,
              cacheRead: message.usage.cacheRead,
              cacheWrite: message.usage.cacheWrite,
            },
            label,
          ).toEqual(expected.usage);
        if (expected.serverToolUse) expect(message.usage.serverTools, label).toEqual(expected.serverToolUse);
        context.messages.push(message);
        const calls = message.content.filter((b) => b.type === "toolCall");
        for (const call of calls)
          context.messages.push({
            role: "toolResult",
            toolCallId: call.id,
            toolName: call.name,
            content: [{ type: "text", text: "done" }],
            isError: false,
            timestamp: 2,
          });
        if (calls.length === 0) context.messages.push({ role: "user", content: "Go on.", timestamp: 3 });
      }
      // The follow-up request, answered by the server's one-word reply.
      const follow = await drain(stream(model, context, options));
      expect(follow.message.stopReason, follow.message.error?.message).not.toBe("error");
      done();
      if (verdict.kind !== "full") return;
      const shapeFacts = facts(responses);
      // Every request Keel built after the first (each carries a history with replies in it).
      for (const request of server.requests.slice(1)) {
        const problems =
          rec.api === "anthropic-messages"
            ? checkAnthropic(request.raw)
            : rec.api === "openai-responses"
              ? checkResponses(request.raw, shapeFacts)
              : checkChat(request.raw);
        expect(problems.join("\n"), `${name}: follow-up request`).toBe("");
      }
    });
  });

  it("prints the counts per API and origin, and what was not usable", () => {
    expect(rows).toHaveLength(recordings.length);
    const table = new Map<string, Record<Kind, number>>();
    const bump = (key: string, kind: Kind) => {
      const row = table.get(key) ?? { full: 0, events: 0, unusable: 0 };
      row[kind]++;
      table.set(key, row);
    };
    for (const { rec, verdict } of rows) {
      bump(`api ${rec.api}`, verdict.kind);
      bump(`origin ${rec.origin}`, verdict.kind);
      bump("all", verdict.kind);
    }
    const lines = [
      `Replayed ${rows.length} recordings (${files} published in ${dir}, ${rows.length - files} derived) in ${groups.length} conversations, ${rows.reduce((s, r) => s + r.requests, 0)} requests; published entries not replayable: ${skipped.length}.`,
      "                                   full  events-only  unusable",
      ...[...table]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(
          ([key, r]) =>
            `${key.padEnd(34)} ${String(r.full).padStart(4)} ${String(r.events).padStart(12)} ${String(r.unusable).padStart(9)}`,
        ),
      "Events only / unusable:",
      ...rows.filter((r) => r.verdict.kind !== "full").map((r) => `  ${r.rec.id}: ${r.verdict.why}`),
      "Not replayable (SOURCES.json skip):",
      ...skipped.map((s) => `  ${s.id}: ${s.reason}`),
    ];
    console.log(lines.join("\n"));
    expect(table.get("all")!.full).toBeGreaterThan(0);
  });
});

// A file split into responses keeps every payload.
it("splits multi-response recordings without losing payloads", () => {
  for (const rec of recordings)
    for (const response of rec.responses.slice(1))
      expect(typeOf(response[0]!), rec.id).toBe(
        rec.api === "anthropic-messages" ? "message_start" : "response.created",
      );
});
