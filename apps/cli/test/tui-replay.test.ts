// A resumed session in the TUI: what the user typed comes back as their prompts; the compaction's
// summary and a notice an extension left for the model come back as the dim lines they are.
import { type KernelFixture, kernelFixture, resumedSession } from "@keel/coding-agent/testing";
import { afterEach, describe, expect, it } from "vitest";
import { Transcript } from "../src/tui/transcript.js";

let fixture: KernelFixture;
afterEach(() => fixture?.cleanup());

describe("the TUI's replay of a resumed session", () => {
  it("shows prompts as prompts, the summary and notices as dim lines", async () => {
    fixture = kernelFixture();
    const { agent: resumed, answers } = await resumedSession(fixture);
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
      answers[1]!.trim(),
      answers[2],
    ]);
  });
});
