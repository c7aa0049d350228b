// A picker narrowed by typing (pure): what matches and in which order, and the keys of a picker
// with a filter — letters narrow it and select the best match, Backspace and Ctrl+W edit the
// filter, arrows move among what it shows, Enter answers the option's own index, Esc clears
// the filter before it cancels.
import { describe, expect, it } from "vitest";
import { type DialogStep, dialogKey } from "../src/tui/dialog-keys.js";
import { filterOptions } from "../src/tui/pick-filter.js";
import type { Dialog, PickOption } from "../src/tui/store.js";

const SESSIONS: PickOption[] = [
  { label: "Fix the login bug", detail: "2026-11-30 · 12 messages · 3f2a9c1d" },
  { label: "Write release notes", detail: "2026-12-01 · 4 messages · 77b0e412" },
  { label: "Refactor the Parser", detail: "2026-12-02 · 30 messages · a1c3d5e7" },
  { label: "Plan the login page", detail: "2026-12-02 · 2 messages · 0d9e8f7a" },
];

function picker(
  answers: (number | undefined)[],
  selected = 0,
  filter = "",
): Extract<Dialog, { kind: "select" }> {
  return {
    id: 1,
    kind: "select",
    title: "Resume which session?",
    options: SESSIONS,
    selected,
    filter,
    answer: (i) => answers.push(i),
  };
}

function moved(step: DialogStep): Extract<Dialog, { kind: "select" }> {
  if (step.type !== "move" || step.dialog.kind !== "select")
    throw new Error(`expected a move, got ${step.type}`);
  return step.dialog;
}

describe("filterOptions", () => {
  it("keeps everything for an empty filter, in order", () => {
    expect(filterOptions(SESSIONS, "")).toEqual([0, 1, 2, 3]);
    expect(filterOptions(SESSIONS, "   ")).toEqual([0, 1, 2, 3]);
  });

  it("matches words anywhere in label or detail, ignoring case; fuzzy label matches come after", () => {
    expect(filterOptions(SESSIONS, "LOGIN")).toEqual([0, 3]);
    expect(filterOptions(SESSIONS, "login plan")).toEqual([3]);
    // The id in the detail finds its session.
    expect(filterOptions(SESSIONS, "77b0")).toEqual([1]);
    // "rfp": R-e-F-actor the P-arser, in order; nothing holds it as a word.
    expect(filterOptions(SESSIONS, "rfp")).toEqual([2]);
    // "parser" is a word of 2 and, letter by letter, of nothing else.
    expect(filterOptions(SESSIONS, "parser")).toEqual([2]);
    expect(filterOptions(SESSIONS, "zzz")).toEqual([]);
  });
});

describe("a picker's keys", () => {
  it("typing narrows and selects the best match; Enter answers that option's own index", () => {
    const answers: (number | undefined)[] = [];
    let d = moved(dialogKey(picker(answers), "log", {}));
    expect(d.filter).toBe("log");
    expect(d.selected).toBe(0);
    d = moved(dialogKey(d, "in p", {}));
    expect(d.filter).toBe("login p");
    expect(d.selected).toBe(3);
    const enter = dialogKey(d, "\r", { return: true });
    if (enter.type !== "answer") throw new Error("expected an answer");
    enter.resolve();
    expect(answers).toEqual([3]);
  });

  it("arrows move among the matches only, wrapping", () => {
    let d = moved(dialogKey(picker([]), "login", {}));
    expect(d.selected).toBe(0);
    d = moved(dialogKey(d, "", { downArrow: true }));
    expect(d.selected).toBe(3);
    d = moved(dialogKey(d, "", { downArrow: true }));
    expect(d.selected).toBe(0);
    d = moved(dialogKey(d, "", { upArrow: true }));
    expect(d.selected).toBe(3);
  });

  it("Backspace and Ctrl+W edit the filter; Esc clears it, then cancels", () => {
    const answers: (number | undefined)[] = [];
    let d = moved(dialogKey(picker(answers, 1), "plan the", {}));
    expect(d.selected).toBe(3);
    d = moved(dialogKey(d, "", { backspace: true }));
    expect(d.filter).toBe("plan th");
    d = moved(dialogKey(d, "w", { ctrl: true }));
    expect(d.filter).toBe("plan ");
    d = moved(dialogKey(d, "", { escape: true }));
    expect(d.filter).toBe("");
    // Cleared, the selection stays on what the filter had chosen.
    expect(d.selected).toBe(3);
    expect(answers).toEqual([]);
    const esc = dialogKey(d, "", { escape: true });
    if (esc.type !== "answer") throw new Error("expected an answer");
    esc.resolve();
    expect(answers).toEqual([undefined]);
  });

  it("with nothing matching, Enter does nothing", () => {
    const answers: (number | undefined)[] = [];
    const d = moved(dialogKey(picker(answers), "zzz", {}));
    expect(dialogKey(d, "\r", { return: true }).type).toBe("none");
    expect(answers).toEqual([]);
  });
});
