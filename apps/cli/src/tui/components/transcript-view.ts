// The conversation: finished items printed once through <Static> (never redrawn), then the live
// tail — the streaming text (only its last screenful), a thinking line and running tools.
import { Box, Static, Text, useWindowSize } from "ink";
import type { ReactElement } from "react";
import type { Item, LiveView } from "../transcript.js";
import { h } from "./h.js";
import { gapBefore, ItemView } from "./item-view.js";
import { Markdown } from "./markdown-view.js";
import { ToolLine } from "./tool-line.js";

export function Finished({ items }: { items: Item[] }): ReactElement | null {
  return h(Static<Item>, {
    items,
    children: (item: Item, index: number) =>
      h(Box, { key: item.id, marginTop: gapBefore(item, items[index - 1]) }, h(ItemView, { item })),
  });
}

/** Rows the live area may use: what is left after input, widgets and status. */
export function useLiveRows(reserved: number): number {
  return Math.max(4, (useWindowSize().rows || 24) - reserved);
}

export function Live({ live, reserved }: { live: LiveView; reserved: number }): ReactElement | null {
  const rows = useLiveRows(reserved);
  const text = live.text.replace(/^\n+/, "");
  const empty = !live.thinking && !text.trim() && live.tools.length === 0;
  if (empty) return null;
  return h(
    Box,
    { flexDirection: "column", marginTop: 1 },
    live.thinking ? h(Text, { dimColor: true, italic: true }, "✻ thinking…") : null,
    text.trim() ? h(Markdown, { text, maxLines: Math.max(2, rows - live.tools.length) }) : null,
    live.tools.map((item) => h(ToolLine, { key: item.id, item })),
  );
}
