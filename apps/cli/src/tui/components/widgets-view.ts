// Extension widgets above the input (e.g. the todo checklist), with checklist glyphs coloured.
import { Box, Text } from "ink";
import type { ReactElement } from "react";
import { h } from "./h.js";

const GLYPH_COLOR: Record<string, string> = { "✓": "green", "▶": "yellow", "○": "gray" };

function WidgetLine({ line }: { line: string }): ReactElement | null {
  const color = GLYPH_COLOR[line.charAt(0)];
  if (!color) return h(Text, null, line);
  const done = line.charAt(0) === "✓";
  return h(
    Text,
    null,
    h(Text, { color }, line.charAt(0)),
    h(Text, { dimColor: done, strikethrough: false }, line.slice(1)),
  );
}

export function Widgets({ widgets }: { widgets: [string, string[]][] }): ReactElement | null {
  if (widgets.length === 0) return null;
  return h(
    Box,
    { flexDirection: "column", marginTop: 1 },
    widgets.map(([key, lines]) =>
      h(
        Box,
        { key, flexDirection: "column" },
        lines.map((line, i) => h(WidgetLine, { key: i, line })),
      ),
    ),
  );
}
