// Every picker of the TUI narrows as the user types, in a real terminal (tmux): the resume picker
// and the /tree picker show the filter, keep only what matches (case-insensitive, words or letters
// in order), Backspace edits the filter, arrows move among the matches, Esc clears the filter
// before it closes, and Enter takes the match.
import type { MockServer } from "@keel/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { MODEL, runKeel } from "./helpers.js";
import { terminalSuite } from "./tmux.js";

const suite = terminalSuite();
let server: MockServer;

describe("keel TUI pickers filter by typing", () => {
  beforeAll(() => {
    server = suite.server;
  });

  it("the resume picker: typing narrows it, Backspace and Esc edit the filter, Enter resumes the match", async () => {
    const ws = suite.fresh();
    const prompts = ["Alpha release checklist", "Bravo parser rewrite", "Charlie login bug"];
    server.setScenario({ turns: prompts.map((p) => ({ text: `answer to ${p}` })) });
    for (const p of prompts) {
      const ran = await runKeel(["-p", "--model", MODEL, "--cwd", ws.repo, p], { server, ws });
      expect(ran.code).toBe(0);
    }
    const t = suite.start({ args: "-r", scenario: { turns: [] } });
    let now = await t.waitFor("Resume which session?");
    for (const p of prompts) expect(now).toContain(p);
    expect(now).toContain("type to filter");

    // Case-insensitive words: only Bravo is left, and it is selected.
    t.keys("-l", "PARSER");
    now = await t.waitFor("Filter: PARSER  (1 of 3)");
    expect(now).toContain("❯ Bravo parser rewrite");
    expect(now).not.toContain("Alpha release checklist");
    expect(now).not.toContain("Charlie login bug");

    // Backspace edits the filter; nothing matching says so.
    t.keys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace");
    await t.waitGone("Filter:");
    now = await t.waitFor("Charlie login bug");
    expect(now).toContain("Alpha release checklist");
    t.keys("-l", "zzz");
    await t.waitFor("Nothing matches.");

    // Esc clears the filter (the picker stays), then letters in order find Charlie.
    t.keys("Escape");
    await t.waitGone("Filter:");
    now = await t.waitFor("Resume which session?");
    expect(now).toContain("Alpha release checklist");
    t.keys("-l", "chlb");
    now = await t.waitFor("Filter: chlb  (1 of 3)");
    expect(now).toContain("❯ Charlie login bug");
    t.keys("Enter");
    await t.waitFor("answer to Charlie login bug");
    await t.waitFor(/ready ·/);
    expect(t.screen()).not.toContain("answer to Alpha");
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 90_000);

  it("the /tree picker: the filter shows, arrows move among the matches, Esc clears then closes", async () => {
    suite.fresh();
    const t = suite.start({
      scenario: { turns: [{ text: "first reply about apples" }, { text: "second reply about pears" }] },
    });
    await t.waitFor(/ready ·/);
    await t.type("tell me about apples", "Enter");
    await t.waitFor("first reply about apples");
    await t.waitFor(/ready ·/);
    await t.type("and pears?", "Enter");
    await t.waitFor("second reply about pears");
    await t.waitFor(/ready ·/);
    await t.type("/tree", "Enter");
    let now = await t.waitFor("Continue from which entry?");
    expect(now).toContain("user: tell me about apples");
    t.keys("-l", "apples");
    now = await t.waitFor("Filter: apples  (2 of 4)");
    expect(now).not.toContain("user: and pears?");
    expect(now).toMatch(/❯ . user: tell me about apples/);
    t.keys("Down");
    now = await t.waitFor(/❯ . assistant: first reply about apples/);
    t.keys("Down");
    await t.waitFor(/❯ . user: tell me about apples/);
    t.keys("Escape");
    await t.waitGone("Filter:");
    now = await t.waitFor("user: and pears?");
    t.keys("Escape");
    await t.waitGone("Continue from which entry?");
    await t.type("/quit", "Enter");
    expect(await t.exitCode()).toBe("0");
  }, 90_000);
});
