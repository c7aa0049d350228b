// Approval previews read files the way the host sees them: with a host view of text files (an
// editor's unsaved buffers over ACP), an Edit's and a Write's diffs are against the buffer, not
// the disk; without one, against the disk.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ok } from "neverthrow";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent, type TextFileAccess, type ToolApprovalRequest } from "../../src/index.js";
import { faux, type Sandbox, sandbox } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

async function previews(textFiles: TextFileAccess | undefined) {
  box = sandbox();
  writeFileSync(join(box.workspace, "plan.md"), "on disk\n");
  writeFileSync(join(box.workspace, "notes.md"), "on disk\n");
  const f = faux({
    turns: [
      // Read first: an Edit or Write of a file the model has not read fails before anyone is asked.
      { toolCalls: [{ name: "Read", arguments: { path: "plan.md" } }] },
      { toolCalls: [{ name: "Read", arguments: { path: "notes.md" } }] },
      {
        toolCalls: [
          { name: "Edit", arguments: { path: "plan.md", old_string: "in the buffer", new_string: "edited" } },
        ],
      },
      { toolCalls: [{ name: "Write", arguments: { path: "notes.md", content: "new\n" } }] },
      { text: "ok" },
    ],
  });
  const asked: ToolApprovalRequest[] = [];
  const created = await createCodingAgent({
    cwd: box.workspace,
    home: box.home,
    model: f.model,
    streamOptions: f.streamOptions,
    ...(textFiles ? { textFiles } : {}),
    ui: {
      approve: async (request) => {
        asked.push(request);
        return { decision: "deny" };
      },
    },
  });
  if (created.isErr()) throw new Error(created.error.message);
  await created.value.prompt("go");
  await created.value.close();
  return {
    edit: asked.find((r) => r.toolName === "Edit")?.preview,
    write: asked.find((r) => r.toolName === "Write")?.preview,
  };
}

describe("approval previews", () => {
  it("diff against the host's view of a file when it has one", async () => {
    const read: string[] = [];
    const { edit, write } = await previews({
      read: async (path) => {
        read.push(path);
        return ok("in the buffer\n");
      },
    });
    expect(edit).toMatchObject({ format: "diff", path: "plan.md" });
    expect(edit!.text).toContain("-in the buffer");
    expect(edit!.text).toContain("+edited");
    expect(write).toMatchObject({ format: "diff", path: "notes.md" });
    expect(write!.text).toContain("-in the buffer");
    expect(write!.text).toContain("+new");
    expect(read).toEqual(
      expect.arrayContaining([join(box.workspace, "plan.md"), join(box.workspace, "notes.md")]),
    );
  });

  it("diff against the disk without one (an edit that only fits the buffer does not apply)", async () => {
    const { edit, write } = await previews(undefined);
    expect(edit).toMatchObject({ format: "text" });
    expect(edit!.text).toContain("does not apply");
    expect(write!.text).toContain("-on disk");
  });
});
