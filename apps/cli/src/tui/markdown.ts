// A tiny markdown renderer for assistant text: headings, lists, quotes, code fences and inline
// bold / italic / code / links, turned into styled spans per line. Pure; tolerant of half-streamed text.

export type SpanStyle = "plain" | "bold" | "italic" | "code" | "heading" | "link" | "dim" | "codeblock";

export interface Span {
  text: string;
  style: SpanStyle;
}

export type MdLine = Span[];

const FENCE = /^\s*(```|~~~)/;

/** Inline markup of one line: **bold**, __bold__, *italic*, _italic_, `code`, [text](url). */
export function renderInline(line: string): Span[] {
  const spans: Span[] = [];
  let plain = "";
  const push = (text: string, style: SpanStyle) => {
    if (plain) spans.push({ text: plain, style: "plain" });
    plain = "";
    if (text) spans.push({ text, style });
  };
  let i = 0;
  while (i < line.length) {
    const rest = line.slice(i);
    const code = /^(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/.exec(rest);
    if (code) {
      push(code[2]!.trim() === "" ? code[2]! : code[2]!.replace(/^ (.*) $/, "$1"), "code");
      i += code[0].length;
      continue;
    }
    const bold = /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/.exec(rest);
    if (bold) {
      push(bold[2]!, "bold");
      i += bold[0].length;
      continue;
    }
    const word = i === 0 || /[\s(]/.test(line[i - 1]!);
    const italic = word ? /^(\*|_)(?=\S)([^*_]*?\S)\1(?![\w*])/.exec(rest) : null;
    if (italic) {
      push(italic[2]!, "italic");
      i += italic[0].length;
      continue;
    }
    const link = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(rest);
    if (link) {
      push(link[1]!, "link");
      if (link[2] !== link[1]) push(` (${link[2]})`, "dim");
      i += link[0].length;
      continue;
    }
    plain += line[i];
    i++;
  }
  push("", "plain");
  return spans;
}

function blockLine(line: string): MdLine {
  const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading) return renderInline(heading[2]!).map((s) => ({ ...s, style: "heading" as const }));
  if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return [{ text: "─".repeat(40), style: "dim" }];
  const bullet = /^(\s*)[-*+]\s+(\[[ xX]\]\s+)?(.*)$/.exec(line);
  if (bullet) {
    const box = bullet[2] ? (/[xX]/.test(bullet[2]) ? "☑ " : "☐ ") : "";
    return [{ text: `${bullet[1]}• ${box}`, style: "plain" }, ...renderInline(bullet[3]!)];
  }
  const numbered = /^(\s*)(\d+[.)])\s+(.*)$/.exec(line);
  if (numbered)
    return [{ text: `${numbered[1]}${numbered[2]} `, style: "plain" }, ...renderInline(numbered[3]!)];
  const quote = /^\s*>\s?(.*)$/.exec(line);
  if (quote) return [{ text: "│ ", style: "dim" }, ...renderInline(quote[1]!).map(dimPlain)];
  return renderInline(line);
}

const dimPlain = (s: Span): Span => (s.style === "plain" ? { ...s, style: "dim" } : s);

/** Renders text line by line; an unclosed fence (still streaming) keeps its lines as code. */
export function renderMarkdown(text: string): MdLine[] {
  const lines: MdLine[] = [];
  let fence: string | undefined;
  for (const raw of text.replace(/\r\n?/g, "\n").split("\n")) {
    const marker = FENCE.exec(raw);
    if (fence !== undefined) {
      if (marker && marker[1] === fence && raw.trim() === fence) {
        fence = undefined;
        continue;
      }
      lines.push([{ text: `  ${raw}`, style: "codeblock" }]);
      continue;
    }
    if (marker) {
      fence = marker[1]!;
      const lang = raw.trim().slice(fence.length).trim();
      if (lang) lines.push([{ text: `  ${lang}`, style: "dim" }]);
      continue;
    }
    lines.push(blockLine(raw));
  }
  return lines;
}

/** How far a growing text has been scanned for block ends; carried from one streamed delta to the next. */
export interface BlockScan {
  /** Start of the first line not scanned yet (a line is scanned once its newline has arrived). */
  offset: number;
  /** The open code fence's marker, if the scanned lines end inside one. */
  fence: string | undefined;
  /** Just after the last blank line outside a code fence so far: the stable block end. */
  end: number;
}

const NOTHING_SCANNED: BlockScan = { offset: 0, fence: undefined, end: 0 };

/**
 * Continues `scan` over the lines completed since, so a streamed message costs one pass in all
 * rather than one per delta. A text shorter than what was scanned (not a growth of it) starts over.
 */
export function scanBlocks(text: string, scan: BlockScan = NOTHING_SCANNED): BlockScan {
  let { offset, fence, end } = scan.offset <= text.length ? scan : NOTHING_SCANNED;
  for (let newline = text.indexOf("\n", offset); newline !== -1; newline = text.indexOf("\n", offset)) {
    const line = text.slice(offset, newline);
    const marker = FENCE.exec(line);
    if (fence !== undefined) {
      if (marker && marker[1] === fence && line.trim() === fence) fence = undefined;
    } else if (marker) fence = marker[1]!;
    else if (line.trim() === "") end = newline + 1;
    offset = newline + 1;
  }
  return { offset, fence, end };
}

/**
 * Where finished blocks end in a growing text: just after the last blank line outside a code fence.
 * Everything before it can be printed once and never redrawn while the rest streams.
 */
export function stableBlockEnd(text: string): number {
  return scanBlocks(text).end;
}

/** Plain text of a rendered line (tests, width math). */
export function lineText(line: MdLine): string {
  return line.map((s) => s.text).join("");
}
