// A resumed session's history says what each message is: what was said, the compaction's summary,
// and the notices Keel or an extension left for the model, so no front end replays those as prompts.
import { afterEach, describe, expect, it } from "vitest";
import { type KernelFixture, kernelFixture, resumedSession } from "../../src/testing.js";

let fixture: KernelFixture;
afterEach(() => fixture?.cleanup());

describe("history()", () => {
  it("sets the summary and the notices apart from the conversation, also after a resume", async () => {
    fixture = kernelFixture();
    const { agent: resumed } = await resumedSession(fixture);
    const history = resumed.history();
    await resumed.close();
    const shape = history.map((item) =>
      item.kind === "conversation"
        ? `${item.message.role}`
        : item.kind === "summary"
          ? `summary:${item.of}`
          : `notice:${item.source}`,
    );
    // The notice came with the second prompt, before its answer; the cut kept it and what followed.
    expect(shape).toEqual(["summary:compaction", "notice:jobs", "assistant", "user", "assistant"]);
    const summary = history[0]!;
    expect(summary.kind === "summary" && summary.text).toContain("## Goal\nKeep going.");
    const notice = history[1]!;
    expect(notice.kind === "notice" && notice.text).toContain("Background job finished: 3 tests failed.");
    // Same messages as the model's context, in the same order.
    expect(history.map((h) => h.message)).toEqual(resumed.messages());
  });
});
