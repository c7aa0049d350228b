// The approval preview's window (a long diff scrolls): how many rows it takes on a terminal of a
// given height and how far it can scroll, shared by the view that draws it and the keys that move it.
import type { ToolApprovalRequest } from "@keel/coding-agent";

/** Rows the preview gets on a terminal of `terminalRows` (the dialog's other lines take the rest). */
export function previewRows(terminalRows: number | undefined): number {
  return Math.max(5, (terminalRows || 24) - 16);
}

export function previewLines(request: ToolApprovalRequest): string[] {
  return request.preview ? request.preview.text.replace(/\s+$/, "").split("\n") : [];
}

/** The last first-line the preview can start at: past it there is nothing more to show. */
export function maxScroll(request: ToolApprovalRequest, terminalRows: number | undefined): number {
  return Math.max(0, previewLines(request).length - previewRows(terminalRows));
}
