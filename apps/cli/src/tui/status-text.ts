// The status line as styled segments fitted into one terminal row: the activity on the left, the
// session facts on the right; when the row is too narrow the right side is cut from its end (the
// extension items go first), never wrapped onto a second line. Pure.
import stringWidth from "string-width";

export interface Segment {
  text: string;
  color?: string;
  dim?: boolean;
  bold?: boolean;
}

const SEP = " · ";

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

/** Left and right joined by padding, within `width` columns (a row's last column is left free). */
export function fitStatus(left: Segment[], right: Segment[], width: number): Segment[] {
  const room = Math.max(1, width - 1);
  const joined = (segments: Segment[]): Segment[] =>
    segments.flatMap((s, i) => (i === 0 ? [s] : [{ text: SEP, dim: true }, s]));
  const leftLine = joined(left);
  const leftWidth = stringWidth(leftLine.map((s) => s.text).join(""));
  if (leftWidth >= room) return [{ ...leftLine[0]!, text: cut(leftLine.map((s) => s.text).join(""), room) }];
  const out: Segment[] = [...leftLine];
  const space = room - leftWidth - 2;
  const rightLine = joined(right);
  const fitted: Segment[] = [];
  let used = 0;
  for (const segment of rightLine) {
    const w = stringWidth(segment.text);
    if (used + w <= space) {
      fitted.push(segment);
      used += w;
      continue;
    }
    const rest = space - used;
    if (rest > 1 && segment.text !== SEP) {
      fitted.push({ ...segment, text: cut(segment.text, rest) });
      used += stringWidth(cut(segment.text, rest));
    }
    break;
  }
  // A separator left dangling at the end goes.
  while (fitted.length > 0 && fitted.at(-1)!.text === SEP) used -= stringWidth(fitted.pop()!.text);
  if (fitted.length === 0) return out;
  out.push({ text: " ".repeat(room - leftWidth - used) }, ...fitted);
  return out;
}
