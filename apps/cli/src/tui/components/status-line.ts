// The bottom line: activity or hint on the left; model, tokens, cost, context and extension
// statuses on the right.
import { Box, Text } from "ink";
import type { ReactElement } from "react";
import { compactNumber, formatCost } from "../format.js";
import type { Snapshot } from "../store.js";
import { h } from "./h.js";

export function StatusLine({ snapshot }: { snapshot: Snapshot }): ReactElement | null {
  const { status, statuses, running, hint, queued } = snapshot;
  const left = hint
    ? h(Text, { color: "yellow" }, hint)
    : running
      ? h(
          Text,
          { color: "cyan" },
          `● working · esc to interrupt${queued.length > 0 ? ` · ${queued.length} queued` : ""}`,
        )
      : h(Text, { dimColor: true }, "ready · /help · ctrl+o tool output");
  if (!status.model) return h(Text, { dimColor: true }, "starting…");
  const parts = [
    status.model,
    `↑${compactNumber(status.tokensIn)} ↓${compactNumber(status.tokensOut)}`,
    formatCost(status.cost),
    ...(status.contextPercent !== undefined ? [`ctx ${status.contextPercent}%`] : []),
    ...statuses.map(([, text]) => text),
  ];
  return h(
    Box,
    { justifyContent: "space-between" },
    left,
    h(Text, { dimColor: true, wrap: "truncate-start" }, parts.join(" · ")),
  );
}
