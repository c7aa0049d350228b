// The status line as rows of styled segments: the activity on the left, the session facts on the
// right. What does not fit beside the activity wraps, item by item and in order, onto rows of
// its own (right-aligned, at most MAX_ROWS, then " …"). No row is ever wider than the terminal:
// a row the terminal wrapped itself would not be counted by ink when it redraws. Pure.
import stringWidth from "string-width";

export interface Segment {
  text: string;
  color?: string;
  dim?: boolean;
  bold?: boolean;
}

const SEP = " · ";
const SEP_WIDTH = stringWidth(SEP);
/** Rows the status line may take; the last one ends in " …" when more did not fit. */
export const MAX_ROWS = 3;

function cut(text: string, width: number): string {
  if (width <= 0) return "";
  if (stringWidth(text) <= width) return text;
  let out = "";
  for (const ch of text) {
    if (stringWidth(`${out}${ch}…`) > width) break;
    out += ch;
  }
  return `${out}…`;
}

const textOf = (segments: Segment[]) => segments.map((s) => s.text).join("");

/**
 * `items` joined by separators, as many as fit in `space` in order. `cut_.alone`: a first item
 * wider than the whole row is cut to fit; `cut_.overflow`: so is the first that does not fit.
 */
function fill(
  items: Segment[],
  space: number,
  cut_: { alone: boolean; overflow: boolean },
): { row: Segment[]; taken: number } {
  const row: Segment[] = [];
  let used = 0;
  let taken = 0;
  for (const item of items) {
    const sep = row.length > 0 ? SEP_WIDTH : 0;
    const w = stringWidth(item.text);
    if (used + sep + w <= space) {
      if (sep) row.push({ text: SEP, dim: true });
      row.push(item);
      used += sep + w;
      taken++;
      continue;
    }
    // An item wider than a whole row, or the last row's overflow, is cut rather than dropped whole.
    const rest = space - used - sep;
    if ((row.length === 0 ? cut_.alone : cut_.overflow) && rest > 1) {
      if (sep) row.push({ text: SEP, dim: true });
      row.push({ ...item, text: cut(item.text, rest) });
      taken++;
    }
    break;
  }
  return { row, taken };
}

/** Right-aligns `row` within `room` columns after `before` columns already used. */
function padded(row: Segment[], room: number, before: number): Segment[] {
  const gap = room - before - stringWidth(textOf(row));
  return gap > 0 ? [{ text: " ".repeat(gap) }, ...row] : row;
}

/**
 * Left and right within `width` columns (a row's last column is left free): the first row holds
 * the activity and the facts that fit beside it; the rest of the facts wrap onto further rows.
 */
export function statusRows(left: Segment[], right: Segment[], width: number): Segment[][] {
  const room = Math.max(1, width - 1);
  const leftText = left.map((s) => s.text).join(SEP);
  const leftWidth = stringWidth(leftText);
  const first: Segment[] =
    leftWidth >= room
      ? [{ ...left[0]!, text: cut(leftText, room) }]
      : left.flatMap((s, i) => (i === 0 ? [s] : [{ text: SEP, dim: true }, s]));
  const firstWidth = Math.min(leftWidth, room);
  const rows: Segment[][] = [];
  let rest = right;
  // Beside the activity, two spaces apart; nothing there when not even the first fact fits.
  const beside = fill(rest, room - firstWidth - 2, { alone: false, overflow: false });
  rows.push(beside.taken > 0 ? [...first, ...padded(beside.row, room, firstWidth)] : first);
  rest = rest.slice(beside.taken);
  while (rest.length > 0 && rows.length < MAX_ROWS) {
    // The last row keeps two columns for " …", which says that more did not fit.
    const last = rows.length === MAX_ROWS - 1;
    const next = fill(rest, last ? room - 2 : room, { alone: true, overflow: false });
    if (next.taken === 0) break;
    rest = rest.slice(next.taken);
    rows.push(padded(last && rest.length > 0 ? [...next.row, { text: " …", dim: true }] : next.row, room, 0));
  }
  return rows;
}
