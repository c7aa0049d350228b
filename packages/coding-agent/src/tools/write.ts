// Write: creates or replaces a whole file atomically; an existing file must have been Read
// (and be unchanged since) so the model never overwrites content it has not seen.

import { type Static, Type } from "@sinclair/typebox";
import { unifiedDiff } from "./edit.js";
import { type ChangeToolOptions, currentFile } from "./file-current.js";
import { stampOf } from "./file-tracker.js";
import { type BuiltinTool, displayPath, errorResult, resolvePath, textResult } from "./shared.js";
import { writeTextBytes } from "./text-files.js";

export type WriteToolOptions = ChangeToolOptions;

export interface WriteDetails {
  path: string;
  created: boolean;
  bytes: number;
  lines: number;
}

const writeParameters = Type.Object({
  path: Type.String({ description: "File path, absolute or relative to the workspace" }),
  content: Type.String({ description: "The complete new file content" }),
});

export type WriteParams = Static<typeof writeParameters>;

export function createWriteTool(
  options: WriteToolOptions,
): BuiltinTool<typeof writeParameters, WriteDetails> {
  return {
    name: "Write",
    label: "Write",
    description:
      "Create a file, or replace one you have Read, with the given content (parent directories are created). Prefer Edit for changes to existing files.",
    parameters: writeParameters,
    executionMode: "sequential",
    access: "write",
    args: { paths: ["path"] },
    summary: (args) => args.path,
    // The diff it would make against the file as it is now.
    async preview(args, { cwd, readText }) {
      const shown = displayPath(cwd, resolvePath(cwd, args.path));
      const current = await readText(resolvePath(cwd, args.path));
      if (!current.ok) return { format: "text", text: `No diff: ${current.error.message}.`, path: shown };
      const { diff } = unifiedDiff(shown, current.text, args.content.replace(/\r\n/g, "\n"));
      const header = current.exists ? "" : `(new file, ${args.content.split("\n").length} lines)\n`;
      return { format: "diff", text: header + diff, path: shown };
    },
    // Overwriting a file the model has not read as it is now fails before anyone is asked.
    async precondition(args) {
      const path = resolvePath(options.cwd, args.path);
      const shown = displayPath(options.cwd, path);
      const current = await currentFile(path, shown, "overwrite", options.tracker, options.textFiles);
      return current.kind === "refused" ? current.message : undefined;
    },
    async execute(args) {
      const path = resolvePath(options.cwd, args.path);
      const shown = displayPath(options.cwd, path);

      const current = await currentFile(path, shown, "overwrite", options.tracker, options.textFiles);
      if (current.kind === "refused") return errorResult(current.message);

      const bytes = Buffer.from(args.content, "utf8");
      const written = await writeTextBytes(path, bytes, options.textFiles);
      if (written.isErr()) {
        return errorResult(`Could not write ${shown}: ${written.error.message}. Nothing was changed.`);
      }
      options.tracker.record(path, stampOf(written.value.bytes, written.value.mtimeMs));
      const lines =
        args.content === "" ? 0 : args.content.split("\n").length - (args.content.endsWith("\n") ? 1 : 0);
      const verb = written.value.created ? "Created" : "Overwrote";
      return textResult(`${verb} ${shown} (${lines} lines, ${bytes.length} bytes).`, {
        path: shown,
        created: written.value.created,
        bytes: bytes.length,
        lines,
      });
    },
  };
}
