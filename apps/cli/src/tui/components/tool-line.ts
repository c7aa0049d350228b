// One line per tool call: a glyph for its state, Name(args), and a short hint of the result.
import { Text } from "ink";
import type { ReactElement } from "react";
import { oneLine, resultHint } from "../../format.js";
import type { ToolItem } from "../transcript.js";
import { h } from "./h.js";

const GLYPH = { running: ["●", "yellow"], ok: ["✓", "green"], error: ["✗", "red"] } as const;

export function ToolLine({ item }: { item: ToolItem }): ReactElement | null {
  const [glyph, color] = GLYPH[item.state];
  const args = oneLine(item.summary, 80);
  const hint =
    item.state === "running"
      ? item.output
        ? resultHint(item.output.split("\n").slice(-1)[0] ?? "")
        : "…"
      : resultHint(item.output);
  return h(
    Text,
    { wrap: "truncate-end" },
    h(Text, { color }, glyph),
    " ",
    // "!": a command the user ran (`!cmd`), not a tool call of the model's.
    h(Text, { bold: true }, item.name),
    item.name === "!" ? ` ${args}` : args ? `(${args})` : "",
    h(Text, { dimColor: true }, ` · ${hint}`),
  );
}
