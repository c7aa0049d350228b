// One finished transcript item: a prompt, a block of answer, a thinking line, a tool line or a notice.
import { Box, Text } from "ink";
import type { ReactElement } from "react";
import type { Item, NoticeLevel } from "../transcript.js";
import { h } from "./h.js";
import { Markdown } from "./markdown-view.js";
import { ToolLine } from "./tool-line.js";

const NOTICE: Record<NoticeLevel, { glyph: string; color?: string; dim?: boolean }> = {
  info: { glyph: "ⓘ", color: "blue" },
  warning: { glyph: "⚠", color: "yellow" },
  error: { glyph: "✗", color: "red" },
  success: { glyph: "✓", color: "green" },
  dim: { glyph: "·", dim: true },
};

export function ItemView({ item }: { item: Item }): ReactElement | null {
  switch (item.kind) {
    case "user":
      return h(
        Box,
        null,
        h(Text, { color: "blue", bold: true }, "› "),
        h(Text, { color: "blueBright" }, item.text),
      );
    case "text":
      return h(Markdown, { text: item.text });
    case "thinking":
      return h(
        Text,
        { dimColor: true, italic: true },
        item.chars > 0 ? `✻ thought for ${item.chars} chars` : "✻ thought (redacted)",
      );
    case "tool":
      return h(ToolLine, { item });
    case "notice": {
      const style = NOTICE[item.level];
      // One Text, so a long notice wraps under itself rather than in a narrow column.
      return h(
        Text,
        { dimColor: style.dim ?? false },
        h(Text, style.color ? { color: style.color } : {}, `${style.glyph} `),
        item.text,
      );
    }
  }
}

/** Consecutive tool lines and notices sit together; everything else gets a blank line above. */
export function gapBefore(item: Item, previous: Item | undefined): number {
  if (!previous) return 0;
  if (item.kind === "tool" && previous.kind === "tool") return 0;
  if (item.kind === "notice" && previous.kind === "notice") return 0;
  return 1;
}
