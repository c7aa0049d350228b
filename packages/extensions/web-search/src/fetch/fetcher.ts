// WebFetch's core: one URL to a document the model can read. Plain http is upgraded, each hop
// goes through the private-network guard, same-host redirects are followed up to a cap (another
// host is handed back, so its domain is judged by the permission rules), and the body becomes
// markdown, text or raw by its content type, with the page's markdown alternate when it has one.

import { err, ok, type Result } from "neverthrow";
import type { HttpClient } from "../net/client.js";
import { type NetError, netError } from "../net/errors.js";
import { allowedAsWritten, type GuardPolicy, isLoopbackLiteral } from "../net/guard.js";
import { normalizeHost } from "../net/hosts.js";
import type { HttpResponse } from "../net/http.js";
import { TtlCache } from "./cache.js";
import { decodeBody, kindOf, parseContentType } from "./content.js";
import { formatBytes } from "./window.js";

export type FetchFormat = "markdown" | "text" | "raw";

export interface FetcherSettings {
  /** Bytes read from the network per response (after decompression). */
  maxDownloadBytes: number;
  /** The whole fetch, every redirect included. */
  timeoutMs: number;
  maxRedirects: number;
  /** Fetch http:// URLs as https:// unless the host is on the allowlist or this machine. */
  upgradeHttp: boolean;
  guard: GuardPolicy;
  userAgent: string;
  cacheTtlMs: number;
}

export interface FetchedDocument {
  kind: "document";
  /** The URL asked for, as it was fetched (after an https upgrade). */
  url: string;
  /** Where the content came from (after same-host redirects, or the markdown alternate). */
  finalUrl: string;
  status: number;
  contentType: string;
  title?: string;
  /** "markdown-alternate": the page's own markdown version was used. */
  via?: "markdown-alternate";
  extracted?: "main" | "article" | "body";
  /** The document in the asked format, UTF-8. */
  content: Buffer;
  /** Set when the download stopped at the cap. */
  downloadCut?: { readBytes: number; declaredBytes?: number };
  /** Things worth telling the model (an upgrade, a charset fallback, an offered alternate). */
  notes: string[];
  cached: boolean;
}

export interface CrossHostRedirect {
  kind: "redirect";
  url: string;
  location: string;
  status: number;
}

export type FetchOutcome = FetchedDocument | CrossHostRedirect;

const ACCEPT =
  "text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, application/json;q=0.8, " +
  "text/plain;q=0.8, */*;q=0.5";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const sameHost = (a: URL, b: URL) => normalizeHost(a.hostname) === normalizeHost(b.hostname);

export class Fetcher {
  private readonly cache: TtlCache<FetchedDocument>;

  constructor(
    private readonly client: HttpClient,
    private readonly settings: FetcherSettings,
  ) {
    this.cache = new TtlCache({ ttlMs: settings.cacheTtlMs, maxEntries: 64, maxBytes: 64 * 1024 * 1024 });
  }

  clearCache(): void {
    this.cache.clear();
  }

  /** Documents the session's cache holds now. */
  get cachedDocuments(): number {
    return this.cache.size;
  }

  /**
   * Plain http stays plain for a host the user allowlisted and for this machine: a local server
   * rarely has a certificate, so an upgrade would only turn a working fetch into a TLS failure.
   */
  private keepsHttp(url: URL): boolean {
    return allowedAsWritten(url.hostname, this.settings.guard) || isLoopbackLiteral(url.hostname);
  }

  private parseUrl(raw: string): Result<{ url: URL; notes: string[] }, NetError> {
    let url: URL;
    try {
      url = new URL(raw.trim());
    } catch {
      return err(netError("invalid_url", `"${raw}" is not a URL; give an absolute http(s) URL`));
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      return err(netError("invalid_url", `${url.protocol} URLs are not fetched; give an http(s) URL`));
    if (url.username || url.password)
      return err(netError("invalid_url", "URLs with credentials (user:password@) are not fetched"));
    url.hash = "";
    // `example.com.` is example.com: one spelling for the guard, TLS and the Host header.
    if (url.hostname.endsWith(".")) url.hostname = url.hostname.replace(/\.+$/, "");
    const notes: string[] = [];
    if (url.protocol === "http:" && this.settings.upgradeHttp && !this.keepsHttp(url)) {
      url.protocol = "https:";
      notes.push(`Fetched over https instead of plain http (${raw}).`);
    }
    return ok({ url, notes });
  }

  async fetch(
    raw: string,
    format: FetchFormat,
    signal: AbortSignal,
  ): Promise<Result<FetchOutcome, NetError>> {
    const parsed = this.parseUrl(raw);
    if (parsed.isErr()) return err(parsed.error);
    const { url, notes } = parsed.value;
    const key = `${format} ${url.href}`;
    const hit = this.cache.get(key);
    if (hit) return ok({ ...hit, cached: true });

    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    const combined = AbortSignal.any([signal, timeout]);
    const outcome = await this.fetchFollowing(url, format, notes, combined);
    if (outcome.isErr() && outcome.error.type === "aborted" && timeout.aborted && !signal.aborted)
      return err(
        netError(
          "timeout",
          `${url.href} did not finish within ${this.settings.timeoutMs / 1000} s; try again later or another source`,
          {
            url: url.href,
          },
        ),
      );
    if (outcome.isOk() && outcome.value.kind === "document")
      this.cache.set(key, outcome.value, outcome.value.content.length);
    return outcome;
  }

  private async get(url: URL, readBody: boolean, signal: AbortSignal) {
    return this.client.request(url, {
      headers: {
        accept: ACCEPT,
        "accept-encoding": "gzip, deflate, br",
        "user-agent": this.settings.userAgent,
      },
      maxBytes: this.settings.maxDownloadBytes,
      readBody,
      signal,
      guard: this.settings.guard,
    });
  }

  private async fetchFollowing(
    start: URL,
    format: FetchFormat,
    notes: string[],
    signal: AbortSignal,
  ): Promise<Result<FetchOutcome, NetError>> {
    let url = start;
    for (let hop = 0; ; hop++) {
      const response = await this.get(url, true, signal);
      if (response.isErr()) return err(response.error);
      const r = response.value;
      if (!REDIRECTS.has(r.status)) return this.toDocument(start, url, r, format, notes, signal);
      const location = r.headers.location;
      if (!location) return err(netError("protocol", `${url.href} answered ${r.status} without a Location`));
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return err(netError("protocol", `${url.href} redirects to an unusable Location: ${location}`));
      }
      next.hash = "";
      if (next.protocol !== "http:" && next.protocol !== "https:")
        return err(
          netError("protocol", `${url.href} redirects to a ${next.protocol} URL, which is not fetched`),
        );
      const written = next.href;
      if (next.protocol === "http:" && this.settings.upgradeHttp && !this.keepsHttp(next))
        next.protocol = "https:";
      if (!sameHost(next, url)) {
        // Refuse at once when the new host is private: the model should not even be pointed there.
        const probe = await this.client.check(next, this.settings.guard, signal);
        if (probe.isErr() && probe.error.type === "blocked_address")
          return err(
            netError("blocked_address", `${url.href} redirects to ${written}, and ${probe.error.message}`, {
              url: written,
            }),
          );
        return ok({ kind: "redirect", url: start.href, location: written, status: r.status });
      }
      if (hop + 1 > this.settings.maxRedirects)
        return err(
          netError(
            "too_many_redirects",
            `${start.href} redirected more than ${this.settings.maxRedirects} times (last to ${next.href}); stopped there`,
            { url: next.href },
          ),
        );
      url = next;
    }
  }

  private async toDocument(
    start: URL,
    url: URL,
    r: HttpResponse,
    format: FetchFormat,
    notes: string[],
    signal: AbortSignal,
  ): Promise<Result<FetchedDocument, NetError>> {
    if (r.status < 200 || r.status > 299) {
      const retry = r.headers["retry-after"] ? ` (retry after ${r.headers["retry-after"]})` : "";
      return err(
        netError("http_status", `${url.href} answered HTTP ${r.status}${retry}`, {
          status: r.status,
          url: url.href,
        }),
      );
    }
    const type = parseContentType(r.headers["content-type"]);
    const kind = kindOf(type, r.body);
    if (kind === "binary")
      return err(
        netError(
          "binary_content",
          `${url.href} is ${type.essence || "binary data"} (${formatBytes(r.declaredLength ?? r.body.length)}), ` +
            "not text; WebFetch returns text only",
          { url: url.href },
        ),
      );
    const decoded = decodeBody(r.body, type, kind);
    const docNotes = [...notes];
    if (decoded.note) docNotes.push(`Note: ${decoded.note}.`);
    const base = {
      kind: "document" as const,
      url: start.href,
      finalUrl: url.href,
      status: r.status,
      contentType: type.essence || "unknown",
      ...(r.truncated ? { downloadCut: cutOf(r) } : {}),
      notes: docNotes,
      cached: false,
    };
    if (kind !== "html" || format === "raw") return ok({ ...base, content: Buffer.from(decoded.text) });
    // The HTML stack (node-html-parser, node-html-markdown, entities: ~300 KB) loads on the first
    // HTML page, not with the extension: most sessions never fetch one.
    const { MAX_HTML_DEPTH, parseHtml } = await import("./html.js");
    const page = parseHtml(decoded.text, url);
    const title = page.title ? { title: page.title } : {};
    if (format === "markdown" && page.markdownAlternate) {
      const alternate = new URL(page.markdownAlternate);
      if (sameHost(alternate, url)) {
        const md = await this.get(alternate, true, signal);
        if (md.isOk() && md.value.status >= 200 && md.value.status < 300) {
          const mdType = parseContentType(md.value.headers["content-type"]);
          const mdKind = kindOf(mdType, md.value.body);
          if (mdKind === "markdown" || mdKind === "text")
            return ok({
              ...base,
              ...title,
              finalUrl: alternate.href,
              contentType: mdType.essence || "text/markdown",
              via: "markdown-alternate",
              content: Buffer.from(decodeBody(md.value.body, mdType, mdKind).text),
              ...(md.value.truncated ? { downloadCut: cutOf(md.value) } : {}),
            });
        }
        if (md.isErr() && md.error.type === "aborted") return err(md.error);
        docNotes.push(
          `The page's markdown version (${alternate.href}) could not be read; this is the HTML converted.`,
        );
      } else docNotes.push(`The page offers a markdown version on another host: ${alternate.href}.`);
    }
    if (page.flattened > 0)
      docNotes.push(
        `The page nests its HTML deeper than ${MAX_HTML_DEPTH} levels; below that only the text was kept (${page.flattened} element${page.flattened === 1 ? "" : "s"} flattened).`,
      );
    const content = format === "markdown" ? page.markdown() : page.text();
    return ok({ ...base, ...title, extracted: page.extracted, content: Buffer.from(content) });
  }
}

function cutOf(r: HttpResponse): { readBytes: number; declaredBytes?: number } {
  return {
    readBytes: r.body.length,
    ...(r.declaredLength !== undefined ? { declaredBytes: r.declaredLength } : {}),
  };
}
