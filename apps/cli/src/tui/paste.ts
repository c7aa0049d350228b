// Bracketed paste: the terminal wraps pasted text in ESC[200~ … ESC[201~ (once keel asks with
// ESC[?2004h), so a paste's line breaks stay text while typed Enter submits, however fast the
// keys come. ink hands the markers over as "[200~" / "[201~" (the ESC stripped). Pure.
import type { Key } from "ink";

export const ENABLE_BRACKETED_PASTE = "\x1b[?2004h";
export const DISABLE_BRACKETED_PASTE = "\x1b[?2004l";

const START = "[200~";
const END = "[201~";

export type PasteStep =
  /** Not part of a paste: handle the key as typed. */
  | { kind: "key" }
  /** Taken into the paste being received. */
  | { kind: "more"; buffer: string }
  /** The paste is complete. */
  | { kind: "done"; text: string };

/** One input event, given the paste being received (undefined: none). */
export function pasteStep(buffer: string | undefined, input: string, key: Partial<Key>): PasteStep {
  if (buffer === undefined) {
    if (input !== START) return { kind: "key" };
    return { kind: "more", buffer: "" };
  }
  if (input === END) return { kind: "done", text: buffer.replace(/\r\n?/g, "\n") };
  // ink reports a lone line break or tab as a key with empty input; inside a paste it is text.
  const text = input !== "" ? input : key.return ? "\r" : key.tab ? "\t" : "";
  return { kind: "more", buffer: buffer + text };
}

const IMAGE = /\.(png|jpe?g|gif|webp)$/i;

/**
 * The image file a paste names (a file dragged onto the terminal pastes its path, quoted or
 * with escaped spaces, or as a file:// URL), or undefined when the paste is ordinary text.
 */
export function pastedImagePath(text: string): string | undefined {
  let t = text.trim();
  if (t.includes("\n") || t === "") return undefined;
  if ((t.startsWith("'") && t.endsWith("'")) || (t.startsWith('"') && t.endsWith('"'))) t = t.slice(1, -1);
  else t = t.replace(/\\(.)/g, "$1");
  if (t.startsWith("file://")) {
    try {
      t = decodeURIComponent(new URL(t).pathname);
    } catch {
      return undefined;
    }
  }
  return IMAGE.test(t) ? t : undefined;
}
