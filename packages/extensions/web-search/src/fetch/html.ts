// HTML to what the model reads: the page's main content (its <main> or single <article> when it
// has one, the body otherwise), without scripts, navigation and other chrome, links made
// absolute, as Markdown (node-html-markdown) or plain text. Also finds a markdown alternate.
// Nesting is bounded first: deeper elements keep only their text (the tree walks recurse).
import { NodeHtmlMarkdown } from "node-html-markdown";
import { type HTMLElement, type Node, NodeType, parse, TextNode } from "node-html-parser";

/** Never content: code, embedded objects, form controls. (Hidden elements go too.) */
const NEVER = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "canvas",
  "iframe",
  "object",
  "embed",
  "button",
  "input",
  "select",
  "textarea",
  "dialog",
]);

/** Page chrome, removed when outside the main content (an article's own header stays). */
const CHROME = new Set(["nav", "aside", "header", "footer"]);
const CHROME_ROLES = new Set(["navigation", "banner", "contentinfo", "complementary", "search"]);

/**
 * How deep elements may nest before their structure is dropped (their text kept). Real pages stay
 * far below (browsers' own parsers cap nesting at 512); the walks below, node-html-parser's own
 * text and serialisation, and node-html-markdown all recurse, and a page of 10,000 nested divs
 * overflowed the stack.
 */
export const MAX_HTML_DEPTH = 256;

/**
 * Replaces the children of every element at `max` levels with the text below it, without
 * recursion (the tree may be far deeper than the stack). Returns how many elements it flattened.
 */
function boundDepth(root: HTMLElement, max: number): number {
  let flattened = 0;
  const stack: [HTMLElement, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [el, depth] = stack.pop()!;
    const elements = el.childNodes.filter((c) => c.nodeType === NodeType.ELEMENT_NODE) as HTMLElement[];
    if (elements.length === 0) continue;
    if (depth < max) {
      for (const child of elements) stack.push([child, depth + 1]);
      continue;
    }
    el.childNodes = [new TextNode(rawTextBelow(el), el)];
    flattened++;
  }
  return flattened;
}

/** The raw text (entities as written) of everything below `el`, in document order, iteratively. */
function rawTextBelow(el: HTMLElement): string {
  const parts: string[] = [];
  const stack: Node[] = [...el.childNodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.nodeType === NodeType.TEXT_NODE) parts.push((node as TextNode).rawText);
    else if (node.nodeType === NodeType.ELEMENT_NODE) {
      const tag = (node as HTMLElement).rawTagName?.toLowerCase() ?? "";
      if (NEVER.has(tag)) continue;
      stack.push(...[...node.childNodes].reverse());
      parts.push(" ");
    }
  }
  return parts.join("");
}

/** Below this much text a <main> or <article> is probably a teaser, and the body is kept whole. */
const MIN_MAIN_CHARS = 200;

/**
 * node-html-markdown's cost grows with the square of its input (each append rescans the output
 * so far): 0.65 MB of paragraphs takes 25 s in one piece. Converting runs of block elements of
 * about this much HTML each keeps it linear (bench/web-fetch), and blocks join as Markdown does.
 */
const CHUNK_CHARS = 24_000;

/** Elements a chunk may start at: a new block, so no sentence or list is split. */
const BLOCK = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "header",
  "footer",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "dl",
  "table",
  "pre",
  "blockquote",
  "hr",
  "figure",
  "details",
  "address",
  "fieldset",
  "form",
  "center",
]);

/** Containers with no Markdown of their own, which a too-large chunk may be split inside. */
const TRANSPARENT = new Set(["div", "section", "article", "main", "body", "center", "form", "span"]);

function chunksOf(el: HTMLElement, out: string[]): void {
  let group = "";
  const flush = () => {
    if (group.trim() !== "") out.push(group);
    group = "";
  };
  for (const child of el.childNodes) {
    const html = child.toString();
    const tag =
      child.nodeType === NodeType.ELEMENT_NODE ? (child as HTMLElement).tagName?.toLowerCase() : undefined;
    if (tag && html.length > CHUNK_CHARS && TRANSPARENT.has(tag)) {
      flush();
      chunksOf(child as HTMLElement, out);
      continue;
    }
    if (tag && BLOCK.has(tag) && group.length + html.length > CHUNK_CHARS) flush();
    group += html;
  }
  flush();
}

function toMarkdown(root: HTMLElement): string {
  const chunks: string[] = [];
  chunksOf(root, chunks);
  return chunks
    .map((chunk) => NodeHtmlMarkdown.translate(chunk).trim())
    .filter((md) => md !== "")
    .join("\n\n");
}

export interface HtmlPage {
  title?: string;
  /** An absolute URL from `<link rel="alternate" type="text/markdown">`. */
  markdownAlternate?: string;
  /** Which part was kept: the page's main element, its article, or the whole body. */
  extracted: "main" | "article" | "body";
  /** Elements nested deeper than MAX_HTML_DEPTH whose structure was dropped (their text kept). */
  flattened: number;
  markdown(): string;
  text(): string;
}

function absolute(href: string, base: URL): string | undefined {
  try {
    const url = new URL(href, base);
    return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:"
      ? url.href
      : undefined;
  } catch {
    return undefined;
  }
}

function baseOf(root: HTMLElement, pageUrl: URL): URL {
  const href = root.querySelector("base[href]")?.getAttribute("href");
  if (href) {
    try {
      return new URL(href, pageUrl);
    } catch {
      // An unusable <base> is ignored, as browsers do.
    }
  }
  return pageUrl;
}

interface Candidates {
  main: HTMLElement[];
  article: HTMLElement[];
}

/**
 * One walk over the tree (selector queries cost a pass each): drops what is never content and
 * chrome outside the content, makes links and images absolute, and notes main/article elements.
 */
function clean(node: HTMLElement, base: URL, inContent: boolean, found: Candidates): void {
  for (const child of [...node.childNodes]) {
    if (child.nodeType !== NodeType.ELEMENT_NODE) continue;
    const el = child as HTMLElement;
    const tag = el.rawTagName?.toLowerCase() ?? "";
    if (NEVER.has(tag)) {
      el.remove();
      continue;
    }
    // Attributes are parsed lazily; an element without any needs no look at them.
    const hasAttrs = el.rawAttrs !== "";
    const role = hasAttrs ? el.getAttribute("role") : undefined;
    if (hasAttrs && (el.hasAttribute("hidden") || el.getAttribute("aria-hidden") === "true")) {
      el.remove();
      continue;
    }
    if (!inContent && (CHROME.has(tag) || (role !== undefined && CHROME_ROLES.has(role)))) {
      el.remove();
      continue;
    }
    if (hasAttrs && tag === "a") {
      const href = el.getAttribute("href");
      if (href !== undefined) {
        const abs = absolute(href, base);
        if (abs) el.setAttribute("href", abs);
        else el.removeAttribute("href");
      }
    } else if (tag === "img") {
      const src = hasAttrs ? el.getAttribute("src") : undefined;
      const abs = src === undefined ? undefined : absolute(src, base);
      if (abs) el.setAttribute("src", abs);
      else {
        el.remove();
        continue;
      }
    }
    const isMain = tag === "main" || role === "main";
    if (isMain) found.main.push(el);
    if (tag === "article") found.article.push(el);
    clean(el, base, inContent || isMain || tag === "article", found);
  }
}

function pickRoot(
  body: HTMLElement,
  found: Candidates,
): { root: HTMLElement; extracted: HtmlPage["extracted"] } {
  const main = found.main.length === 1 ? found.main[0]! : undefined;
  if (main && main.text.trim().length >= MIN_MAIN_CHARS) return { root: main, extracted: "main" };
  const article = found.article.length === 1 ? found.article[0]! : undefined;
  if (article && article.text.trim().length >= MIN_MAIN_CHARS) return { root: article, extracted: "article" };
  return { root: body, extracted: "body" };
}

export function parseHtml(html: string, pageUrl: URL): HtmlPage {
  // `pre` parsed as elements (not raw text), so plain text of code blocks has no tags in it.
  const doc = parse(html, {
    comment: false,
    blockTextElements: { script: true, style: true, noscript: true },
  });
  const flattened = boundDepth(doc, MAX_HTML_DEPTH);
  const base = baseOf(doc, pageUrl);
  const title =
    doc.querySelector("title")?.text.trim() ||
    doc.querySelector('meta[property="og:title"]')?.getAttribute("content")?.trim() ||
    undefined;
  let markdownAlternate: string | undefined;
  for (const link of doc.querySelectorAll("link[href]")) {
    const rel = (link.getAttribute("rel") ?? "").toLowerCase().split(/\s+/);
    const type = (link.getAttribute("type") ?? "").toLowerCase().split(";")[0]!.trim();
    if (rel.includes("alternate") && (type === "text/markdown" || type === "text/x-markdown")) {
      markdownAlternate = absolute(link.getAttribute("href")!, base);
      if (markdownAlternate) break;
    }
  }
  const body = doc.querySelector("body") ?? doc;
  const found: Candidates = { main: [], article: [] };
  clean(body, base, false, found);
  const { root, extracted } = pickRoot(body, found);
  return {
    ...(title ? { title } : {}),
    ...(markdownAlternate ? { markdownAlternate } : {}),
    extracted,
    flattened,
    markdown: () => toMarkdown(root),
    text: () =>
      root.structuredText
        .split("\n")
        .map((line) => line.trimEnd())
        .join("\n")
        .replace(/\n{3,}/g, "\n\n")
        .trim(),
  };
}
