// A resumed session in the TUI: what the user typed comes back as their prompts; the compaction's
// summary and a notice an extension left for the model come back as the dim lines they are.
import {
  fauxProvider,
  hosted,
  type KernelFixture,
  kernelFixture,
  startKernel,
} from "@keel/coding-agent/testing";
import { afterEach, describe, expect, it } from "vitest";
import { Transcript } from "../src/tui/transcript.js";

let fixture: KernelFixture;
afterEach(() => fixture?.cleanup());

const LONG = ` ${"Some detail worth keeping in mind for later. ".repeat(12)}`;

describe("the TUI's replay of a resumed session", () => {
  it("shows prompts as prompts, the summary and notices as dim lines", async () => {
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
    const t = new Transcript();
    t.replay(resumed.history());
    await resumed.close();
    const users = t.done.flatMap((i) => (i.kind === "user" ? [i.text] : []));
    expect(users).toEqual(["third question"]);
    const dim = t.done.flatMap((i) => (i.kind === "notice" && i.level === "dim" ? [i.text] : []));
    expect(dim).toHaveLength(2);
    expect(dim[0]).toMatch(
      /^Summary of the earlier conversation \(compacted; \d+ lines the model reads instead of it\)\.$/,
    );
    expect(dim[1]).toBe('<notice from="jobs"> (+2 lines)');
    expect(t.done.flatMap((i) => (i.kind === "text" ? [i.text] : []))).toEqual([
      `Second answer.${LONG}`.trim(),
      "Third answer.",
    ]);
  });
});
