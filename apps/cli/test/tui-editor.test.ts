// Prompt editing, history, completion and key bindings, as pure functions.
import { describe, expect, it } from "vitest";
import { parseSlash } from "../src/slash-command.js";
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
    expect(parseSlash("/compact keep the API notes")).toEqual({
      name: "compact",
      args: "keep the API notes",
    });
    expect(parseSlash("/skill:review")).toEqual({ name: "skill:review", args: "" });
    expect(parseSlash("not /a command")).toBeUndefined();
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

  it("inserts a paste with its line breaks as text", () => {
    expect(keyAction("a\r\nb", {})).toEqual({ type: "insert", text: "a\nb" });
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
