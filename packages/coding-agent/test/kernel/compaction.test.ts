// Compaction under load: a 200-turn session on a small window never sends a conversation request
// above the compaction limit (measured at the provider as the mock counts tokens), its summary
// requests stay within the window, and it keeps working.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compactionLimit, DEFAULT_COMPACTION } from "../../src/compaction/policy.js";
import { continuationRequestText, SUMMARY_SYSTEM_PROMPT } from "../../src/compaction/summary.js";
import { createCodingAgent } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

function systemText(body: Record<string, unknown>): string {
  const system = body.system as { text: string }[] | undefined;
  return system?.map((s) => s.text).join("") ?? "";
}

function lastUserText(body: Record<string, unknown>): string {
  const last = (body.messages as { content: string | { text?: string }[] }[]).at(-1)!.content;
  return typeof last === "string" ? last : last.map((c) => c.text ?? "").join("");
}

/** A summary request: asked at the end of the conversation, or the summarizer's own request. */
const asksForSummary = (body: Record<string, unknown>) =>
  systemText(body).startsWith(SUMMARY_SYSTEM_PROMPT.slice(0, 40)) ||
  lastUserText(body).startsWith(continuationRequestText(false).slice(0, 40));

describe("compaction", () => {
  it("keeps a 200-turn session under the limit on a small window", async () => {
    box = sandbox();
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}: ${"lorem ipsum ".repeat(3)}`);
    writeFileSync(join(box.workspace, "notes.txt"), `${lines.join("\n")}\n`);
    let work = 0;
    const f = faux(
      {
        turns: [],
        fallback: (request) => {
          if (asksForSummary(request.body)) {
            return {
              text: `## Goal\nRead notes many times.\n## Progress\n### Done\n- ${work} reads\n## Next steps\n- keep reading`,
            };
          }
          work++;
          return work < 200
            ? { toolCalls: [{ name: "Read", arguments: { path: "notes.txt" } }] }
            : { text: "Finished reading." };
        },
      },
      { contextWindow: 8000, maxOutput: 1000 },
    );
    const created = await createCodingAgent({
      cwd: box.workspace,
      home: box.home,
      model: f.model,
      streamOptions: f.streamOptions,
      permissionMode: "default",
    });
    if (created.isErr()) throw new Error(created.error.message);
    const agent = created.value;
    const compactions: { reason: string; ok: boolean; before: number; after: number }[] = [];
    agent.subscribe((e) => {
      if (e.type === "compaction_end")
        compactions.push({ reason: e.reason, ok: e.ok, before: e.tokensBefore, after: e.tokensAfter });
    });
    const run = (await agent.prompt("Read notes.txt 199 times."))._unsafeUnwrap();
    await agent.close();

    expect(run.stopReason).toBe("stop");
    expect(run.text).toBe("Finished reading.");
    expect(work).toBe(200);
    const limit = compactionLimit(f.model, DEFAULT_COMPACTION);
    const size = (r: { raw: string }) => Math.ceil(r.raw.length / 4);
    // The conversation stays under the limit; a summary asked at its end (the conversation as
    // sent, then the ask) goes past it, within the window with room for the summary.
    const working = f.requests.filter((r) => !asksForSummary(r.body));
    const summaries = f.requests.filter((r) => asksForSummary(r.body));
    expect(Math.max(...working.map(size))).toBeLessThanOrEqual(limit);
    expect(summaries.length).toBeGreaterThanOrEqual(5);
    expect(summaries.some((r) => size(r) > limit)).toBe(true);
    expect(Math.max(...summaries.map(size))).toBeLessThanOrEqual(f.model.contextWindow - f.model.maxOutput);
    expect(compactions.length).toBeGreaterThanOrEqual(5);
    expect(compactions.every((c) => c.ok && c.reason === "threshold" && c.after < c.before)).toBe(true);
    // After each compaction the next working request starts from the summary.
    const last = working.at(-1)!.body.messages as { content: { text?: string }[] }[];
    expect(JSON.stringify(last[0])).toContain("compacted");
  }, 60_000);
});
