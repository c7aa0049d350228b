// The bottom lines: activity or hint on the left; permission mode, model, thinking, tokens, cost,
// context and extension statuses on the right, wrapping onto more rows when the terminal is narrow.
import { Box, Text, useWindowSize } from "ink";
import type { ReactElement } from "react";
import { compactNumber, formatCost } from "../../format.js";
import { type Segment, statusRows } from "../status-text.js";
import type { Snapshot } from "../store.js";
import { h } from "./h.js";

const MODE_COLOR: Record<string, string> = {
  acceptEdits: "magenta",
  plan: "cyan",
  dontAsk: "yellow",
  bypassPermissions: "red",
};

export function statusSegments(snapshot: Snapshot): { left: Segment[]; right: Segment[] } {
  const { status, statuses, running, hint, queued } = snapshot;
  const left: Segment[] = hint
    ? [{ text: hint, color: "yellow" }]
    : running
      ? [
          {
            text: `● working · esc to interrupt${queued.length > 0 ? ` · ${queued.length} queued` : ""}`,
            color: "cyan",
          },
        ]
      : [{ text: "ready · /help", dim: true }];
  const mode = MODE_COLOR[status.mode];
  const right: Segment[] = [
    mode
      ? { text: `⏵ ${status.mode} (shift+tab)`, color: mode, bold: true }
      : { text: "default mode", dim: true },
    { text: status.model, dim: true },
    ...(status.thinking ? [{ text: `thinking ${status.thinking}`, dim: true }] : []),
    { text: `↑${compactNumber(status.tokensIn)} ↓${compactNumber(status.tokensOut)}`, dim: true },
    { text: formatCost(status.cost), dim: true },
    ...(status.contextPercent !== undefined ? [{ text: `ctx ${status.contextPercent}%`, dim: true }] : []),
    ...statuses.map(([, text]) => ({ text: text.replace(/\s+/g, " "), dim: true })),
  ];
  return { left, right };
}

/** The status line's rows at `columns` (the screen keeps that many below the input box). */
export function statusLayout(snapshot: Snapshot, columns: number): Segment[][] {
  const { left, right } = statusSegments(snapshot);
  return statusRows(left, right, columns || 80);
}

export function StatusLine({ snapshot }: { snapshot: Snapshot }): ReactElement | null {
  const { columns } = useWindowSize();
  if (!snapshot.status.model) return h(Text, { dimColor: true }, "starting…");
  const rows = statusLayout(snapshot, columns);
  return h(
    Box,
    { flexDirection: "column" },
    rows.map((row, r) =>
      h(
        Text,
        { key: r, wrap: "truncate-end" },
        row.map((s, i) =>
          h(
            Text,
            {
              key: i,
              ...(s.color ? { color: s.color } : {}),
              dimColor: s.dim === true,
              bold: s.bold === true,
            },
            s.text,
          ),
        ),
      ),
    ),
  );
}
