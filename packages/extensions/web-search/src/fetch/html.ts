// HTML to what the model reads: the page's main content (its <main> or single <article> when it
// has one, the body otherwise), without scripts, navigation and other chrome, links made
// absolute, as Markdown (node-html-markdown) or plain text. Also finds a markdown alternate.
import { NodeHtmlMarkdown } from "node-html-markdown";
import { type HTMLElement, parse } from "node-html-parser";

/** Never content: code, embedded objects, form controls, hidden parts. */
const NEVER = [
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
  "[hidden]",
  '[aria-hidden="true"]',
].join(",");

/** Page chrome, removed when outside the main content (an article's own header stays). */
const CHROME = [
  "nav",
  "aside",
  "header",
  "footer",
  '[role="navigation"]',
  '[role="banner"]',
  '[role="contentinfo"]',
  '[role="complementary"]',
  '[role="search"]',
].join(",");

/** Below this much text a <main> or <article> is probably a teaser, and the body is kept whole. */
const MIN_MAIN_CHARS = 200;

export interface HtmlPage {
  title?: string;
  /** An absolute URL from `<link rel="alternate" type="text/markdown">`. */
  markdownAlternate?: string;
  /** Which part was kept: the page's main element, its article, or the whole body. */
  extracted: "main" | "article" | "body";
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

function insideContent(el: HTMLElement): boolean {
  for (let p = el.parentNode; p; p = p.parentNode) {
    const tag = p.tagName?.toLowerCase();
    if (tag === "main" || tag === "article" || p.getAttribute?.("role") === "main") return true;
  }
  return false;
}

function pickRoot(body: HTMLElement): { root: HTMLElement; extracted: HtmlPage["extracted"] } {
  const mains = body.querySelectorAll('main, [role="main"]');
  if (mains.length === 1 && mains[0]!.text.trim().length >= MIN_MAIN_CHARS)
    return { root: mains[0]!, extracted: "main" };
  const articles = body.querySelectorAll("article");
  if (articles.length === 1 && articles[0]!.text.trim().length >= MIN_MAIN_CHARS)
    return { root: articles[0]!, extracted: "article" };
  return { root: body, extracted: "body" };
}

export function parseHtml(html: string, pageUrl: URL): HtmlPage {
  // `pre` parsed as elements (not raw text), so plain text of code blocks has no tags in it.
  const doc = parse(html, {
    comment: false,
    blockTextElements: { script: true, style: true, noscript: true },
  });
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
  for (const el of body.querySelectorAll(NEVER)) el.remove();
  for (const el of body.querySelectorAll(CHROME)) if (!insideContent(el)) el.remove();
  for (const a of body.querySelectorAll("a[href]")) {
    const href = absolute(a.getAttribute("href")!, base);
    if (href) a.setAttribute("href", href);
    else a.removeAttribute("href");
  }
  for (const img of body.querySelectorAll("img[src]")) {
    const src = absolute(img.getAttribute("src")!, base);
    if (src) img.setAttribute("src", src);
    else img.remove();
  }
  const { root, extracted } = pickRoot(body);
  return {
    ...(title ? { title } : {}),
    ...(markdownAlternate ? { markdownAlternate } : {}),
    extracted,
    markdown: () => NodeHtmlMarkdown.translate(root.innerHTML).trim(),
    text: () =>
      root.structuredText
        .split("\n")
        .map((line) => line.trimEnd())
        .join("\n")
        .replace(/\n{3,}/g, "\n\n")
        .trim(),
  };
}
