// The pure parts of `keel acp`: how a Keel tool call looks in an editor, the approval choices
// (the terminal's, one "always" per offered rule), and an ACP prompt as a Keel prompt.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolApprovalRequest } from "@keel/coding-agent";
import { err, ok } from "neverthrow";
import { describe, expect, it } from "vitest";
import { answerOf, approvalChoices, approvalTitle } from "../src/acp/permissions.js";
import { promptInput } from "../src/acp/prompt.js";
import {
  beforeReader,
  callContent,
  replacedFile,
  resultContent,
  toolKind,
  toolLocations,
  toolTitle,
} from "../src/acp/tool-calls.js";

const request = (patch: Partial<ToolApprovalRequest> = {}): ToolApprovalRequest => ({
  kind: "tool",
  toolName: "Bash",
  toolCallId: "t1",
  args: { command: "npm test" },
  reason: "runs npm test",
  alwaysRules: ["Bash(npm test:*)", "Bash(npm:*)"],
  alwaysSavesTo: ".keel/config.local.json",
  ...patch,
});

describe("tool calls in the editor", () => {
  it("takes the kind from the declared access and the title from the summary; an undeclared tool is other", () => {
    expect(toolKind({ toolName: "Bash", args: {}, access: "exec" })).toBe("execute");
    expect(toolKind({ toolName: "Bash", args: {} })).toBe("other");
    expect(toolKind({ toolName: "mcp__db__query", args: {}, access: "read" })).toBe("read");
    expect(toolKind({ toolName: "Unknown", args: {} })).toBe("other");
    expect(toolTitle({ toolName: "Bash", args: { command: "npm   test\n--watch" } })).toBe(
      "Bash npm test --watch",
    );
    expect(toolTitle({ toolName: "Bash", args: { command: "x" }, summary: "Run the tests" })).toBe(
      "Run the tests",
    );
  });

  it("locates file calls, with the line a Read starts at", () => {
    expect(toolLocations({ toolName: "Read", args: { path: "src/a.ts", offset: 10 } }, "/w")).toEqual([
      { path: "/w/src/a.ts", line: 10 },
    ]);
    expect(toolLocations({ toolName: "Bash", args: { command: "ls" } }, "/w")).toEqual([]);
  });

  it("shows each edit as a diff and keeps it when the call ends; a failure says why", () => {
    const facts = {
      toolName: "Edit",
      access: "write",
      args: {
        path: "/w/a.ts",
        edits: [
          { old_string: "a", new_string: "b" },
          { old_string: "c", new_string: "d" },
        ],
      },
    };
    const started = callContent(facts, "/w");
    expect(started).toEqual([
      { type: "diff", path: "/w/a.ts", oldText: "a", newText: "b" },
      { type: "diff", path: "/w/a.ts", oldText: "c", newText: "d" },
    ]);
    expect(resultContent(facts, started, { text: "Edited a.ts", isError: false })).toBe(started);
    expect(resultContent(facts, started, { text: "old_string was not found", isError: true })).toEqual([
      { type: "content", content: { type: "text", text: "old_string was not found" } },
    ]);
    // A new file has no "before".
    expect(
      callContent(
        { toolName: "Write", access: "write", args: { path: "/nonexistent/n.txt", content: "x" } },
        "/w",
      ),
    ).toEqual([{ type: "diff", path: "/nonexistent/n.txt", oldText: null, newText: "x" }]);
  });

  it('reads a replaced file\'s "before" from the editor when it reads files, else from the disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-acp-before-"));
    try {
      const file = join(dir, "a.txt");
      writeFileSync(file, "on disk\n");
      const write = { toolName: "Write", access: "write", args: { path: file, content: "x" } };
      expect(replacedFile(write, dir)).toBe(file);
      expect(replacedFile({ ...write, access: "read" }, dir)).toBeUndefined();
      expect(await beforeReader()(file)).toBe("on disk\n");
      expect(await beforeReader(async () => ok("in the buffer\n"))(file)).toBe("in the buffer\n");
      expect(await beforeReader(async () => err({ type: "text_file", message: "gone" }))(file)).toBeNull();
      expect(await beforeReader(async () => ok("never asked"))(join(dir, "missing.txt"))).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("approvals in the editor", () => {
  it("offers the terminal's choices, one always per rule, and asks for words only where it can", () => {
    const plain = approvalChoices(request(), false);
    expect(plain.map((c) => [c.option.optionId, c.option.kind])).toEqual([
      ["once", "allow_once"],
      ["always:0", "allow_always"],
      ["always:1", "allow_always"],
      ["deny", "reject_once"],
    ]);
    expect(plain[2]!.option.name).toBe("Always allow Bash(npm:*) (saved in .keel/config.local.json)");
    expect(answerOf({ outcome: "selected", optionId: "always:1" }, plain)).toEqual({
      decision: "allow_always",
      rule: "Bash(npm:*)",
    });
    expect(answerOf({ outcome: "cancelled" }, plain)).toEqual({ decision: "deny", stopRun: true });
    const withWords = approvalChoices(request({ offersExactCall: true }), true);
    expect(withWords.map((c) => c.option.optionId)).toEqual([
      "once",
      "exact",
      "always:0",
      "always:1",
      "deny",
      "tell",
    ]);
    expect(answerOf({ outcome: "selected", optionId: "tell" }, withWords)).toBe("tell");
  });

  it("names the child agent that asks", () => {
    expect(approvalTitle(request({ agent: { id: "a1", title: "explore" } }), "Bash npm test")).toBe(
      "[explore] Bash npm test",
    );
  });
});

describe("prompts from the editor", () => {
  it("keeps text and images, turns file links into mentions and embeds context", () => {
    const input = promptInput([
      { type: "text", text: "Look at" },
      { type: "resource_link", uri: "file:///w/src/a.ts", name: "a.ts" },
      { type: "resource", resource: { uri: "file:///w/notes.md", text: "remember this" } },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ]);
    expect(input.text).toBe(
      'Look at\n@/w/src/a.ts\n<context uri="file:///w/notes.md">\nremember this\n</context>',
    );
    expect(input.images).toEqual([{ type: "image", data: "AAAA", mimeType: "image/png" }]);
  });
});
