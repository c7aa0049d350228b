// A resumed session's history says what each message is: what was said, the compaction's summary,
// and the notices Keel or an extension left for the model, so no front end replays those as prompts.
import { afterEach, describe, expect, it } from "vitest";
import { fauxProvider, hosted, type KernelFixture, kernelFixture, startKernel } from "../../src/testing.js";

let fixture: KernelFixture;
afterEach(() => fixture?.cleanup());

const LONG = ` ${"Some detail worth keeping in mind for later. ".repeat(12)}`;

describe("history()", () => {
  it("sets the summary and the notices apart from the conversation, also after a resume", async () => {
    fixture = kernelFixture();
    const faux = fauxProvider({
      turns: [
        { text: `First answer.${LONG}` },
        { text: `Second answer.${LONG}` },
        { text: "## Goal\nKeep going.\n## Next steps\n- more" },
        { text: "Third answer." },
      ],
    });
    let runs = 0;
    // An extension that leaves the model a notice at its second run (a background job finished).
    const notifier = hosted({
      id: "jobs",
      hooks: {
        runStart: (_event: unknown, runtime: { persistNotice(text: string): void }) => {
          if (++runs === 2) runtime.persistNotice("Background job finished: 3 tests failed.");
        },
      },
    });
    const options = {
      cwd: fixture.workspace,
      home: fixture.home,
      model: faux.model,
      streamOptions: faux.streamOptions,
      extensions: [notifier],
    };
    const agent = await startKernel(options);
    await agent.prompt("first question");
    await agent.prompt("second question");
    (await agent.compact())._unsafeUnwrap();
    await agent.prompt("third question");
    const file = agent.sessionFile!;
    await agent.close();

    const resumed = await startKernel({ ...options, session: { mode: "resume", session: file } });
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
