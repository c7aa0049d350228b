// Ctrl+O: the full output of the last tool call, in the live area (its tail when taller than the screen).
import { Box, Text } from "ink";
import type { ReactElement } from "react";
import { tailLines, toolTitle } from "../../format.js";
import type { ToolItem } from "../transcript.js";
import { h } from "./h.js";
import { useLiveRows } from "./transcript-view.js";

export function OutputPanel({ tool }: { tool: ToolItem }): ReactElement | null {
  const rows = useLiveRows(14);
  const { lines, hidden } = tailLines(tool.output.replace(/\s+$/, "") || "(no output)", rows);
  return h(
    Box,
    { flexDirection: "column", borderStyle: "single", borderColor: "gray", paddingX: 1, marginTop: 1 },
    h(Text, { bold: true, wrap: "truncate-end" }, `${toolTitle(tool.name, tool.summary)}  (ctrl+o to hide)`),
    hidden > 0 ? h(Text, { dimColor: true }, `… ${hidden} earlier lines`) : null,
    h(Text, null, lines.join("\n")),
  );
}
