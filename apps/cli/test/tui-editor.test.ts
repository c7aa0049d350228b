// Prompt editing, history, completion and key bindings, as pure functions.

import { parseCommandLine } from "@keel/coding-agent";
import { describe, expect, it } from "vitest";
import { completeCommand, matchingCommands } from "../src/tui/completion.js";
import {
  backspace,
  browse,
  continuesLine,
  deleteToLineStart,
  deleteWordBefore,
  editorWith,
  emptyHistory,
  insert,
  left,
  lineStart,
  remember,
  replaceTrailingBackslash,
  verticalMove,
} from "../src/tui/editor.js";
import { keyAction, keyActions } from "../src/tui/keys.js";
import { completeMention, mentionAt, rankPaths } from "../src/tui/mention.js";
import { pastedImagePath } from "../src/tui/paste.js";
import { MAX_ROWS, statusRows } from "../src/tui/status-text.js";

describe("editor", () => {
  it("inserts at the cursor and deletes before it, surrogate pairs as one", () => {
    let s = insert(editorWith("ac"), "");
    s = insert(left(s), "b");
    expect(s).toEqual({ text: "abc", cursor: 2 });
    expect(backspace(editorWith("x😀"))).toEqual({ text: "x", cursor: 1 });
    expect(insert(editorWith(""), "a\r\nb\rc").text).toBe("a\nb\nc");
  });

  it("deletes a word and to the line start, joining lines at a line start", () => {
    expect(deleteWordBefore(editorWith("run the  tests  ")).text).toBe("run the  ");
    expect(deleteToLineStart(editorWith("one\ntwo")).text).toBe("one\n");
    expect(deleteToLineStart(editorWith("one\n")).text).toBe("one");
  });

  it("moves between lines keeping the column, and reports the edges", () => {
    const s = { text: "abcdef\nxy\nlonger", cursor: 5 };
    const down = verticalMove(s, 1)!;
    expect(down.cursor).toBe(9); // end of "xy"
    expect(verticalMove(s, -1)).toBeUndefined();
    expect(verticalMove(editorWith("a\nb"), 1)).toBeUndefined();
    expect(lineStart(editorWith("a\nbc")).cursor).toBe(2);
  });

  it("turns a trailing backslash into a newline", () => {
    const s = editorWith("first\\");
    expect(continuesLine(s)).toBe(true);
    expect(replaceTrailingBackslash(s)).toEqual({ text: "first\n", cursor: 6 });
    expect(continuesLine(editorWith("a \\ b"))).toBe(false);
  });

  it("browses history and brings the draft back", () => {
    let h = remember(remember(remember(emptyHistory, "one"), "two"), "two");
    expect(h.entries).toEqual(["one", "two"]);
    const up = browse(h, "draft", -1)!;
    expect(up.text).toBe("two");
    h = up.history;
    const up2 = browse(h, up.text, -1)!;
    expect(up2.text).toBe("one");
    expect(browse(up2.history, "one", -1)).toBeUndefined();
    const down = browse(browse(up2.history, "one", 1)!.history, "two", 1)!;
    expect(down.text).toBe("draft");
  });
});

describe("slash completion", () => {
  const commands = [
    { name: "rewind", description: "" },
    { name: "resume", description: "" },
    { name: "help", description: "" },
  ];

  it("matches a prefix only before the first space", () => {
    expect(matchingCommands("/re", commands).map((c) => c.name)).toEqual(["rewind", "resume"]);
    expect(matchingCommands("/rewind 2", commands)).toEqual([]);
    expect(matchingCommands("re", commands)).toEqual([]);
  });

  it("completes a unique match with a space and an ambiguous one to the chosen", () => {
    expect(completeCommand("/h", commands)).toBe("/help ");
    expect(completeCommand("/re", commands, 1)).toBe("/resume ");
    expect(completeCommand("/x", commands)).toBeUndefined();
  });

  it("parses command lines", () => {
    expect(parseCommandLine("/compact keep the API notes")).toEqual({
      name: "compact",
      args: "keep the API notes",
    });
    expect(parseCommandLine("/skill:review")).toEqual({ name: "skill:review", args: "" });
    expect(parseCommandLine("not /a command")).toBeUndefined();
  });
});

describe("key bindings", () => {
  it("maps Enter, Alt+Enter, Shift+Enter and Ctrl+J", () => {
    expect(keyAction("\r", { return: true })).toEqual({ type: "submit" });
    expect(keyAction("\r", { return: true, meta: true })).toEqual({ type: "followUp" });
    expect(keyAction("\r", { return: true, shift: true })).toEqual({ type: "newline" });
    expect(keyAction("\n", {})).toEqual({ type: "newline" });
  });

  it("maps control keys and treats DEL as backspace", () => {
    expect(keyAction("c", { ctrl: true })).toEqual({ type: "interrupt" });
    expect(keyAction("o", { ctrl: true })).toEqual({ type: "toggleOutput" });
    expect(keyAction("", { delete: true })).toEqual({ type: "backspace" });
    expect(keyAction("", { escape: true })).toEqual({ type: "escape" });
  });

  it("a burst of typed text and Enter (as tmux sends it) is text, then a submit", () => {
    expect(keyActions("say hello\r", {})).toEqual([
      { type: "insert", text: "say hello" },
      { type: "submit" },
    ]);
    expect(keyActions("one\r\ntwo", {})).toEqual([
      { type: "insert", text: "one" },
      { type: "submit" },
      { type: "insert", text: "two" },
    ]);
    expect(keyAction("", { tab: true, shift: true })).toEqual({ type: "cycleMode" });
  });

  it("recognises a pasted image path: quoted, with escaped spaces, or a file URL", () => {
    expect(pastedImagePath("/tmp/shot.png")).toBe("/tmp/shot.png");
    expect(pastedImagePath("'/tmp/my shot.PNG' ")).toBe("/tmp/my shot.PNG");
    expect(pastedImagePath("/tmp/my\\ shot.jpg")).toBe("/tmp/my shot.jpg");
    expect(pastedImagePath("file:///tmp/a%20b.webp")).toBe("/tmp/a b.webp");
    expect(pastedImagePath("see /tmp/shot.png\nand more")).toBeUndefined();
    expect(pastedImagePath("notes.txt")).toBeUndefined();
  });

  it("splits a burst of control keys into separate keys", () => {
    expect(keyActions("\x15\x15ab\x7f", {})).toEqual([
      { type: "deleteToLineStart" },
      { type: "deleteToLineStart" },
      { type: "insert", text: "ab" },
      { type: "backspace" },
    ]);
    expect(keyActions("plain text", {})).toEqual([{ type: "insert", text: "plain text" }]);
  });
});

describe("@file mentions", () => {
  it("finds the mention at the cursor, ranks paths fuzzily and completes", () => {
    const editor = editorWith("look at @sr/zt");
    const token = mentionAt(editor)!;
    expect(token).toEqual({ start: 8, query: "sr/zt" });
    expect(mentionAt(editorWith("mail me@example.com"))).toBeUndefined();
    const paths = ["src/", "src/zeta.ts", "src/alpha.ts", "docs/zeta.md", "package.json"];
    expect(rankPaths(paths, "zeta")).toEqual(["src/zeta.ts", "docs/zeta.md"]);
    expect(rankPaths(paths, "sr/zt")).toEqual(["src/zeta.ts"]);
    expect(completeMention(editor, token, "src/zeta.ts")).toEqual({
      text: "look at @src/zeta.ts ",
      cursor: 21,
    });
    // A folder keeps the menu open (no space), a path with spaces is quoted.
    expect(completeMention(editorWith("@s"), { start: 0, query: "s" }, "src/").text).toBe("@src/");
    expect(completeMention(editorWith("@m"), { start: 0, query: "m" }, "my notes.md").text).toBe(
      '@"my notes.md" ',
    );
  });
});

describe("status line", () => {
  const rows = (width: number, right: string[], left = "ready · /help") =>
    statusRows(
      [{ text: left }],
      right.map((t) => ({ text: t })),
      width,
    ).map((row) => row.map((s) => s.text).join(""));
  const RIGHT = [
    "default mode",
    "anthropic/claude-sonnet-4-6",
    "thinking medium",
    "↑1.2k ↓300",
    "$0.0123",
    "ctx 4%",
    "runs: 1",
  ];

  it("is one row when everything fits, the facts right-aligned", () => {
    const [row, ...more] = rows(160, RIGHT);
    expect(more).toEqual([]);
    expect(row).toMatch(/^ready · \/help {2,}default mode · .* · runs: 1$/);
    expect(row!.length).toBe(159);
  });

  it("wraps what does not fit onto more rows, whole items in order, no row wider than the terminal", () => {
    for (const width of [100, 80, 60, 40]) {
      const lines = rows(width, RIGHT);
      expect(lines.length).toBeGreaterThan(1);
      expect(lines.length).toBeLessThanOrEqual(MAX_ROWS);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(width - 1);
      expect(lines[0]!.startsWith("ready · /help")).toBe(true);
      const all = lines.join(" · ");
      // Every fact is there once, whole, and in its order.
      const at = RIGHT.map((item) => all.indexOf(item));
      if (width >= 60) {
        expect(at.every((i) => i >= 0)).toBe(true);
        expect([...at].sort((a, b) => a - b)).toEqual(at);
      }
    }
    // At 80 columns: the mode, model and thinking beside the activity; tokens, cost, context and
    // the extension's item on the second row.
    const at80 = rows(80, RIGHT);
    expect(at80).toHaveLength(2);
    expect(at80[0]).toMatch(
      /^ready · \/help {2,}default mode · anthropic\/claude-sonnet-4-6 · thinking medium$/,
    );
    expect(at80[1]).toMatch(/^ +↑1\.2k ↓300 · \$0\.0123 · ctx 4% · runs: 1$/);
  });

  it("keeps to three rows, the last saying more did not fit; a long hint takes the first row alone", () => {
    const many = Array.from({ length: 12 }, (_, i) => `extension item ${i}`);
    const lines = rows(40, many);
    expect(lines).toHaveLength(MAX_ROWS);
    expect(lines.at(-1)!.endsWith("extension item 4 …")).toBe(true);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(39);
    const hinted = rows(30, ["default mode", "m"], "Press Ctrl+C again to exit, or keep typing");
    expect(hinted[0]).toBe("Press Ctrl+C again to exit, …");
    expect(hinted[1]!.trim()).toBe("default mode · m");
  });
});
