// The part of a long document one call returns: a window of UTF-8 bytes that never splits a
// character, ends at a line break when one is near, and says where the next call starts.

export interface Window {
  text: string;
  /** Byte offset the window starts at (moved forward to a character boundary if needed). */
  offset: number;
  /** Byte offset just past the window: the `offset` that reads on. */
  end: number;
  /** Bytes in the whole document. */
  total: number;
}

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

export function windowOf(doc: Buffer, offset: number, maxBytes: number): Window {
  const total = doc.length;
  let start = Math.min(Math.max(0, Math.floor(offset)), total);
  while (start < total && isContinuation(doc[start])) start++;
  let end = Math.min(start + Math.max(1, Math.floor(maxBytes)), total);
  if (end < total) {
    while (end > start && isContinuation(doc[end])) end--;
    // A line break in the last tenth of the window makes a cleaner cut.
    const floor = end - Math.floor((end - start) / 10);
    const newline = doc.lastIndexOf(0x0a, end - 1);
    if (newline >= floor && newline > start) end = newline + 1;
  }
  return { text: doc.subarray(start, end).toString("utf8"), offset: start, end, total };
}

const bytes = (n: number) =>
  n < 1024
    ? `${n} bytes`
    : n < 1024 * 1024
      ? `${(n / 1024).toFixed(1)} KB`
      : `${(n / 1024 / 1024).toFixed(1)} MB`;

export const formatBytes = bytes;

/** The line that says a result was cut and how to read on; undefined when nothing was cut. */
export function cutNotice(w: Window, url: string): string | undefined {
  if (w.offset === 0 && w.end >= w.total) return undefined;
  const shown = `bytes ${w.offset}–${w.end} of ${w.total}`;
  if (w.end >= w.total) return `[Showing ${shown}: the end of the document.]`;
  return (
    `[Cut: showing ${shown}; ${bytes(w.total - w.end)} remain. To read on, call WebFetch with ` +
    `url "${url}" and offset ${w.end}.]`
  );
}
