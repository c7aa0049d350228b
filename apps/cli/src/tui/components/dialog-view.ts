// Questions that take the keyboard: tool approval (what it approves — a diff, a command — then
// allow once / always / deny, or deny with words for the model), confirm, a picker list the user
// narrows by typing, and a one-line text input.
import type { ToolApprovalRequest } from "@keel/coding-agent";
import { Box, Text, useWindowSize } from "ink";
import type { ReactElement } from "react";
import { oneLine, toolTitle } from "../../format.js";
import { approvalChoices } from "../dialog-keys.js";
import { filterOptions } from "../pick-filter.js";
import { previewLines, previewRows } from "../preview-window.js";
import type { Dialog, PickOption } from "../store.js";
import { h } from "./h.js";
import { EditorText } from "./input-view.js";

/** Rows of a preview shown at once: what the screen leaves after the dialog's other lines. */
function usePreviewRows(): number {
  return previewRows(useWindowSize().rows);
}

function diffColor(line: string): string | undefined {
  if (line.startsWith("+++") || line.startsWith("---")) return undefined;
  if (line.startsWith("+")) return "green";
  if (line.startsWith("-")) return "red";
  if (line.startsWith("@@")) return "cyan";
  return undefined;
}

/** The preview's visible window, coloured for diffs, with how much is above and below it. */
function Preview({ request, scroll }: { request: ToolApprovalRequest; scroll: number }): ReactElement | null {
  const rows = usePreviewRows();
  const preview = request.preview;
  if (!preview) return null;
  const lines = previewLines(request);
  const start = Math.max(0, Math.min(scroll, lines.length - rows));
  const shown = lines.slice(start, start + rows);
  const below = lines.length - start - shown.length;
  return h(
    Box,
    { flexDirection: "column", marginY: 1 },
    start > 0
      ? h(Text, { dimColor: true }, `  ↑ ${start} more line${start === 1 ? "" : "s"} (↑/PgUp)`)
      : null,
    shown.map((line, i) =>
      h(
        Text,
        {
          key: start + i,
          ...(preview.format === "diff" ? { color: diffColor(line), bold: /^(\+\+\+|---) /.test(line) } : {}),
          ...(preview.format === "command" ? { color: "cyan" } : {}),
          wrap: preview.format === "command" ? "wrap" : "truncate-end",
        },
        preview.format === "command" && start + i === 0 ? `$ ${line}` : line || " ",
      ),
    ),
    below > 0
      ? h(Text, { dimColor: true }, `  ↓ ${below} more line${below === 1 ? "" : "s"} (↓/PgDn)`)
      : null,
  );
}

/** The call as the kernel summarises it (its tool's declaration; an extension's question, its arguments). */
function callTitle(request: ToolApprovalRequest): string {
  return toolTitle(shownTool(request), request.summary ?? "", 200);
}

/** The tool as people are shown it (a catalog entry without its group repeated). */
function shownTool(request: ToolApprovalRequest): string {
  return request.shownName ?? request.toolName;
}

/** Where "always" keeps the rule, in the dialog's words. */
function alwaysLine(request: ToolApprovalRequest): string | undefined {
  if (request.alwaysRules.length === 0) return undefined;
  const where = request.alwaysSavesTo
    ? `saved to ${request.alwaysSavesTo}`
    : "for this session only (not saved: the project is not trusted)";
  const rules =
    request.alwaysRules.length === 1
      ? request.alwaysRules[0]
      : request.alwaysRules.map((r, i) => `[${i === 0 ? "a" : i + 1}] ${r}`).join("  ");
  return `"Always" allows ${rules} — ${where}`;
}

function approvalBody(dialog: Extract<Dialog, { kind: "approval" }>) {
  const { request } = dialog;
  const asker = request.agent ? `[agent ${request.agent.title}] ` : "";
  const subject =
    request.preview?.path !== undefined
      ? `${shownTool(request)} ${request.preview.path}`
      : request.preview?.format === "command"
        ? `${shownTool(request)} command`
        : callTitle(request);
  const title =
    request.kind === "extension"
      ? `${asker}${request.extensionId ?? "An extension"} asks: ${request.title ?? request.toolName}`
      : `${asker}Allow ${subject}?`;
  const always = alwaysLine(request);
  return [
    h(Text, { key: "t", bold: true, color: "yellow" }, title),
    request.preview
      ? h(Preview, { key: "p", request, scroll: dialog.scroll })
      : h(Text, { key: "a" }, callTitle(request)),
    h(Text, { key: "r", dimColor: true }, `Reason: ${oneLine(request.reason, 200)}`),
    always ? h(Text, { key: "s", dimColor: true }, always) : null,
    dialog.reason
      ? h(
          Box,
          { key: "w", flexDirection: "column", marginTop: 1 },
          h(Text, { bold: true }, "Tell keel what to do instead:"),
          h(
            Box,
            null,
            h(Text, { color: "cyan" }, "› "),
            h(EditorText, { editor: dialog.reason, placeholder: "", focused: true }),
          ),
          h(
            Text,
            { dimColor: true },
            "enter: deny and stop so you can steer · alt+enter: deny and let it go on · esc: back",
          ),
        )
      : h(Choices, {
          key: "c",
          labels: approvalChoices(request).map((c) => c.label),
          selected: dialog.selected,
        }),
  ];
}

function Choices({ labels, selected }: { labels: string[]; selected: number }): ReactElement | null {
  return h(
    Box,
    { columnGap: 2, flexWrap: "wrap" },
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

/** The options the filter lets through, a window of them around the selection. */
function Picker({
  options,
  selected,
  filter,
}: {
  options: PickOption[];
  selected: number;
  filter: string;
}): ReactElement | null {
  const shown = filterOptions(options, filter);
  const at = Math.max(0, shown.indexOf(selected));
  const start = Math.max(0, Math.min(at - Math.floor(WINDOW / 2), shown.length - WINDOW));
  const window = shown.slice(start, start + WINDOW);
  return h(
    Box,
    { flexDirection: "column" },
    filter
      ? h(
          Text,
          null,
          h(Text, { color: "cyan" }, "Filter: "),
          filter,
          h(Text, { dimColor: true }, `  (${shown.length} of ${options.length})`),
        )
      : null,
    filter && shown.length === 0 ? h(Text, { dimColor: true }, "  Nothing matches.") : null,
    start > 0 ? h(Text, { dimColor: true }, `  ↑ ${start} more`) : null,
    window.map((index) => {
      const o = options[index]!;
      const on = index === selected;
      return h(
        Text,
        { key: index, wrap: "truncate-end" },
        h(Text, { color: on ? "cyan" : undefined }, on ? "❯ " : "  "),
        h(Text, { bold: on }, o.label),
        o.detail ? h(Text, { dimColor: true }, `  ${o.detail}`) : null,
      );
    }),
    start + WINDOW < shown.length
      ? h(Text, { dimColor: true }, `  ↓ ${shown.length - start - WINDOW} more`)
      : null,
  );
}

function body(dialog: Dialog) {
  switch (dialog.kind) {
    case "approval":
      return approvalBody(dialog);
    case "confirm":
      return [
        h(Text, { key: "t", bold: true }, dialog.title),
        dialog.message ? h(Text, { key: "m" }, dialog.message) : null,
        h(Choices, { key: "c", labels: ["[y] Yes", "[n] No"], selected: dialog.selected }),
      ];
    case "select":
      return [
        h(Text, { key: "t", bold: true }, dialog.title),
        h(Picker, { key: "p", options: dialog.options, selected: dialog.selected, filter: dialog.filter }),
        h(
          Text,
          { key: "h", dimColor: true },
          dialog.filter
            ? "type to filter · ↑/↓ to move · enter to choose · esc to clear the filter"
            : "type to filter · ↑/↓ to move · enter to choose · esc to cancel",
        ),
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
