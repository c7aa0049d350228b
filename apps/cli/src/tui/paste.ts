// What a paste means: ink (usePaste, with bracketed paste mode on while keel runs) hands a paste
// over whole, its line breaks kept as text, apart from typed keys; this names the image file a
// pasted path points at. Pure.

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
