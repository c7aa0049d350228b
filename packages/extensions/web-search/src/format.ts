// What the model reads from each tool: search results and fetched documents inside the
// untrusted-data envelope, with Keel's own lines (cuts, redirects, notes) outside it.
import { wrapExternal } from "./envelope.js";
import type { CrossHostRedirect, FetchedDocument } from "./fetch/fetcher.js";
import { cutNotice, formatBytes, type Window } from "./fetch/window.js";
import type { SearchResponse } from "./search/provider.js";

export function formatSearch(query: string, response: SearchResponse): string {
  const lines: string[] = [];
  if (response.answer) lines.push(`Answer (from ${response.provider}): ${response.answer}`, "");
  if (response.citations?.length) {
    lines.push("Cited:");
    response.citations.forEach((c, i) => {
      lines.push(
        `[${i + 1}] ${c.title ? `${c.title} ` : ""}<${c.url}>${c.citedText ? ` — "${c.citedText.trim()}"` : ""}`,
      );
    });
    lines.push("");
  }
  response.results.forEach((r, i) => {
    lines.push(`${i + 1}. ${r.title || r.url}`, `   ${r.url}`);
    const meta = [
      r.published ? `published ${r.published}` : undefined,
      r.score !== undefined ? `score ${Number(r.score.toFixed(3))}` : undefined,
    ].filter(Boolean);
    if (meta.length > 0) lines.push(`   ${meta.join(" · ")}`);
    if (r.snippet)
      lines.push(
        ...r.snippet
          .trim()
          .split("\n")
          .map((l) => `   ${l}`),
      );
    lines.push("");
  });
  if (response.results.length === 0) lines.push("No results.");
  const count = `${response.results.length} result${response.results.length === 1 ? "" : "s"}`;
  const out = [
    `Web search for "${query}" (${response.provider}, ${count}).`,
    wrapExternal({
      source: "web-search",
      attributes: { provider: response.provider, query },
      body: lines.join("\n").trimEnd(),
    }),
  ];
  for (const note of response.notes ?? []) out.push(note);
  if (response.results.length > 0)
    out.push("Cite the URLs you rely on. To read a result in full, call WebFetch with its URL.");
  return out.join("\n");
}

export function formatDocument(doc: FetchedDocument, w: Window, downloadKey: string): string {
  const out = [...doc.notes];
  if (doc.via === "markdown-alternate") out.push(`Read the page's own markdown version: ${doc.finalUrl}`);
  else if (doc.finalUrl !== doc.url) out.push(`Redirected to ${doc.finalUrl}.`);
  out.push(
    wrapExternal({
      source: "web-fetch",
      attributes: {
        url: doc.finalUrl,
        "content-type": doc.contentType,
        title: doc.title,
        bytes: w.offset === 0 && w.end >= w.total ? `${w.total}` : `${w.offset}-${w.end} of ${w.total}`,
      },
      body: w.text,
    }),
  );
  const cut = cutNotice(w, doc.url);
  if (cut) out.push(cut);
  if (doc.downloadCut) {
    const announced =
      doc.downloadCut.declaredBytes !== undefined
        ? ` of the ${formatBytes(doc.downloadCut.declaredBytes)} it announced`
        : "";
    const more =
      doc.downloadCut.declaredBytes !== undefined
        ? `; about ${formatBytes(Math.max(0, doc.downloadCut.declaredBytes - doc.downloadCut.readBytes))} more were not downloaded`
        : "; the rest was not downloaded";
    out.push(
      `[Download cut: the page is larger than the download cap, so only its first ` +
        `${formatBytes(doc.downloadCut.readBytes)}${announced} were read${more}. ` +
        `Offsets read on only within that part; the user can raise ${downloadKey}.]`,
    );
  }
  return out.join("\n");
}

export function formatRedirect(r: CrossHostRedirect): string {
  return (
    `${r.url} redirects (HTTP ${r.status}) to another host: ${r.location}\n` +
    "Nothing was fetched from there. To read it, call WebFetch with that URL (its domain is checked on its own)."
  );
}
