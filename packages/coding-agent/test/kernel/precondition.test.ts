// A call bound to fail fails before anyone is asked: an Edit (or an overwriting Write) of a file
// the model never read gets its "Read it first" at once, with no approval dialog, and the model
// sees why; once the file is read, the same call is asked about as usual.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import {
  fauxProvider,
  type KernelFixture,
  kernelFixture,
  recordingUi,
  startKernel,
  toolResults,
} from "../../src/testing.js";

let fixture: KernelFixture;
afterEach(() => fixture?.cleanup());

describe("a tool's precondition", () => {
  it("an Edit of a file never read fails at once: no approval asked, the reason reaches the model", async () => {
    fixture = kernelFixture();
    const file = fixture.write("repo/notes.txt", "alpha\n");
    const faux = fauxProvider({
      turns: [
        {
          toolCalls: [
            { name: "Edit", arguments: { path: "notes.txt", old_string: "alpha", new_string: "beta" } },
          ],
        },
        { toolCalls: [{ name: "Write", arguments: { path: "notes.txt", content: "gamma\n" } }] },
        { text: "I will read it first." },
      ],
    });
    const ui = recordingUi({ interactive: true, approve: () => ({ decision: "allow_once" }) });
    const agent = await startKernel({ ...fixture.options(faux), permissionMode: "default", ui: ui.ui });
    const run = (await agent.prompt("change alpha to beta"))._unsafeUnwrap();
    await agent.close();
    expect(run.text).toBe("I will read it first.");
    expect(ui.approvals).toEqual([]);
    const edit = toolResults(faux.requests[1]).at(-1);
    expect(edit).toEqual({
      isError: true,
      text: "Cannot edit notes.txt: it exists but has not been read in this session. Read it first, then retry.",
    });
    const write = toolResults(faux.requests[2]).at(-1);
    expect(write).toEqual({
      isError: true,
      text: "Cannot overwrite notes.txt: it exists but has not been read in this session. Read it first, then retry.",
    });
    expect(readFileSync(file, "utf8")).toBe("alpha\n");
  });

  it("once the file is read, the same Edit is asked about and runs", async () => {
    fixture = kernelFixture();
    const file = fixture.write("repo/notes.txt", "alpha\n");
    const faux = fauxProvider({
      turns: [
        { toolCalls: [{ name: "Read", arguments: { path: "notes.txt" } }] },
        {
          toolCalls: [
            { name: "Edit", arguments: { path: "notes.txt", old_string: "alpha", new_string: "beta" } },
          ],
        },
        { text: "Done." },
      ],
    });
    const ui = recordingUi({ interactive: true, approve: () => ({ decision: "allow_once" }) });
    const agent = await startKernel({ ...fixture.options(faux), permissionMode: "default", ui: ui.ui });
    (await agent.prompt("change alpha to beta"))._unsafeUnwrap();
    await agent.close();
    expect(ui.approvals.map((a) => [a.toolName, a.summary])).toEqual([["Edit", "notes.txt"]]);
    expect(readFileSync(file, "utf8")).toBe("beta\n");
  });
});
