// Edit: exact-string replacements in a file the model has Read, applied in memory all or
// nothing, written back atomically with the file's own line endings and BOM.

import type { ToolPreview, ToolPreviewContext } from "@keel/extension-sdk";
import { type Static, Type } from "@sinclair/typebox";
import { structuredPatch } from "diff";
import { applyEdits, type Candidate, type EditFailure, type EditSpec } from "./edit-apply.js";
import { type ChangeToolOptions, type CurrentFile, currentFile } from "./file-current.js";
import { looksBinary } from "./file-kind.js";
import { stampOf } from "./file-tracker.js";
import { type BuiltinTool, displayPath, errorResult, resolvePath, textResult } from "./shared.js";
import { writeTextBytes } from "./text-files.js";

export type EditToolOptions = ChangeToolOptions;

export interface EditDetails {
  path: string;
  edits: number;
  replacements: number;
  added: number;
  removed: number;
  /** Unified diff (3 lines of context) of the LF-normalised text. */
  diff: string;
}

const editSpec = Type.Object({
  old_string: Type.String({ description: "Exact text to replace" }),
  new_string: Type.String({ description: "Replacement text" }),
  replace_all: Type.Optional(Type.Boolean({ description: "Replace every occurrence" })),
});

const editParameters = Type.Object({
  path: Type.String({ description: "File path, absolute or relative to the workspace" }),
  edits: Type.Optional(
    Type.Array(editSpec, { minItems: 1, description: "Applied in order, all or nothing" }),
  ),
  old_string: Type.Optional(Type.String({ description: "Single-edit shorthand" })),
  new_string: Type.Optional(Type.String()),
  replace_all: Type.Optional(Type.Boolean()),
});

export type EditParams = Static<typeof editParameters>;

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const CANDIDATE_PREVIEW_LINES = 20;

export function createEditTool(options: EditToolOptions): BuiltinTool<typeof editParameters, EditDetails> {
  return {
    name: "Edit",
    label: "Edit",
    description:
      "Replace exact text in a file you have Read. Pass edits [{old_string, new_string, replace_all?}] or one " +
      "old_string/new_string. old_string must match the file exactly (no line-number prefix) and be unique unless replace_all.",
    parameters: editParameters,
    executionMode: "sequential",
    access: "write",
    args: { paths: ["path"] },
    summary: (args) => args.path,
    preview: (args, { cwd, readText }) => editPreview(args, cwd, readText),
    // A file that is missing, or that the model has not read as it is now, fails before anyone is asked.
    async precondition(args) {
      const path = resolvePath(options.cwd, args.path);
      const shown = displayPath(options.cwd, path);
      const current = await currentFile(path, shown, "edit", options.tracker, options.textFiles);
      return current.kind === "current" ? undefined : unusable(current, shown);
    },
    async execute(args) {
      const path = resolvePath(options.cwd, args.path);
      const shown = displayPath(options.cwd, path);
      const edits = editsOf(args);
      if (typeof edits === "string") return errorResult(edits);

      const current = await currentFile(path, shown, "edit", options.tracker, options.textFiles);
      if (current.kind !== "current") return errorResult(unusable(current, shown));
      const bytes = current.bytes;
      if (looksBinary(bytes)) return errorResult(`${shown} is a binary file; Edit only changes text files.`);

      const hasBom = bytes.subarray(0, 3).equals(BOM);
      const raw = new TextDecoder().decode(bytes); // strips the BOM
      const crlf = usesCrlf(raw);
      const before = raw.replace(/\r\n/g, "\n");
      const applied = applyEdits(
        before,
        edits.map((e) => ({ ...e, old_string: toLf(e.old_string), new_string: toLf(e.new_string) })),
      );
      if (applied.isErr()) return errorResult(failureMessage(applied.error, shown, edits.length));

      const after = applied.value.text;
      const encoded = Buffer.from(crlf ? after.replace(/\n/g, "\r\n") : after, "utf8");
      const output = hasBom ? Buffer.concat([BOM, encoded]) : encoded;
      const written = await writeTextBytes(path, output, options.textFiles);
      if (written.isErr()) {
        return errorResult(`Could not write ${shown}: ${written.error.message}. The file was not changed.`);
      }
      options.tracker.record(path, stampOf(written.value.bytes, written.value.mtimeMs));

      const { diff, added, removed } = unifiedDiff(shown, before, after);
      const count = applied.value.replacements;
      return textResult(
        `Edited ${shown}: ${count} replacement${count === 1 ? "" : "s"} (+${added} −${removed} lines).`,
        { path: shown, edits: edits.length, replacements: count, added, removed, diff },
      );
    },
  };
}

function unusable(current: Exclude<CurrentFile, { kind: "current" }>, shown: string): string {
  return current.kind === "missing"
    ? `No such file or directory: ${shown}. Check the path (Glob or LS can help find it). To create a new file, use Write.`
    : current.message;
}

/** Normalises both argument shapes to a list, or says what is wrong with them. */
export function editsOf(args: EditParams): EditSpec[] | string {
  const shorthand = args.old_string !== undefined || args.new_string !== undefined;
  if (args.edits !== undefined && shorthand) {
    return "Give either edits or old_string/new_string, not both.";
  }
  if (args.edits !== undefined) return args.edits;
  if (args.old_string === undefined || args.new_string === undefined) {
    return "Missing edit: pass edits [{old_string, new_string}] or both old_string and new_string.";
  }
  return [{ old_string: args.old_string, new_string: args.new_string, replace_all: args.replace_all }];
}

const toLf = (text: string) => text.replace(/\r\n/g, "\n");

/** CRLF wins when at least half the line breaks are CRLF, so the dominant style is kept. */
function usesCrlf(text: string): boolean {
  let lf = 0;
  let crlf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    lf++;
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
  }
  return crlf > 0 && crlf * 2 >= lf;
}

function failureMessage(failure: EditFailure, shown: string, total: number): string {
  const which = total > 1 ? `Edit ${failure.index + 1} of ${total}` : "Edit";
  const none = total > 1 ? " No edits were applied." : "";
  const after = failure.index > 0 ? ` (line numbers are after edits 1-${failure.index})` : "";
  switch (failure.kind) {
    case "empty_old_string":
      return `${which}: old_string is empty.${none} Give the exact text to replace; to create a file, use Write.`;
    case "no_change":
      return `${which}: old_string and new_string are identical.${none}`;
    case "ambiguous":
      return (
        `${which}: old_string occurs ${failure.count} times in ${shown} (lines ${failure.lines.join(", ")}${failure.count > failure.lines.length ? ", …" : ""})${after}.${none} ` +
        "Include more surrounding lines to make it unique, or set replace_all to change every occurrence."
      );
    case "not_found":
      return `${which}: old_string was not found in ${shown}.${none}\n${describeCandidates(failure.candidates, after)}`;
  }
}

function describeCandidates(candidates: Candidate[], after: string): string {
  if (candidates.length === 0) {
    return "No similar text was found. Read the file to see its current content.";
  }
  const blocks = candidates.map((c) => {
    const range = c.startLine === c.endLine ? `line ${c.startLine}` : `lines ${c.startLine}-${c.endLine}`;
    const why = c.whitespaceOnly ? "differs only in whitespace" : `${Math.round(c.score * 100)}% similar`;
    const shownLines = c.lines
      .slice(0, CANDIDATE_PREVIEW_LINES)
      .map((l, i) => `${String(c.startLine + i).padStart(6)}\t${l}`);
    if (c.lines.length > CANDIDATE_PREVIEW_LINES) shownLines.push("   …");
    return `Closest match, ${range}${after} (${why}):\n${shownLines.join("\n")}`;
  });
  return `${blocks.join("\n")}\nCopy the text exactly as it is in the file (without the line-number prefix) and retry.`;
}

/** Edit's approval preview: the diff its edits would make to the file as it is now, or why there is none. */
async function editPreview(
  args: EditParams,
  cwd: string,
  readText: ToolPreviewContext["readText"],
): Promise<ToolPreview> {
  const path = resolvePath(cwd, args.path);
  const shown = displayPath(cwd, path);
  const current = await readText(path);
  if (!current.ok) return { format: "text", text: `No diff: ${current.error.message}.`, path: shown };
  const edits = editsOf(args);
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

export function unifiedDiff(
  shown: string,
  before: string,
  after: string,
): { diff: string; added: number; removed: number } {
  const patch = structuredPatch(shown, shown, before, after, "", "", { context: 3 });
  let added = 0;
  let removed = 0;
  const out = [`--- ${shown}`, `+++ ${shown}`];
  for (const hunk of patch.hunks) {
    out.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
      out.push(line);
    }
  }
  return { diff: out.join("\n"), added, removed };
}
