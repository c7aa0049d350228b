// WebSearch over a self-hosted SearXNG (a local fake of its JSON API): the second provider,
// needing no key, proves the provider interface; a package's own provider plugs in the same way.
import { ok } from "neverthrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProviderFactory } from "../src/index.js";
import { connectVia, type Local, startServer } from "./helpers/net.js";
import { activated, text } from "./helpers/tools.js";

let searx: Local;
let forbid = false;
beforeAll(async () => {
  searx = await startServer((req, res) => {
    if (forbid) return void res.writeHead(403).end("Forbidden");
    const q = new URL(req.url!, "http://x").searchParams.get("q");
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({
        query: q,
        number_of_results: 3,
        results: [
          {
            url: "https://docs.example.com/a",
            title: "Docs A",
            content: "About A",
            publishedDate: "2026-01-05T00:00:00",
            score: 3.5,
            engine: "duckduckgo",
          },
          {
            url: "https://blog.example.org/b",
            title: "Blog B",
            content: "About B",
            publishedDate: null,
            score: 1.25,
          },
          { url: "https://sub.docs.example.com/c", title: "Docs C", content: "About C" },
        ],
        answers: [{ answer: "A is first.", url: "https://docs.example.com/a" }],
        infoboxes: [],
        suggestions: [],
      }),
    );
  });
});
afterAll(() => searx.close());

const searxConfig = (extra: Record<string, unknown> = {}) => ({
  search: { provider: "searxng", endpoint: searx.url("/"), ...extra },
});

describe("WebSearch over SearXNG", () => {
  it("asks the JSON API and maps its results, with no key at all", async () => {
    const { tools, run, usage } = await activated(
      { env: {}, network: { connect: connectVia(undefined, {}) } },
      searxConfig(),
    );
    expect(tools).toEqual(["WebFetch", "WebSearch"]);
    const result = await run("WebSearch", {
      query: "what is A",
      topic: "news",
      days: 5,
      include_answer: true,
      max_results: 2,
    });
    const asked = new URL(searx.requests.at(-1)!.url!, "http://x");
    expect(asked.pathname).toBe("/search");
    expect(Object.fromEntries(asked.searchParams)).toEqual({
      q: "what is A",
      format: "json",
      categories: "news",
      time_range: "week",
    });
    const out = text(result);
    expect(out).toContain('Web search for "what is A" (searxng, 2 results).');
    expect(out).toContain("Answer (from searxng): A is first.");
    expect(out).toContain(
      "1. Docs A\n   https://docs.example.com/a\n   published 2026-01-05T00:00:00 · score 3.5\n   About A",
    );
    expect(out).toContain("2. Blog B\n   https://blog.example.org/b\n   score 1.25\n   About B");
    expect(out).not.toContain("Docs C");
    expect(usage).toEqual([{ source: "searxng", requests: 1 }]);
  });

  it("filters domains itself, and says so", async () => {
    const { run } = await activated(
      { env: {}, network: { connect: connectVia(undefined, {}) } },
      searxConfig(),
    );
    const only = text(await run("WebSearch", { query: "x", include_domains: ["docs.example.com"] }));
    expect(only).toContain("https://docs.example.com/a");
    expect(only).toContain("https://sub.docs.example.com/c");
    expect(only).not.toContain("blog.example.org");
    expect(only).toContain("SearXNG has no domain filter: Keel kept only results on the included domains.");
    const without = text(await run("WebSearch", { query: "x", exclude_domains: ["example.com"] }));
    expect(without).toContain("https://blog.example.org/b");
    expect(without).not.toContain("docs.example.com");
  });

  it("explains a 403 (JSON output disabled on the instance)", async () => {
    forbid = true;
    try {
      const { run } = await activated(
        { env: {}, network: { connect: connectVia(undefined, {}) } },
        searxConfig(),
      );
      const result = await run("WebSearch", { query: "x" });
      expect(text(result)).toBe(
        `WebSearch failed: SearXNG (${searx.url("/").replace(/\/$/, "")}) refused JSON output (HTTP 403): enable it with ` +
          "search.formats: [html, json] in its settings.yml",
      );
    } finally {
      forbid = false;
    }
  });

  it("needs an endpoint, and says so instead of offering a broken tool", async () => {
    const { tools, reports } = await activated({ env: {} }, { search: { provider: "searxng" } });
    expect(tools).toEqual(["WebFetch"]);
    expect(reports[0]!.message).toMatch(/^WebSearch is off: SearXNG needs the address of your instance/);
  });

  it("takes a provider a package adds, and refuses an unknown name", async () => {
    const seen: string[] = [];
    const mine: ProviderFactory = (settings) =>
      ok({
        name: "mine",
        search: async (request) => {
          seen.push(`${settings.endpoint} ${request.query} ${request.maxResults}`);
          return ok({
            provider: "mine",
            results: [{ title: "Mine", url: "https://mine.example/1", snippet: "s" }],
          });
        },
      });
    const { run } = await activated(
      { env: {}, providers: { mine } },
      { search: { provider: "mine", endpoint: "https://mine.example" } },
    );
    expect(text(await run("WebSearch", { query: "hello" }))).toContain("1. Mine\n   https://mine.example/1");
    expect(seen).toEqual(["https://mine.example hello 5"]);
    const unknown = await activated({ env: {} }, { search: { provider: "nope" } });
    expect(unknown.tools).toEqual(["WebFetch"]);
    expect(unknown.reports[0]!.message).toContain(
      'unknown search provider "nope" (known: auto, model, tavily, searxng)',
    );
  });
});

describe("/web", () => {
  it("shows the provider, the search count and the fetch limits, never a key", async () => {
    const { extension, runtime, run } = await activated(
      { env: {}, network: { connect: connectVia(undefined, {}) } },
      searxConfig({ maxSearchesPerSession: 9 }),
    );
    await run("WebSearch", { query: "x" });
    const web = extension.commands!.find((c) => c.name === "web")!;
    const shown = await web.run("", runtime as never, { signal: new AbortController().signal });
    expect(shown).toEqual({
      message:
        `WebSearch: searxng at ${searx.url("/")}; 1 of 9 searches this session\n` +
        "WebFetch: no private or local hosts; http upgraded to https; 10 MB download cap, 30 s, 5 redirects; 0 pages cached",
    });
    const keyed = await activated(
      { env: { TAVILY_API_KEY: "tvly-never-shown" } },
      { search: { endpoint: "http://127.0.0.1:9" } },
    );
    const line = await keyed.extension.commands![0]!.run("", keyed.runtime as never, {
      signal: new AbortController().signal,
    });
    expect(JSON.stringify(line)).toContain("key from $TAVILY_API_KEY");
    expect(JSON.stringify(line)).not.toContain("tvly-never-shown");
  });
});
