// Questions that take the keyboard: tool approval (allow once / always / deny), confirm, a picker
// list and a one-line text input.
import { Box, Text } from "ink";
import type { ReactElement } from "react";
import { approvalChoices } from "../dialog-keys.js";
import { argsSummary, oneLine } from "../format.js";
import type { Dialog, PickOption } from "../store.js";
import { h } from "./h.js";
import { EditorText } from "./input-view.js";

function Choices({ labels, selected }: { labels: string[]; selected: number }): ReactElement | null {
  return h(
    Box,
    { gap: 2 },
    labels.map((label, i) =>
      h(
        Text,
        { key: label, inverse: i === selected, color: i === selected ? "cyan" : undefined },
        ` ${label} `,
      ),
    ),
  );
}

const WINDOW = 10;

function Picker({ options, selected }: { options: PickOption[]; selected: number }): ReactElement | null {
  const start = Math.max(0, Math.min(selected - Math.floor(WINDOW / 2), options.length - WINDOW));
  const shown = options.slice(start, start + WINDOW);
  return h(
    Box,
    { flexDirection: "column" },
    start > 0 ? h(Text, { dimColor: true }, `  ↑ ${start} more`) : null,
    shown.map((o, i) =>
      h(
        Text,
        { key: start + i, wrap: "truncate-end" },
        h(Text, { color: start + i === selected ? "cyan" : undefined }, start + i === selected ? "❯ " : "  "),
        h(Text, { bold: start + i === selected }, o.label),
        o.detail ? h(Text, { dimColor: true }, `  ${o.detail}`) : null,
      ),
    ),
    start + WINDOW < options.length
      ? h(Text, { dimColor: true }, `  ↓ ${options.length - start - WINDOW} more`)
      : null,
  );
}

function body(dialog: Dialog) {
  switch (dialog.kind) {
    case "approval": {
      const { request } = dialog;
      const asker = request.agent ? `[agent ${request.agent.title}] ` : "";
      const title =
        request.kind === "extension"
          ? `${asker}${request.extensionId ?? "An extension"} asks: ${request.title ?? request.toolName}`
          : `${asker}Allow ${request.toolName}?`;
      return [
        h(Text, { key: "t", bold: true, color: "yellow" }, title),
        h(Text, { key: "a" }, `${request.toolName}(${argsSummary(request.toolName, request.args, 200)})`),
        request.preview
          ? h(Text, { key: "p" }, request.preview.text.split("\n").slice(0, 20).join("\n"))
          : null,
        h(Text, { key: "r", dimColor: true }, `Reason: ${oneLine(request.reason, 200)}`),
        request.alwaysRules[0]
          ? h(
              Text,
              { key: "s", dimColor: true },
              request.alwaysSavesTo
                ? `"Always" adds the rule ${request.alwaysRules[0]} to ${request.alwaysSavesTo}`
                : `"Always" allows ${request.alwaysRules[0]} for this session only (not saved: the project is not trusted)`,
            )
          : null,
        h(Choices, {
          key: "c",
          labels: approvalChoices(request).map((c) => c.label),
          selected: dialog.selected,
        }),
      ];
    }
    case "confirm":
      return [
        h(Text, { key: "t", bold: true }, dialog.title),
        dialog.message ? h(Text, { key: "m" }, dialog.message) : null,
        h(Choices, { key: "c", labels: ["[y] Yes", "[n] No"], selected: dialog.selected }),
      ];
    case "select":
      return [
        h(Text, { key: "t", bold: true }, dialog.title),
        h(Picker, { key: "p", options: dialog.options, selected: dialog.selected }),
        h(Text, { key: "h", dimColor: true }, "↑/↓ to move · enter to choose · esc to cancel"),
      ];
    case "input":
      return [
        h(Text, { key: "t", bold: true }, dialog.title),
        h(EditorText, {
          key: "e",
          editor: dialog.editor,
          placeholder: dialog.placeholder ?? "",
          focused: true,
        }),
        h(Text, { key: "h", dimColor: true }, "enter to send · esc to cancel"),
      ];
  }
}

export function DialogView({ dialog }: { dialog: Dialog }): ReactElement | null {
  return h(
    Box,
    {
      flexDirection: "column",
      borderStyle: "round",
      borderColor: dialog.kind === "approval" ? "yellow" : "cyan",
      paddingX: 1,
      marginTop: 1,
    },
    body(dialog),
  );
}
