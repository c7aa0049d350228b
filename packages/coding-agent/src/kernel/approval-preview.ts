// What an approval dialog shows of a built-in call before it runs: the whole command for Bash,
// the unified diff an Edit or Write would make (against the file as it is now) with its path.
import { readFileSync, statSync } from "node:fs";
import { type EditParams, editsOf, unifiedDiff } from "../tools/edit.js";
import { applyEdits } from "../tools/edit-apply.js";
import { looksBinary } from "../tools/file-kind.js";
import { displayPath, resolvePath } from "../tools/shared.js";
import type { ApprovalPreview } from "./types.js";

/** Past this a file is not read for a preview (the dialog says so instead). */
const MAX_PREVIEW_FILE_BYTES = 2 * 1024 * 1024;

const stringArg = (args: Record<string, unknown>, key: string) =>
  typeof args[key] === "string" ? (args[key] as string) : undefined;

/** The file as text, "" when it does not exist, or why it cannot be shown. */
function currentText(path: string): { text: string; exists: boolean } | { problem: string } {
  try {
    const info = statSync(path);
    if (info.isDirectory()) return { problem: "it is a directory" };
    if (info.size > MAX_PREVIEW_FILE_BYTES)
      return { problem: `the file is ${(info.size / 1024 / 1024).toFixed(1)} MB, too large to preview` };
    const bytes = readFileSync(path);
    if (looksBinary(bytes)) return { problem: "it is a binary file" };
    return { text: new TextDecoder().decode(bytes).replace(/\r\n/g, "\n"), exists: true };
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return { text: "", exists: false };
    return { problem: `it cannot be read (${(e as Error).message})` };
  }
}

/** The preview of a built-in tool call, or undefined for tools with nothing better than their arguments. */
export function approvalPreview(tool: string, rawArgs: unknown, cwd: string): ApprovalPreview | undefined {
  if (typeof rawArgs !== "object" || rawArgs === null) return undefined;
  const args = rawArgs as Record<string, unknown>;
  if (tool === "Bash") {
    const command = stringArg(args, "command");
    return command === undefined ? undefined : { format: "command", text: command };
  }
  if (tool !== "Edit" && tool !== "Write") return undefined;
  const given = stringArg(args, "path") ?? stringArg(args, "file_path");
  if (given === undefined) return undefined;
  const path = resolvePath(cwd, given);
  const shown = displayPath(cwd, path);
  const current = currentText(path);
  if ("problem" in current) return { format: "text", text: `No diff: ${current.problem}.`, path: shown };
  if (tool === "Write") {
    const content = stringArg(args, "content");
    if (content === undefined) return undefined;
    const { diff } = unifiedDiff(shown, current.text, content.replace(/\r\n/g, "\n"));
    const header = current.exists ? "" : `(new file, ${content.split("\n").length} lines)\n`;
    return { format: "diff", text: header + diff, path: shown };
  }
  const edits = editsOf(args as EditParams);
  if (typeof edits === "string") return { format: "text", text: edits, path: shown };
  if (!current.exists)
    return { format: "text", text: `${shown} does not exist; Edit will fail.`, path: shown };
  const lf = (t: string) => t.replace(/\r\n/g, "\n");
  const applied = applyEdits(
    current.text,
    edits.map((e) => ({ ...e, old_string: lf(e.old_string), new_string: lf(e.new_string) })),
  );
  if (applied.isErr())
    return {
      format: "text",
      text: `This edit does not apply to ${shown} as it is now (Edit will say why and change nothing).`,
      path: shown,
    };
  return { format: "diff", text: unifiedDiff(shown, current.text, applied.value.text).diff, path: shown };
}
