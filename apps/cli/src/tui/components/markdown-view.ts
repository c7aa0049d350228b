// Renders assistant markdown as ink Text lines; `maxLines` keeps only the tail (live streaming).
import { Box, Text, type TextProps } from "ink";
import { type ReactElement, useMemo } from "react";
import { type MdLine, renderMarkdown, type SpanStyle } from "../markdown.js";
import { h } from "./h.js";

const STYLE: Record<SpanStyle, TextProps> = {
  plain: {},
  bold: { bold: true },
  italic: { italic: true },
  code: { color: "cyan" },
  heading: { bold: true, color: "magenta" },
  link: { color: "blue", underline: true },
  dim: { dimColor: true },
  codeblock: { color: "yellow" },
};

function line(spans: MdLine, key: number) {
  if (spans.length === 0 || spans.every((s) => s.text === "")) return h(Text, { key }, " ");
  return h(
    Text,
    { key },
    spans.map((s, i) => h(Text, { key: i, ...STYLE[s.style] }, s.text)),
  );
}

export function Markdown({ text, maxLines }: { text: string; maxLines?: number }): ReactElement | null {
  const lines = useMemo(() => renderMarkdown(text), [text]);
  const shown = maxLines !== undefined && lines.length > maxLines ? lines.slice(-maxLines) : lines;
  return h(
    Box,
    { flexDirection: "column" },
    shown.length < lines.length
      ? h(Text, { dimColor: true }, `… ${lines.length - shown.length} lines above`)
      : null,
    shown.map(line),
  );
}
