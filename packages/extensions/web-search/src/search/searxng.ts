// SearXNG's JSON API (a self-hosted metasearch server; no key): GET <endpoint>/search?format=json.
// It has no domain filter and no result count, so Keel filters and cuts the list itself and says so.
import { err, ok } from "neverthrow";
import { hostMatches } from "../net/hosts.js";
import type { ProviderFactory, SearchResult } from "./provider.js";
import { rangeForDays } from "./tavily.js";

interface SearxResult {
  title?: unknown;
  url?: unknown;
  content?: unknown;
  publishedDate?: unknown;
  score?: unknown;
}

/** `example.com` in a domain filter covers the domain and its subdomains, as Tavily's does. */
function onDomain(url: string, domains: string[]): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return domains.some((d) => hostMatches(d, host) || hostMatches(`*.${d.replace(/^\*\./, "")}`, host));
}

export function searxngProvider(): ProviderFactory {
  return (settings, context) => {
    if (!settings.endpoint)
      return err({
        type: "not_configured",
        message: "SearXNG needs the address of your instance (search.endpoint, e.g. http://127.0.0.1:8888)",
      });
    let base: URL;
    try {
      base = new URL(settings.endpoint);
    } catch {
      return err({ type: "not_configured", message: `search.endpoint "${settings.endpoint}" is not a URL` });
    }
    const describe = `SearXNG (${base.origin})`;
    return ok({
      name: "searxng",
      async search(request, signal) {
        const url = new URL("search", base.href.endsWith("/") ? base : new URL(`${base.href}/`));
        url.searchParams.set("q", request.query);
        url.searchParams.set("format", "json");
        if (request.topic === "news") url.searchParams.set("categories", "news");
        const range =
          request.timeRange ?? (request.days !== undefined ? rangeForDays(request.days) : undefined);
        if (range) url.searchParams.set("time_range", range);
        const timeout = AbortSignal.timeout(settings.timeoutMs);
        const response = await context.http.request(url, {
          headers: { accept: "application/json" },
          maxBytes: 5 * 1024 * 1024,
          readBody: true,
          signal: AbortSignal.any([signal, timeout]),
        });
        if (response.isErr()) {
          if (timeout.aborted)
            return err({
              type: "timeout",
              message: `${describe} did not answer within ${settings.timeoutMs / 1000} s`,
            });
          return err({
            type: "network",
            message: `${describe} could not be reached: ${response.error.message}`,
          });
        }
        const r = response.value;
        if (r.status === 403)
          return err({
            type: "provider",
            status: 403,
            message: `${describe} refused JSON output (HTTP 403): enable it with search.formats: [html, json] in its settings.yml`,
          });
        if (r.status === 429)
          return err({ type: "rate_limit", status: 429, message: `${describe} is rate limiting (HTTP 429)` });
        if (r.status < 200 || r.status > 299)
          return err({
            type: "provider",
            status: r.status,
            message: `${describe} answered HTTP ${r.status}`,
          });
        let body: { results?: unknown; answers?: unknown };
        try {
          body = JSON.parse(r.body.toString("utf8"));
        } catch {
          return err({ type: "bad_response", message: `${describe} sent something that is not JSON` });
        }
        if (!Array.isArray(body.results))
          return err({ type: "bad_response", message: `${describe} sent JSON without a results list` });
        const notes: string[] = [];
        let results: SearchResult[] = (body.results as SearxResult[])
          .filter((x) => typeof x.url === "string")
          .map((x) => ({
            title: typeof x.title === "string" ? x.title : "",
            url: x.url as string,
            snippet: typeof x.content === "string" ? x.content : "",
            ...(typeof x.publishedDate === "string" && x.publishedDate ? { published: x.publishedDate } : {}),
            ...(typeof x.score === "number" ? { score: x.score } : {}),
          }));
        if (request.includeDomains?.length) {
          results = results.filter((x) => onDomain(x.url, request.includeDomains!));
          notes.push("SearXNG has no domain filter: Keel kept only results on the included domains.");
        }
        if (request.excludeDomains?.length)
          results = results.filter((x) => !onDomain(x.url, request.excludeDomains!));
        if (request.topic === "finance") notes.push('SearXNG has no finance topic; searched "general".');
        const answers = Array.isArray(body.answers) ? body.answers : [];
        const first = answers[0] as unknown;
        const answer =
          typeof first === "string"
            ? first
            : typeof (first as { answer?: unknown })?.answer === "string"
              ? (first as { answer: string }).answer
              : undefined;
        return ok({
          provider: "searxng",
          results: results.slice(0, request.maxResults),
          ...(request.includeAnswer && answer ? { answer } : {}),
          usage: { requests: 1 },
          ...(notes.length > 0 ? { notes } : {}),
        });
      },
    });
  };
}
