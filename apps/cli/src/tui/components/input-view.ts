// The prompt box with a visible cursor, the queued steering/follow-up messages above it and the
// slash-command completions below it.
import { Box, Text } from "ink";
import type { ReactElement } from "react";
import { oneLine } from "../../format.js";
import type { CommandChoice } from "../completion.js";
import type { EditorState } from "../editor.js";
import type { Queued } from "../store.js";
import { h } from "./h.js";

/** The text with the cursor drawn as an inverse cell; one Text per line. */
export function EditorText({
  editor,
  placeholder,
  focused,
}: {
  editor: EditorState;
  placeholder: string;
  focused: boolean;
}): ReactElement | null {
  if (!editor.text) {
    return h(
      Text,
      null,
      focused ? h(Text, { inverse: true }, placeholder.charAt(0) || " ") : null,
      h(Text, { dimColor: true }, focused ? placeholder.slice(1) : placeholder),
    );
  }
  const lines = editor.text.split("\n");
  let offset = 0;
  return h(
    Box,
    { flexDirection: "column" },
    lines.map((line, i) => {
      const start = offset;
      offset += line.length + 1;
      const at = editor.cursor - start;
      if (!focused || at < 0 || at > line.length) return h(Text, { key: i }, line || " ");
      return h(
        Text,
        { key: i },
        line.slice(0, at),
        h(Text, { inverse: true }, line.charAt(at) || " "),
        line.slice(at + 1),
      );
    }),
  );
}

export function QueuedView({ queued }: { queued: Queued[] }): ReactElement | null {
  if (queued.length === 0) return null;
  return h(
    Box,
    { flexDirection: "column", marginTop: 1 },
    queued.map((q, i) =>
      h(
        Text,
        { key: i, dimColor: true, wrap: "truncate-end" },
        `↳ queued ${q.kind === "steer" ? "steering" : "follow-up"}: ${oneLine(q.text, 100)}`,
      ),
    ),
  );
}

export function InputBox({
  editor,
  running,
  focused,
}: {
  editor: EditorState;
  running: boolean;
  focused: boolean;
}): ReactElement | null {
  const placeholder = running
    ? "Enter steers the run · Alt+Enter queues a follow-up · Esc interrupts"
    : "Ask keel… (\\ + Enter for a new line, / for commands)";
  return h(
    Box,
    { borderStyle: "round", borderColor: focused ? "gray" : "blackBright", paddingX: 1, marginTop: 1 },
    h(Text, { color: "cyan" }, "› "),
    h(Box, { flexGrow: 1 }, h(EditorText, { editor, placeholder, focused })),
  );
}

const MAX_COMPLETIONS = 8;

export function Completions({
  items,
  selected,
  kind,
}: {
  items: CommandChoice[];
  selected: number;
  kind: "command" | "file";
}): ReactElement | null {
  if (items.length === 0) return null;
  const start = Math.max(0, Math.min(selected - MAX_COMPLETIONS + 1, items.length - MAX_COMPLETIONS));
  const shown = items.slice(start, start + MAX_COMPLETIONS);
  const above = start;
  const below = items.length - start - shown.length;
  return h(
    Box,
    { flexDirection: "column", paddingX: 2 },
    above > 0 ? h(Text, { dimColor: true }, `  ↑ ${above} more`) : null,
    shown.map((c, i) =>
      h(
        Text,
        { key: c.name, wrap: "truncate-end" },
        h(
          Text,
          { color: start + i === selected ? "cyan" : undefined, bold: start + i === selected },
          kind === "file"
            ? `@${c.name}`
            : `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}`.padEnd(24),
        ),
        kind === "file" ? null : h(Text, { dimColor: true }, ` ${c.description}`),
      ),
    ),
    below > 0
      ? h(
          Text,
          { dimColor: true },
          `  ↓ ${below} more ${kind === "file" ? "files" : "commands"} (keep typing, or ↓)${kind === "command" ? " · /help lists all" : ""}`,
        )
      : null,
  );
}
